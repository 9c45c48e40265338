"""The package installs into a fresh virtual environment and works there
without the source tree."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO


@pytest.mark.skipif(not os.environ.get("AUTODIST_WHEEL_DIR"),
                    reason="AUTODIST_WHEEL_DIR (the built wheel, scripts/setup-python.sh) not set")
def test_fresh_venv(tmp_path, mlp, digits):
    wheels = [f for f in os.listdir(os.environ["AUTODIST_WHEEL_DIR"]) if f.endswith(".whl")]
    assert len(wheels) == 1, wheels
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    os.path.join(os.environ["AUTODIST_WHEEL_DIR"], wheels[0])], check=True)
    script = textwrap.dedent(f"""
        import autodist as ad, os, sys
        assert not ad.__file__.startswith({REPO!r}), ad.__file__
        exe = ad.compile({mlp!r}, train=ad.Training(), output="m.train")
        run = exe.launch(ranks=1, data={digits!r}, steps=3, batch_size=8, echo=False)
        print(len(run.losses), run.losses[-1] > 0)
    """)
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUTODIST_RUNTIME_LINK_FILE")}
    out = subprocess.run([py, "-c", script], cwd=work, env=env, check=True,
                         capture_output=True, text=True).stdout
    assert out.split() == ["3", "True"]
    # the command-line tools come with it
    help_text = subprocess.run([str(venv / "bin" / "autodist-compile"), "--help"],
                               check=True, capture_output=True, text=True).stdout
    assert "--strategy" in help_text
