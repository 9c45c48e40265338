"""compile + launch from Python against the command line."""

import json
import os
import subprocess

import pytest

import autodist as ad
from conftest import mpirun


def _losses(log):
    with open(log) as f:
        return [json.loads(l)["loss"] for l in f if l.strip()]


def test_compile_and_launch_equal_the_cli(mlp, digits, cli, tmp_path):
    exe = ad.compile(mlp, train=ad.Training(loss="cross_entropy",
                                            optimizer=ad.optim.SGD(lr=0.1)),
                     strategy=ad.strategy.AllReduce(chunk_size=128),
                     output=tmp_path / "py.train")
    assert os.access(exe.path, os.X_OK)
    run = exe.launch(ranks=2, data=digits, steps=20, batch_size=16, echo=False)
    assert len(run.losses) == 20 and run.samples_per_s > 0

    subprocess.run([cli, mlp, "--train", "--loss=cross_entropy", "--optimizer=sgd",
                    "--lr=0.1", "--strategy=allreduce", "--quiet",
                    "-o", str(tmp_path / "cli.train")], check=True)
    log = tmp_path / "cli.jsonl"
    mpirun(2, str(tmp_path / "cli.train"), f"--data={digits}", "--steps=20",
           "--batch-size=16", f"--log={log}")
    assert run.losses == _losses(log)  # exactly: one compiler, one runtime


def test_precision_equals_the_cli(mlp, digits, cli, tmp_path):
    train = ad.Training(optimizer=ad.optim.Adam(lr=1e-3))
    exe = ad.compile(mlp, train=train, precision="bf16",
                     output=tmp_path / "bf16.train")
    run = exe.launch(ranks=1, data=digits, steps=5, batch_size=16, echo=False)
    subprocess.run([cli, mlp, "--train", "--optimizer=adam", "--lr=0.001",
                    "--precision=bf16", "--quiet",
                    "-o", str(tmp_path / "cli.train")], check=True)
    log = tmp_path / "cli.jsonl"
    mpirun(1, str(tmp_path / "cli.train"), f"--data={digits}", "--steps=5",
           "--batch-size=16", f"--log={log}")
    assert run.losses == _losses(log)
    fp32 = ad.compile(mlp, train=train, output=tmp_path / "fp32.train")
    assert fp32.launch(ranks=1, data=digits, steps=5, batch_size=16,
                       echo=False).losses != run.losses  # the rounding is there
    with pytest.raises(ad.CompileError, match="unknown --precision 'fp8'"):
        ad.compile(mlp, train=train, precision="fp8", output=tmp_path / "x")


def test_launch_writes_what_it_is_asked(mlp, digits, tmp_path):
    exe = ad.compile(mlp, train=ad.Training(optimizer=ad.optim.Adam(lr=1e-3)),
                     output=tmp_path / "m.train")
    run = exe.launch(ranks=1, data=digits, steps=5, batch_size=8, echo=False,
                     log=tmp_path / "m.jsonl", save=tmp_path / "trained.onnx",
                     checkpoint=tmp_path / "ckpt")
    assert run.losses == _losses(tmp_path / "m.jsonl")
    assert (tmp_path / "trained.onnx").stat().st_size > 0
    assert os.path.isdir(tmp_path / "ckpt")


def test_model_bytes_and_modelproto(mlp, tmp_path):
    onnx = pytest.importorskip("onnx")
    with open(mlp, "rb") as f:
        data = f.read()
    a = ad.compile(data, output=tmp_path / "a.infer")
    b = ad.compile(onnx.load(mlp), output=tmp_path / "b.infer")
    assert os.access(a.path, os.X_OK) and os.access(b.path, os.X_OK)
    assert a.strategy is None  # inference: no strategy
    with pytest.raises(ValueError):
        a.explain()


def test_compile_error_names_the_node(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Det", ["x"], ["y"], name="bad")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    out = tmp_path / "never.infer"
    with pytest.raises(ad.CompileError) as e:
        ad.compile(model, output=out)
    assert e.value.node == "bad" and e.value.op == "Det"
    assert e.value.diagnostics[0].severity == "error"
    assert "Det" in str(e.value)
    assert not out.exists()  # nothing half-written


def test_bad_option_values_are_errors(mlp, tmp_path):
    with pytest.raises(ad.CompileError, match="unknown --conv-backend 'fast'"):
        ad.compile(mlp, output=tmp_path / "x", conv_backend="fast")
    with pytest.raises(ValueError, match="--lr=abc"):
        ad.compile(mlp, train=ad.Training(), output=tmp_path / "x",
                   options={"lr": "abc"})
    with pytest.raises(ValueError, match="unknown compiler option 'no-such'"):
        ad.compile(mlp, output=tmp_path / "x", options={"no-such": 1})
    with pytest.raises(ad.CompileError, match="--momentum needs --optimizer=momentum"):
        ad.compile(mlp, train=ad.Training(), output=tmp_path / "x",
                   options={"momentum": 0.5})


def test_failing_run_raises_with_the_rank_message(mlp, tmp_path):
    exe = ad.compile(mlp, train=ad.Training(), output=tmp_path / "m.train")
    with pytest.raises(ad.RunError) as e:
        exe.launch(ranks=2, data=tmp_path / "missing.npz", steps=2,
                   batch_size=8, echo=False)
    assert "cannot open data file" in e.value.message
    assert "missing.npz" in e.value.message
    assert e.value.rank in (0, 1) and e.value.returncode != 0


def test_progress_lines_reach_the_callback(mlp, tmp_path):
    lines = []
    ad.compile(mlp, train=ad.Training(), output=tmp_path / "m.train",
               progress=lines.append)
    assert lines[0].startswith("importing ") and lines[-1].startswith("wrote ")
