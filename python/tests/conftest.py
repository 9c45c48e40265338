"""Fixtures of the autodist package's tests: the repository's example MLP
and digits data, made by the repository's scripts."""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(*cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("autodist")


@pytest.fixture(scope="session")
def mlp(work):
    path = os.path.join(work, "mlp.onnx")
    _run(sys.executable, os.path.join(REPO, "examples/mlp/make_mlp.py"), "--out", path)
    return path


def _python_with(module):
    """An interpreter that has `module`: this one, or scripts/setup.sh's
    python3 (scikit-learn is there, not in the torch venv)."""
    for py in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if py and subprocess.run([py, "-c", f"import {module}"],
                                 capture_output=True).returncode == 0:
            return py
    pytest.skip(f"no python with {module} (scripts/setup.sh installs it)")


@pytest.fixture(scope="session")
def digits(work):
    out = os.path.join(work, "data")
    _run(_python_with("sklearn"), os.path.join(REPO, "examples/digits/make_data.py"),
         "--out-dir", out)
    return os.path.join(out, "train.npz")


@pytest.fixture(scope="session")
def cluster(work):
    """Two nodes, two CPU devices each: parameter servers to place on."""
    path = os.path.join(work, "cluster.yaml")
    with open(path, "w") as f:
        f.write("nodes:\n"
                "  - address: 10.0.0.1\n    cpus: [0, 1]\n    chief: true\n"
                "  - address: 10.0.0.2\n    cpus: [0, 1]\n    ssh_config: c\n"
                "ssh:\n  c: {username: u}\n")
    return path


@pytest.fixture(scope="session")
def cli():
    """The installed autodist-compile (the package's own binary)."""
    from autodist import _paths
    return _paths.tool("autodist-compile")


def mpirun(ranks, *args):
    cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return _run(*cmd, *args)
