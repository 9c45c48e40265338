"""Strategies: AutoDist's eight builders by their class names, per-parameter
synchronizers, and Strategy objects that round-trip with the JSON strategy
files of `autodist-compile --strategy-file` / `--dump-strategy`.

A builder passed to autodist.compile() builds the strategy in the compiler
(the same C++ builder as `--strategy=NAME`); `build(model, builder)` returns
it as a Strategy to inspect or edit before compiling:

    s = ad.strategy.build("mlp.onnx", ad.strategy.AllReduce(chunk_size=2))
    s["fc1.weight"].synchronizer = ad.strategy.PS(server="localhost:CPU:0")
    exe = ad.compile("mlp.onnx", train=ad.Training(), strategy=s)
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

Flags = List[tuple]

_COMPRESSORS = {
    "none": "NoneCompressor", "fp16": "HorovodCompressor",
    "fp16_ef": "HorovodCompressorEF", "powersgd": "PowerSGDCompressor",
}


def _compressor(name: str) -> str:
    full = _COMPRESSORS.get(name, name)
    if full not in _COMPRESSORS.values():
        raise ValueError(f"unknown compressor '{name}' (expected one of "
                         f"{', '.join(list(_COMPRESSORS) + list(_COMPRESSORS.values()))})")
    return full


class Builder:
    """A strategy builder: what `--strategy=NAME` builds, and (for PS and
    AllReduce) a per-parameter synchronizer."""

    cli_name = ""

    def _flags(self) -> Flags:
        return [("strategy", self.cli_name)]

    def _edit(self, strategy: "Strategy") -> None:
        """Settings the compiler's builders have no flag for, applied to the
        built strategy (AutoDist's builder arguments)."""


@dataclasses.dataclass
class _PSBuilder(Builder):
    local_proxy_variable: bool = False
    sync: bool = True
    staleness: int = 0

    def _edit(self, strategy: "Strategy") -> None:
        if (self.local_proxy_variable, self.sync, self.staleness) == (False, True, 0):
            return
        for node in strategy._all_nodes():
            ps = node._d.get("PSSynchronizer")
            if ps is not None:
                ps["local_replication"] = bool(self.local_proxy_variable)
                ps["sync"] = bool(self.sync)
                ps["staleness"] = int(self.staleness)


@dataclasses.dataclass
class PS(_PSBuilder):
    """Every variable on one parameter server (AutoDist's PS). As a
    synchronizer: the parameter's gradients reduced on `server` (a device
    such as "localhost:CPU:0"; default: the first replica's node, CPU 0)."""

    server: Optional[str] = None
    cli_name = "ps"

    def _edit(self, strategy: "Strategy") -> None:
        super()._edit(strategy)
        if self.server:  # as a builder: every variable on this server
            for node in strategy._all_nodes():
                ps = node._d.get("PSSynchronizer")
                if ps is not None:
                    ps["reduction_destination"] = self.server

    def _synchronizer(self, strategy: "Strategy") -> Dict[str, Any]:
        server = self.server or strategy._default_server()
        return {"PSSynchronizer": {
            "reduction_destination": server,
            "local_replication": bool(self.local_proxy_variable),
            "sync": bool(self.sync), "staleness": int(self.staleness)}}


@dataclasses.dataclass
class _PlacedPSBuilder(_PSBuilder):
    placement: str = "bytes"  # or "bandwidth" (the cluster's links)

    def _flags(self) -> Flags:
        f = super()._flags()
        if self.placement != "bytes":
            f.append(("ps-placement", self.placement))
        return f


@dataclasses.dataclass
class PSLoadBalancing(_PlacedPSBuilder):
    """Each variable on the least-loaded parameter server."""

    cli_name = "ps-lb"


@dataclasses.dataclass
class PartitionedPS(_PlacedPSBuilder):
    """Axis 0 split by its smallest divisor, shards on the least-loaded
    servers."""

    cli_name = "partitioned-ps"


@dataclasses.dataclass
class UnevenPartitionedPS(_PlacedPSBuilder):
    """PartitionedPS with the smallest non-divisor (uneven shards)."""

    cli_name = "uneven-ps"


@dataclasses.dataclass
class _ARBuilder(Builder):
    chunk_size: int = 128

    def _flags(self) -> Flags:
        f = super()._flags()
        if self.chunk_size != 128:
            f.append(("chunk-size", str(int(self.chunk_size))))
        return f


@dataclasses.dataclass
class AllReduce(_ARBuilder):
    """All-reduce, `group = index // chunk_size` (AutoDist's AllReduce).
    `all_reduce_spec` NCCL, RING or AUTO; `compressor` none, fp16, fp16_ef,
    powersgd (AutoDist's names, e.g. "HorovodCompressor", too), with
    `powersgd_rank`. As a synchronizer, `group` sets the bucket."""

    all_reduce_spec: str = "NCCL"
    compressor: str = "NoneCompressor"
    powersgd_rank: Optional[int] = None
    group: Optional[int] = None
    cli_name = "allreduce"

    def _fields(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"spec": self.all_reduce_spec.upper(),
                             "compressor": _compressor(self.compressor)}
        if self.powersgd_rank is not None:
            d["powersgd_rank"] = int(self.powersgd_rank)
        return d

    def _edit(self, strategy: "Strategy") -> None:
        fields = self._fields()
        if fields == {"spec": "NCCL", "compressor": "NoneCompressor"}:
            return
        for node in strategy._all_nodes():
            ar = node._d.get("AllReduceSynchronizer")
            if ar is not None:
                ar.update(fields)

    def _synchronizer(self, strategy: "Strategy") -> Dict[str, Any]:
        d = self._fields()
        d["group"] = int(self.group or 0)
        return {"AllReduceSynchronizer": d}


@dataclasses.dataclass
class PartitionedAR(_ARBuilder):
    """Axis 0 split by its smallest divisor, one all-reduce per shard."""

    cli_name = "partitioned-ar"


@dataclasses.dataclass
class RandomAxisPartitionAR(_ARBuilder):
    """PartitionedAR on a seeded random axis."""

    seed: int = 0
    cli_name = "random-axis-ar"

    def _flags(self) -> Flags:
        return super()._flags() + [("seed", str(int(self.seed)))]


@dataclasses.dataclass
class Parallax(_ARBuilder):
    """Sparse gradients on load-balanced servers, dense ones all-reduced."""

    placement: str = "bytes"
    cli_name = "parallax"

    def _flags(self) -> Flags:
        f = super()._flags()
        if self.placement != "bytes":
            f.append(("ps-placement", self.placement))
        return f


BUILDERS = {cls.__name__: cls for cls in (
    PS, PSLoadBalancing, PartitionedPS, UnevenPartitionedPS, AllReduce,
    PartitionedAR, RandomAxisPartitionAR, Parallax)}
BUILDERS_BY_CLI_NAME = {cls.cli_name: cls for cls in BUILDERS.values()}


def builder(name: str) -> Builder:
    """The builder named by its AutoDist class name ("AllReduce") or its
    command-line name ("allreduce", "ps-lb")."""
    cls = BUILDERS.get(name) or BUILDERS_BY_CLI_NAME.get(name)
    if cls is None:
        raise ValueError(f"unknown strategy builder '{name}' (expected one of "
                         f"{', '.join(BUILDERS)} or {', '.join(BUILDERS_BY_CLI_NAME)})")
    return cls()


@dataclasses.dataclass
class Staleness:
    """SAPipe's staleness pipeline (`--staleness`): the stale parameters'
    gradients are applied `depth` steps late, their all-reduce overlapping
    the next step. `stale`: "all", "auto" or a list of parameter names;
    `compensation`: "none", "weight_prediction" (with `estimator`) or
    "delay_compensation" (with `dc_variant`, `dc_lambda`); `warmup`: the
    synchronous steps first (None: the compiler's default); `step_profile`:
    with stale="auto", a metrics log (`--log`) of the synchronous program
    whose median step time the cost model uses instead of a nominal rate."""

    depth: int = 1
    stale: Union[str, Sequence[str]] = "all"
    compensation: str = "none"
    estimator: Optional[str] = None
    dc_variant: Optional[str] = None
    dc_lambda: Optional[float] = None
    warmup: Optional[int] = None
    step_profile: Optional[Union[str, os.PathLike]] = None

    def _flags(self) -> Flags:
        stale = self.stale if isinstance(self.stale, str) else ",".join(self.stale)
        f = [("staleness", str(int(self.depth))), ("stale", stale),
             ("compensation", self.compensation)]
        if self.estimator is not None:
            f.append(("wp-estimator", self.estimator))
        if self.dc_variant is not None:
            f.append(("dc-variant", self.dc_variant))
        if self.dc_lambda is not None:
            f.append(("dc-lambda", repr(float(self.dc_lambda))))
        if self.warmup is not None:
            f.append(("stale-warmup", str(int(self.warmup))))
        if self.step_profile is not None:
            f.append(("step-profile", os.fspath(self.step_profile)))
        return f


class Node:
    """One parameter's (or shard's) entry of a strategy: a view onto the
    strategy's JSON, so edits change the strategy."""

    def __init__(self, d: Dict[str, Any], strategy: "Strategy"):
        self._d = d
        self._strategy = strategy

    @property
    def var_name(self) -> str:
        return self._d["var_name"]

    @property
    def partitioner(self) -> Optional[str]:
        return self._d.get("partitioner") or None

    @property
    def parts(self) -> List["Node"]:
        return [Node(p, self._strategy) for p in self._d.get("part_config", [])]

    @property
    def synchronizer(self) -> Optional[Builder]:
        """PS(server=...) or AllReduce(group=...), or None for a
        partitioned variable (its parts have one each)."""
        if "PSSynchronizer" in self._d:
            ps = self._d["PSSynchronizer"]
            return PS(server=ps.get("reduction_destination"),
                      local_proxy_variable=bool(ps.get("local_replication", False)),
                      sync=bool(ps.get("sync", False)),
                      staleness=int(ps.get("staleness", 0)))
        if "AllReduceSynchronizer" in self._d:
            ar = self._d["AllReduceSynchronizer"]
            return AllReduce(all_reduce_spec=ar.get("spec", "AUTO"),
                             compressor=ar.get("compressor", "NoneCompressor"),
                             powersgd_rank=ar.get("powersgd_rank"),
                             group=int(ar.get("group", 0)))
        return None

    @synchronizer.setter
    def synchronizer(self, sync: Union[PS, AllReduce, Dict[str, Any]]) -> None:
        if isinstance(sync, dict):
            new = copy.deepcopy(sync)
        elif hasattr(sync, "_synchronizer"):
            new = sync._synchronizer(self._strategy)
        else:
            raise TypeError("a synchronizer is ad.strategy.PS(server=...), "
                            "ad.strategy.AllReduce(group=...) or a dict")
        if self._d.get("part_config"):
            raise ValueError(f"'{self.var_name}' is partitioned: set the "
                             "synchronizer of each of its parts")
        self._d.pop("PSSynchronizer", None)
        self._d.pop("AllReduceSynchronizer", None)
        self._d.update(new)

    def __repr__(self) -> str:
        return f"Node({self.var_name!r}, {self.synchronizer!r})"


class Strategy:
    """A distribution strategy: AutoDist's Strategy proto as JSON."""

    def __init__(self, data: Dict[str, Any]):
        if not isinstance(data, dict) or "node_config" not in data:
            raise ValueError("a strategy is a JSON object with 'node_config'")
        self.data = data

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Strategy":
        with open(path) as f:
            return cls(json.load(f))

    @classmethod
    def from_json(cls, text: str) -> "Strategy":
        return cls(json.loads(text))

    def to_json(self) -> str:
        """The JSON as the compiler writes it (keys sorted, 2-space indent)."""
        return json.dumps(self.data, indent=2, sort_keys=True) + "\n"

    def save(self, path: Union[str, os.PathLike]) -> None:
        with open(path, "w") as f:
            f.write(self.to_json())

    @property
    def id(self) -> str:
        return self.data.get("id", "")

    @property
    def replicas(self) -> List[str]:
        return list(self.data.get("graph_config", {}).get("replicas", []))

    def names(self) -> List[str]:
        return [n["var_name"] for n in self.data["node_config"]]

    def __getitem__(self, name: str) -> Node:
        for n in self.data["node_config"]:
            if n["var_name"] == name:
                return Node(n, self)
            for p in n.get("part_config", []):
                if p["var_name"] == name:
                    return Node(p, self)
        raise KeyError(f"no parameter '{name}' in the strategy (has: "
                       f"{', '.join(self.names())})")

    def __iter__(self) -> Iterator[Node]:
        return (Node(n, self) for n in self.data["node_config"])

    def __len__(self) -> int:
        return len(self.data["node_config"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Strategy) and self.data == other.data

    def _all_nodes(self) -> Iterator[Node]:
        for n in self.data["node_config"]:
            yield Node(n, self)
            for p in n.get("part_config", []):
                yield Node(p, self)

    def _default_server(self) -> str:
        replicas = self.replicas
        host = replicas[0].split(":")[0] if replicas else "localhost"
        return f"{host}:CPU:0"

    def __repr__(self) -> str:
        return f"Strategy({self.id!r}, {len(self)} parameters)"


def build(model, builder: Union[str, Builder] = "AllReduce", cluster=None,
          **compile_args) -> Strategy:
    """The strategy `builder` makes for `model` (the compiler's builder, as
    `autodist-compile --emit=strategy`), with the builder's arguments that
    have no compiler flag applied."""
    from ._compile import compile as _compile
    return _compile(model, train=None, strategy=builder, cluster=cluster,
                    emit="strategy", **compile_args).strategy
