"""Strategy builders and Strategy objects against the command line."""

import os
import re
import subprocess

import pytest

import autodist as ad

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CLI_NAMES = {
    "PS": "ps", "PSLoadBalancing": "ps-lb", "PartitionedPS": "partitioned-ps",
    "UnevenPartitionedPS": "uneven-ps", "AllReduce": "allreduce",
    "PartitionedAR": "partitioned-ar", "RandomAxisPartitionAR": "random-axis-ar",
    "Parallax": "parallax",
}


def cli_strategy(cli, mlp, cluster, tmp_path, *flags):
    out = tmp_path / "cli.json"
    subprocess.run([cli, mlp, "--emit=strategy", f"--cluster={cluster}", "--quiet",
                    "-o", str(out), *flags], check=True)
    return out.read_text()


@pytest.mark.parametrize("name", sorted(CLI_NAMES))
def test_each_builder_writes_the_cli_strategy_file(name, mlp, cluster, cli, tmp_path):
    s = ad.strategy.build(mlp, getattr(ad.strategy, name)(), cluster=cluster)
    assert s.to_json() == cli_strategy(cli, mlp, cluster, tmp_path,
                                       f"--strategy={CLI_NAMES[name]}")
    # by either name, as a string too
    assert ad.strategy.build(mlp, name, cluster=cluster) == s
    assert ad.strategy.build(mlp, CLI_NAMES[name], cluster=cluster) == s


def test_builder_arguments_with_flags(mlp, cluster, cli, tmp_path):
    s = ad.strategy.build(mlp, ad.strategy.AllReduce(chunk_size=2), cluster=cluster)
    assert s.to_json() == cli_strategy(cli, mlp, cluster, tmp_path,
                                       "--strategy=allreduce", "--chunk-size=2")
    assert [n.synchronizer.group for n in s] == [0, 0, 1, 1]
    s = ad.strategy.build(mlp, ad.strategy.RandomAxisPartitionAR(seed=3), cluster=cluster)
    assert s.to_json() == cli_strategy(cli, mlp, cluster, tmp_path,
                                       "--strategy=random-axis-ar", "--seed=3")


def test_builder_arguments_without_flags_edit_the_strategy(mlp, cluster):
    s = ad.strategy.build(mlp, ad.strategy.AllReduce(compressor="fp16"), cluster=cluster)
    assert {n.synchronizer.compressor for n in s} == {"HorovodCompressor"}
    s = ad.strategy.build(mlp, ad.strategy.PS(local_proxy_variable=True), cluster=cluster)
    assert all(n.synchronizer.local_proxy_variable for n in s)
    with pytest.raises(ValueError, match="unknown compressor"):
        ad.strategy.AllReduce(compressor="zip")._fields()


def test_strategy_file_round_trip(mlp, cluster, cli, tmp_path):
    text = cli_strategy(cli, mlp, cluster, tmp_path, "--strategy=partitioned-ps")
    path = tmp_path / "s.json"
    path.write_text(text)
    s = ad.strategy.Strategy.load(path)
    assert s.to_json() == text
    assert ad.strategy.Strategy.from_json(text) == s
    w = s["fc1.weight"]
    assert w.partitioner and [p.var_name for p in w.parts][0] == "fc1.weight/part_0"
    # the compiler reads it back unchanged
    exe = ad.compile(mlp, train=None, strategy=s, cluster=cluster, emit="strategy")
    assert exe.strategy == s


