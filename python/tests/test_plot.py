"""Run.plot: loss against step and time, several runs on one figure."""

import pytest

import autodist as ad

pytest.importorskip("matplotlib")


def test_plot_writes_an_image_of_several_runs(tmp_path):
    runs = [ad.Run([{"step": s + 1, "loss": 2.0 / (s + 1) + k, "samples_per_s": 100.0,
                     "time_s": 0.1 * (s + 1)} for s in range(5)], "", "", 0, 1.0,
                   f"run {k}", None, None) for k in range(2)]
    out = runs[0].plot(tmp_path / "loss.png", runs[1], title="two runs")
    data = (tmp_path / "loss.png").read_bytes()
    assert out.endswith("loss.png") and data[:8] == b"\x89PNG\r\n\x1a\n"
    assert runs[0].samples_per_s == pytest.approx(100.0)
    assert runs[1].losses[0] == 3.0
