"""autodist.compile: the compiler (lib/Driver through the C API) from Python."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import _paths
from . import strategy as _strategy
from ._training import Training
from .errors import CompileError, Diagnostic

PathLike = Union[str, os.PathLike]
ModelLike = Union[PathLike, bytes, Any]  # Any: an onnx.ModelProto


def _native():
    from . import _autodist  # the nanobind module over lib/CAPI
    return _autodist


class _Scratch:
    """A temporary directory for a compile's inputs and side outputs."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="autodist-")

    def path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _model_path(model: ModelLike, scratch: _Scratch) -> str:
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
    elif hasattr(model, "SerializeToString"):
        data = model.SerializeToString()
    else:
        raise TypeError("model: a path, bytes or an onnx.ModelProto, got "
                        f"{type(model).__name__}")
    path = scratch.path("model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    return path


def _cluster_path(cluster, scratch: _Scratch) -> Optional[str]:
    if cluster is None:
        return None
    if isinstance(cluster, (str, os.PathLike)):
        return os.fspath(cluster)
    if isinstance(cluster, Mapping):
        # JSON is YAML (flow style), which the resource-spec reader accepts.
        path = scratch.path("cluster.yaml")
        with open(path, "w") as f:
            json.dump(cluster, f)
        return path
    raise TypeError("cluster: a resource-spec path or a dict")


def _auto_strategy(model_path: str, cluster_path: Optional[str],
                   common: List[tuple]) -> _strategy.Builder:
    """"auto": Parallax when some parameter is read sparsely (an embedding:
    Parallax puts it on a server), else AllReduce, as AutoDist's docs
    advise. Not AutoSync's search."""
    s = build_strategy_json(model_path, _strategy.Parallax(), cluster_path, common)
    sparse = any("PSSynchronizer" in n._d or n.parts for n in s)
    return _strategy.Parallax() if sparse else _strategy.AllReduce()


def build_strategy_json(model_path: str, builder: _strategy.Builder,
                        cluster_path: Optional[str],
                        common: List[tuple]) -> _strategy.Strategy:
    scratch = _Scratch()
    try:
        out = scratch.path("strategy.json")
        flags = [("input", model_path), ("output", out), ("emit", "strategy"),
                 ("quiet", "true")] + common + builder._flags()
        if cluster_path:
            flags.append(("cluster", cluster_path))
        _run(flags, None)
        s = _strategy.Strategy.load(out)
    finally:
        scratch.close()
    builder._edit(s)
    return s


def _run(flags: List[tuple], progress: Optional[Callable[[str], None]]) -> None:
    ok, diags = _native().compile(flags, progress)
    diagnostics = [Diagnostic.parse(d.severity, d.file, d.message) for d in diags]
    for d in diagnostics:
        if d.severity != "error":
            print(f"autodist: {d}", file=sys.stderr)
    if not ok:
        raise CompileError(diagnostics)


class Executable:
    """A compiled model: `path` is the executable (or what `emit` wrote),
    `strategy` the strategy it carries out (None for inference)."""

    def __init__(self, path: str, model: str, training: Optional[Training],
                 strategy: Optional[_strategy.Strategy],
                 table: Optional[Dict[str, Any]], emit: str):
        self.path = path
        self.model = model
        self.training = training
        self.strategy = strategy
        self.emit = emit
        self._table = table

    def explain(self, print_table: bool = True) -> List[Dict[str, Any]]:
        """The strategy table (`--explain`) as one dict per parameter or
        shard: parameter, shape, bytes, synchronizer, shards, placement,
        group, shard. Prints it unless `print_table` is False."""
        if self._table is None:
            raise ValueError("an inference executable has no strategy")
        rows = self._table["rows"]
        if print_table:
            print(format_table(self._table))
        return [dict(r) for r in rows]

    def launch(self, ranks: int = 1, **kwargs):
        """Runs the executable on `ranks` MPI ranks; see autodist.launch."""
        from ._launch import launch
        return launch(self, ranks=ranks, **kwargs)

    def __repr__(self) -> str:
        return f"Executable({self.path!r})"


def format_table(table: Dict[str, Any]) -> str:
    """The strategy table as text, in the columns of `--explain`."""
    lines = [f"strategy '{table['strategy']}', {table['replicas']} replica device(s)",
             f"{'parameter':<28} {'shape':<14} {'bytes':>12} {'synchronizer':<22} "
             f"{'shards':>6} {'placement':<20} {'group':>5}"]
    for r in table["rows"]:
        shape = "?" if r["shape"] is None else "[" + ", ".join(map(str, r["shape"])) + "]"
        name = ("  " if r["shard"] else "") + r["parameter"]
        group = "" if r["group"] is None else str(r["group"])
        lines.append(f"{name:<28} {shape:<14} {r['bytes']:>12} {r['synchronizer']:<22} "
                     f"{r['shards']:>6} {r['placement']:<20} {group:>5}")
    lines.append(f"total: {sum(1 for r in table['rows'] if not r['shard'])} "
                 f"parameters, {table['total_bytes']} bytes")
    for server, b in table["servers"].items():
        lines.append(f"server {server}: {b} bytes")
    for group, b in table["groups"].items():
        lines.append(f"all-reduce group {group}: {b} bytes")
    return "\n".join(lines)


def compile(model: ModelLike, train: Optional[Training] = None,
            strategy: Union[None, str, PathLike, _strategy.Builder,
                            _strategy.Strategy] = None,
            cluster: Union[None, PathLike, Mapping] = None,
            output: Optional[PathLike] = None, *,
            staleness: Optional[_strategy.Staleness] = None,
            input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
            bind_inputs: Optional[Mapping[str, Sequence[int]]] = None,
            emit: str = "exe", bucket_bytes: Optional[int] = None,
            opt_level: int = 3, jobs: int = 0, conv_backend: str = "auto",
            target: str = "cpu", precision: str = "fp32",
            progress: Union[bool, Callable[[str], None]] = False,
            options: Optional[Mapping[str, Any]] = None) -> Executable:
    """Compiles `model` (a path, bytes or an onnx.ModelProto) into `output`.

    train: a Training, or None for an inference executable.
    strategy: a builder object (ad.strategy.AllReduce(chunk_size=128), ...),
        its name ("AllReduce" or "allreduce"), a JSON strategy file, a
        Strategy, or "auto"; default AllReduce when training.
    cluster: an AutoDist resource spec (YAML path, or the same as a dict).
    output: the file to write (default: the model's name with .train, or
        .infer, in the current directory; a temporary for emit="strategy").
    staleness: an ad.strategy.Staleness (SAPipe's pipeline).
    input_shapes: {input: dims} for symbolic dims other than the batch.
    bind_inputs: {int64/bool input: values} bound as constants.
    emit: "exe", "obj", "llvm", "mlir" or "strategy".
    target: "cpu" or "cuda" (one rank per GPU; docs/cuda.md).
    precision: "fp32", "tf32" (cuda: f32 products on TF32 tensor cores),
        "bf16" or "fp16": matrix products and convolutions on 16-bit
        operands, f32 sums and master weights (docs/precision.md).
    progress: True prints the compiler's progress lines; a callable gets them.
    options: any other autodist-compile flag by name, e.g. {"sync-batchnorm": True}.
    Raises CompileError with the compiler's diagnostics.
    """
    scratch = _Scratch()
    try:
        model_path = _model_path(model, scratch)
        stem = os.path.splitext(os.path.basename(model_path))[0]
        if output is None:
            if emit == "strategy":
                output = scratch.path("strategy.json")
            else:
                output = os.path.abspath(
                    stem + {"exe": ".train" if train else ".infer", "obj": ".o",
                            "llvm": ".ll", "mlir": ".mlir"}.get(emit, ".out"))
        output = os.fspath(output)
        cluster_path = _cluster_path(cluster, scratch)
        common: List[tuple] = []
        for name, dims in (input_shapes or {}).items():
            common.append(("input-shape", f"{name}:" + "x".join(map(str, dims))))
        for name, values in (bind_inputs or {}).items():
            common.append(("bind-input", f"{name}=" + ",".join(map(str, values))))

        flags = [("input", model_path), ("output", output), ("emit", emit),
                 ("O", str(opt_level)), ("jobs", str(jobs))] + common
        if conv_backend != "auto":
            flags.append(("conv-backend", conv_backend))
        if target != "cpu":
            flags.append(("target", target))
        if precision != "fp32":
            flags.append(("precision", precision))
        if os.path.exists(_paths.RUNTIME_LINK_FILE):
            flags.append(("runtime-link-file", _paths.RUNTIME_LINK_FILE))
        if train is not None:
            flags += train._flags()
        distributed = train is not None or emit == "strategy"
        if distributed:
            if strategy is None:
                strategy = _strategy.AllReduce()
            if isinstance(strategy, str) and strategy == "auto":
                strategy = _auto_strategy(model_path, cluster_path, common)
            if isinstance(strategy, str) and not os.path.exists(strategy):
                if strategy.endswith(".json"):
                    raise FileNotFoundError(f"no strategy file '{strategy}'")
                strategy = _strategy.builder(strategy)
            if isinstance(strategy, _strategy.Builder):
                if _only_cli_settings(strategy):
                    flags += strategy._flags()  # built by the compiler itself
                else:  # settings with no flag: build, edit, pass the file
                    strategy = build_strategy_json(model_path, strategy,
                                                   cluster_path, common)
            if isinstance(strategy, _strategy.Strategy):
                path = scratch.path("strategy-in.json")
                strategy.save(path)
                flags.append(("strategy-file", path))
            elif isinstance(strategy, (str, os.PathLike)):
                flags.append(("strategy-file", os.fspath(strategy)))
            if cluster_path:
                flags.append(("cluster", cluster_path))
            if staleness is not None:
                flags += staleness._flags()
            if bucket_bytes is not None and train is not None:
                flags.append(("bucket-bytes", str(int(bucket_bytes))))
            flags.append(("dump-strategy", scratch.path("strategy-out.json")))
            flags.append(("explain-json", scratch.path("explain.json")))
        elif strategy is not None or cluster is not None or staleness is not None:
            raise ValueError("strategy, cluster and staleness distribute "
                             "training: give train=ad.Training(...)")
        for name, value in (options or {}).items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            flags.append((name, str(value)))
        callback = None
        if progress is True:
            callback = lambda line: print(f"autodist: {line}", file=sys.stderr)
        elif progress:
            callback = progress
        else:
            flags.append(("quiet", "true"))
        _run(flags, callback)

        table = result_strategy = None
        if distributed:
            result_strategy = _strategy.Strategy.load(scratch.path("strategy-out.json"))
            with open(scratch.path("explain.json")) as f:
                table = json.load(f)
        in_scratch = output.startswith(scratch.dir + os.sep)
        return Executable("" if in_scratch else os.path.abspath(output),
                          os.path.abspath(model_path) if isinstance(
                              model, (str, os.PathLike)) else "",
                          train, result_strategy, table, emit)
    finally:
        scratch.close()


def _only_cli_settings(builder: _strategy.Builder) -> bool:
    """Whether every setting of `builder` is one autodist-compile has a
    flag for (else the built strategy is edited and passed as a file)."""
    probe = _strategy.Strategy({"node_config": [
        {"var_name": "p", "PSSynchronizer": {"reduction_destination": "h:CPU:0",
                                             "local_replication": False,
                                             "sync": True, "staleness": 0}},
        {"var_name": "q", "AllReduceSynchronizer": {"spec": "NCCL",
                                                    "compressor": "NoneCompressor",
                                                    "group": 0}}]})
    before = probe.to_json()
    builder._edit(probe)
    return probe.to_json() == before