def test_edited_strategy_compiles_and_is_what_explain_shows(mlp, cli, tmp_path):
    s = ad.strategy.build(mlp, ad.strategy.AllReduce())
    s["fc1.weight"].synchronizer = ad.strategy.PS(server="localhost:CPU:0")
    s["fc2.bias"].synchronizer = ad.strategy.AllReduce(group=1, compressor="fp16")
    exe = ad.compile(mlp, train=ad.Training(), strategy=s, output=tmp_path / "e.train")
    assert exe.strategy == s
    rows = {r["parameter"]: r for r in exe.explain(print_table=False)}
    assert rows["fc1.weight"]["placement"] == "localhost:CPU:0"
    assert rows["fc1.weight"]["group"] is None
    assert rows["fc2.bias"]["group"] == 1 and rows["fc1.bias"]["group"] == 0
    assert rows["fc1.weight"]["shape"] == [32, 64] or rows["fc1.weight"]["bytes"] > 0

    path = tmp_path / "edited.json"
    s.save(path)
    explained = subprocess.run(
        [cli, mlp, "--train", f"--strategy-file={path}", "--explain", "--emit=mlir",
         "--quiet", "-o", str(tmp_path / "e.mlir")],
        check=True, capture_output=True, text=True).stdout
    assert ad.format_table(exe._table) == explained.rstrip("\n")


def test_edits_are_checked(mlp):
    s = ad.strategy.build(mlp, ad.strategy.PartitionedPS())
    with pytest.raises(ValueError, match="is partitioned"):
        s["fc1.weight"].synchronizer = ad.strategy.PS()
    with pytest.raises(KeyError, match="no parameter 'nope'"):
        s["nope"]
    with pytest.raises(ValueError, match="unknown strategy builder"):
        ad.strategy.builder("Horovod")


def test_auto_is_allreduce_for_a_dense_model(mlp):
    s = ad.compile(mlp, train=None, strategy="auto", emit="strategy").strategy
    assert s == ad.strategy.build(mlp, ad.strategy.AllReduce())


def test_staleness_reaches_the_strategy(mlp, digits, tmp_path):
    exe = ad.compile(mlp, train=ad.Training(), output=tmp_path / "s.train",
                     staleness=ad.strategy.Staleness(stale=["fc1.weight"]))
    assert exe.strategy.data["pipeline"]["depth"] == 1
    assert exe.strategy.data["pipeline"]["stale"] == ["fc1.weight"]
    run = exe.launch(ranks=2, data=digits, steps=4, batch_size=8, echo=False)
    assert len(run.losses) == 4


def test_step_profile_informs_the_automatic_stale_set(mlp, tmp_path):
    # At the nominal rate the MLP's step takes microseconds and no all-reduce
    # hides behind its backward pass at 1 Gbit/s: every parameter is stale. A
    # measured step of 1 s hides them all: none is. The stale set is the
    # in-flight state of the step.
    log = tmp_path / "sync.jsonl"
    log.write_text("".join(f'{{"step": {i}, "time_s": {float(i)}}}\n' for i in range(1, 13)))
    cluster = os.path.join(REPO, "test", "e2e", "Inputs", "netcluster-2nodes.yaml")

    def stale_set(**profile):
        out = tmp_path / "s.mlir"
        ad.compile(mlp, train=ad.Training(), output=out, cluster=cluster, emit="mlir",
                   staleness=ad.strategy.Staleness(stale="auto", **profile))
        lists = re.findall(r"dist.inflight_params = \[([^\]]*)\]", out.read_text())
        return {n.strip().strip('"') for names in lists for n in names.split(",")}

    assert stale_set() == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
    assert stale_set(step_profile=log) == set()
    with pytest.raises(ad.CompileError, match="cannot read the step profile"):
        stale_set(step_profile=tmp_path / "missing.jsonl")


def test_strategy_given_as_a_file(mlp, tmp_path):
    s = ad.strategy.build(mlp, ad.strategy.PSLoadBalancing())
    path = tmp_path / "any-name.strategy"  # a file, whatever its extension
    s.save(path)
    assert ad.compile(mlp, strategy=str(path), emit="strategy").strategy == s
    assert ad.compile(mlp, strategy=path, emit="strategy").strategy == s
    with pytest.raises(FileNotFoundError, match="no strategy file"):
        ad.compile(mlp, strategy=str(tmp_path / "missing.json"), emit="strategy")
