#!/usr/bin/env python3
"""An emulated multi-node cluster on one machine, described by a resource spec.

    netcluster.py run --cluster=SPEC.yaml [options] -- PROGRAM [ARGS...]
    netcluster.py check
    netcluster.py clean

`run` brings up one network namespace per node of SPEC (the AutoDist resource
spec that `autodist-compile --cluster` reads) on a bridge of its own, shapes
each node's link in both directions with `tc tbf` to the node's
`network_bandwidth` (Gbit/s; a node without one is not shaped), launches
PROGRAM under mpirun with each rank inside its node (Open MPI's rsh launcher
through an agent that enters the namespace), MPI over TCP between nodes and
shared memory within one, and removes everything it made when the job ends,
fails or is interrupted. Its exit status is mpirun's.

`check` exits 0 when namespaces can be made here, else prints why and exits 1
(the tests' `netns` feature). `clean` removes what runs that were killed
with SIGKILL left behind (namespaces and links whose run is gone).

Ranks per node: the node's `cpus` (or `gpus`) count, or --ranks-per-node.
Each node gets its own host name (a UTS namespace), so Open MPI sees separate
hosts: shared memory only between ranks of one node. Addresses are taken from
198.18.0.0/15 (reserved for benchmarks); a spec's own addresses are not used.
See docs/netcluster.md.
"""
import argparse
import fcntl
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PREFIX = "adc"  # every interface and namespace this script makes
LOCK = "/run/lock/autodist-netcluster.lock"
# The links' MTU, unless --mtu gives one: as large as keeps a packet within
# PACKET_TIME_S of the slowest link's rate, between 1500 and 65535 bytes. A
# real node's NIC segments and coalesces TCP in hardware (TSO, GRO), so its
# kernel handles about 64 KiB per packet, which a fast wire carries in
# microseconds; veth here does neither (packets travel at 1500 bytes), and
# that per-packet work, done on the ranks' own CPUs, took 18 ms of softirq per
# step of the staleness bench's MLP. On a slow emulated link a large packet
# would instead make the shaping coarse: tbf's bucket must hold two of them,
# and an idle link would pass that much at once (docs/netcluster.md "MTU").
PACKET_TIME_S = 0.5e-3
MIN_MTU, MAX_MTU = 1500, 65535
ETHERNET_HEADER = 14


def auto_mtu(nodes):
    rates = [n["gbit"] * 1e9 / 8 for n in nodes if n["gbit"] is not None]
    if not rates:
        return MAX_MTU
    return int(min(MAX_MTU, max(MIN_MTU, min(rates) * PACKET_TIME_S)))


class Error(Exception):
    pass


def log(msg):
    print(f"netcluster: {msg}", file=sys.stderr, flush=True)


def sh(*cmd, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise Error(f"`{' '.join(cmd)}` failed: {(r.stderr or r.stdout).strip()}")
    return r


def read_spec(path, ranks_per_node, bandwidth):
    try:
        import yaml
    except ImportError:
        raise Error("python3-yaml is not installed (scripts/setup.sh installs it)")
    try:
        with open(path) as f:
            spec = yaml.safe_load(f)
    except OSError as e:
        raise Error(f"cannot read the cluster spec {path}: {e.strerror}")
    except yaml.YAMLError as e:
        raise Error(f"{path}: not valid YAML: {e}")
    nodes = spec.get("nodes") if isinstance(spec, dict) else None
    if not isinstance(nodes, list) or not nodes:
        raise Error(f"{path}: needs a non-empty `nodes:` list")
    out = []
    for i, n in enumerate(nodes):
        if not isinstance(n, dict) or "address" not in n:
            raise Error(f"{path}: node {i} has no `address`")
        devices = n.get("cpus") or n.get("gpus") or [0]
        ranks = ranks_per_node or len(devices)
        bw = bandwidth if bandwidth is not None else n.get("network_bandwidth")
        if bw is not None:
            if not isinstance(bw, (int, float)) or isinstance(bw, bool) or not bw > 0:
                raise Error(f"{path}: node {n['address']}: network_bandwidth must be "
                            f"a positive number of Gbit/s, not {bw!r}")
        out.append({"address": str(n["address"]), "ranks": ranks, "gbit": bw,
                    "chief": bool(n.get("chief"))})
    # The chief's ranks come first (rank 0 is the chief, as autodist-compile
    # --write-hostfile orders them).
    out.sort(key=lambda n: not n["chief"])
    return out


class Cluster:
    """The namespaces, links and bridge of one run; `down` removes them."""

    def __init__(self, nodes, mtu=None):
        self.nodes = nodes
        self.mtu = mtu if mtu is not None else auto_mtu(nodes)
        self.tag = f"{PREFIX}{os.getpid()}"  # `clean` reads the pid back
        self.bridge = self.tag + "b"
        self.made_bridge = False
        self.namespaces = []
        self.subnet = None
        self.split_cpus = True

    def ns(self, i):
        return f"{self.tag}n{i}"

    def free_subnet(self):
        used = sh("ip", "-4", "-o", "addr", "show").stdout
        start = os.getpid() % 256
        for k in range(512):
            third = (start + k) % 512
            net = f"198.{18 + third // 256}.{third % 256}"
            if f" {net}." not in used:
                return net
        raise Error("no free /24 left in 198.18.0.0/15")

    def up(self):
        os.makedirs(os.path.dirname(LOCK), exist_ok=True)
        with open(LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two runs must not pick one subnet
            self.subnet = self.free_subnet()
            sh("ip", "link", "add", self.bridge, "type", "bridge")
            self.made_bridge = True
            sh("ip", "addr", "add", f"{self.subnet}.1/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        for i, n in enumerate(self.nodes):
            ns, outer, inner = self.ns(i), f"{self.tag}v{i}", f"{self.tag}p{i}"
            n["ip"] = f"{self.subnet}.{i + 2}"
            n["ns"], n["host"] = ns, f"node{i}"
            sh("ip", "netns", "add", ns)
            self.namespaces.append(ns)
            mtu = str(self.mtu)
            sh("ip", "link", "add", outer, "mtu", mtu, "type", "veth",
               "peer", "name", inner, "mtu", mtu)
            sh("ip", "link", "set", inner, "netns", ns)
            sh("ip", "link", "set", outer, "master", self.bridge, "up")
            inside = ["ip", "netns", "exec", ns]
            sh(*inside, "ip", "link", "set", "lo", "up")
            sh(*inside, "ip", "addr", "add", f"{n['ip']}/24", "dev", inner)
            sh(*inside, "ip", "link", "set", inner, "up")
            if n["gbit"] is not None:
                # Egress of both ends: the node's sends (inside) and receives
                # (the bridge's side). The burst holds two packets (tbf
                # drops a packet larger than its bucket), or 0.5 ms of
                # traffic if more: a larger bucket, refilled while a step
                # computes, lets a step's all-reduce pass at line rate (5 ms
                # of burst: 614 KB at 1.05 Gbit/s took 1.6 ms instead of
                # 4.7; at 17 Mbit/s a 131 KB bucket carried most of the
                # GPT's 214 KB synchronous all-reduce at line rate: 36 ms
                # per step against the 100 ms of a link that never idles).
                rate_bits = n["gbit"] * 1e9
                burst = max(2 * (self.mtu + ETHERNET_HEADER),
                            int(rate_bits / 8 * PACKET_TIME_S))
                tbf = ["root", "tbf", "rate", f"{int(rate_bits)}bit",
                       "burst", str(burst), "latency", "50ms"]
                sh(*inside, "tc", "qdisc", "add", "dev", inner, *tbf)
                sh("tc", "qdisc", "add", "dev", outer, *tbf)

    def down(self):
        for ns in self.namespaces:
            pids = sh("ip", "netns", "pids", ns, check=False).stdout.split()
            for p in pids:
                try:
                    os.kill(int(p), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
        for i, ns in enumerate(self.namespaces):
            sh("ip", "link", "del", f"{self.tag}v{i}", check=False)
            sh("ip", "netns", "del", ns, check=False)
        if self.made_bridge:
            sh("ip", "link", "del", self.bridge, check=False)
        self.namespaces, self.made_bridge = [], False

    def describe(self):
        parts = []
        for n in self.nodes:
            bw = f"{n['gbit']:g} Gbit/s" if n["gbit"] is not None else "unshaped"
            cpus = f", CPUs {n['cpus']}" if self.split_cpus else ""
            parts.append(f"{n['host']} {n['ip']} ({n['address']}): "
                         f"{n['ranks']} rank{'s' if n['ranks'] != 1 else ''}, {bw}{cpus}")
        return (f"{len(self.nodes)} nodes on {self.subnet}.0/24 (MTU {self.mtu}): "
                + "; ".join(parts))


def node_cpus(nodes):
    """Each node's block of this machine's CPUs (as real nodes have their
    own): the CPUs this script may use, split evenly in node order; more
    nodes than CPUs share them round-robin."""
    allowed = sorted(os.sched_getaffinity(0))
    k, c = len(nodes), len(allowed)
    for i, n in enumerate(nodes):
        block = ([allowed[i % c]] if k > c
                 else allowed[i * c // k:(i + 1) * c // k])
        n["cpus"] = ",".join(map(str, block))


def write_agent(cluster, directory, split_cpus):
    """Open MPI's rsh agent: `agent HOST command...` runs the command in
    HOST's namespace, under the node's own host name, on the node's CPUs."""
    cases = "".join(
        f"  {n['ip']}) ns={n['ns']} name={n['host']} cpus={n['cpus'] if split_cpus else ''} ;;\n"
        for n in cluster.nodes)
    path = os.path.join(directory, "agent.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                "# Written by scripts/netcluster.py for one run.\n"
                "host=$1; shift\n"
                'case "$host" in\n' + cases +
                '  *) echo "netcluster agent: unknown host $host" >&2; exit 1 ;;\n'
                "esac\n"
                'set -- sh -c "hostname $name && $*"\n'
                '[ -n "$cpus" ] && set -- taskset -c "$cpus" "$@"\n'
                'exec ip netns exec "$ns" unshare --uts "$@"\n')
    os.chmod(path, 0o755)
    return path


def mpirun_command(cluster, agent, mpirun, program):
    hosts = ",".join(f"{n['ip']}:{n['ranks']}" for n in cluster.nodes)
    total = sum(n["ranks"] for n in cluster.nodes)
    net = f"{cluster.subnet}.0/24"
    btl = "tcp,vader,self" if any(n["ranks"] > 1 for n in cluster.nodes) else "tcp,self"
    # The emulation needs root, so mpirun runs as root.
    return [mpirun, "--allow-run-as-root", "--host", hosts, "-np", str(total),
            "--mca", "plm_rsh_agent", agent,
            "--mca", "oob_tcp_if_include", net,
            "--mca", "btl_tcp_if_include", net,
            "--mca", "btl", btl,
            # The agent gives each node its CPUs; the executable's --pin
            # splits them among the node's ranks.
            "--bind-to", "none",
            "-x", "PMIX_MCA_gds=hash"] + program


def can_make_namespaces():
    if os.geteuid() != 0:
        return "namespaces need root"
    for tool in ["ip", "tc", "unshare"]:
        if not shutil.which(tool):
            return f"`{tool}` is not installed (iproute2, util-linux)"
    name = f"{PREFIX}{os.getpid()}chk"
    r = sh("ip", "netns", "add", name, check=False)
    if r.returncode != 0:
        return f"`ip netns add` failed: {r.stderr.strip()}"
    sh("ip", "netns", "del", name, check=False)
    for kind in (["type", "bridge"], ["type", "veth", "peer", "name", name + "p"]):
        r = sh("ip", "link", "add", name + "b", *kind, check=False)
        if r.returncode != 0:
            return f"`ip link add ... {kind[1]}` failed: {r.stderr.strip()}"
        sh("ip", "link", "del", name + "b", check=False)
    return None


def die_with_parent():
    """mpirun gets SIGTERM if this script is killed (even with SIGKILL)."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def clean():
    """Removes the namespaces and links of runs whose process is gone."""
    import re
    owned = re.compile(PREFIX + r"([0-9]+)(?:chkb?|chkp|[bvpn][0-9]*)$")

    def gone(name):
        m = owned.match(name)
        return m and not os.path.exists(f"/proc/{m.group(1)}")

    removed = 0
    for line in sh("ip", "netns", "list", check=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if gone(name):
            for p in sh("ip", "netns", "pids", name, check=False).stdout.split():
                try:
                    os.kill(int(p), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", name, check=False)
            removed += 1
    for line in sh("ip", "-o", "link", "show", check=False).stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0] if ":" in line else ""
        if gone(name):
            sh("ip", "link", "del", name, check=False)
            removed += 1
    tmp = tempfile.gettempdir()
    for entry in os.listdir(tmp):
        m = re.match(r"netcluster\.([0-9]+)\.", entry)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            shutil.rmtree(os.path.join(tmp, entry), ignore_errors=True)
    log(f"removed {removed} leftover namespaces and links")
    return 0


def run(args):
    if not args.program:
        raise Error("no program given (netcluster.py run --cluster=SPEC -- PROGRAM ...)")
    why = can_make_namespaces()
    if why:
        raise Error(f"cannot emulate a cluster here: {why}")
    mpirun = shutil.which(args.mpirun)
    if not mpirun:
        raise Error(f"{args.mpirun} not found")
    nodes = read_spec(args.cluster, args.ranks_per_node, args.bandwidth)
    cluster = Cluster(nodes, args.mtu)
    child = None
    interrupted = []

    def on_signal(signum, frame):
        interrupted.append(signum)
        if child and child.poll() is None:
            child.send_signal(signal.SIGTERM)  # mpirun forwards it to the ranks
        else:
            raise KeyboardInterrupt

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    tmp = tempfile.mkdtemp(prefix=f"netcluster.{os.getpid()}.")
    try:
        cluster.up()
        cluster.split_cpus = not args.share_cpus
        node_cpus(cluster.nodes)
        if not args.quiet:
            log(cluster.describe())
        agent = write_agent(cluster, tmp, not args.share_cpus)
        cmd = mpirun_command(cluster, agent, mpirun, args.program)
        if args.verbose:
            log(" ".join(shlex.quote(c) for c in cmd))
        env = dict(os.environ, PMIX_MCA_gds="hash")
        child = subprocess.Popen(cmd, env=env, preexec_fn=die_with_parent)
        while True:
            try:
                rc = child.wait()
                break
            except KeyboardInterrupt:
                continue
        if interrupted:
            return 128 + interrupted[0]
        return rc
    except KeyboardInterrupt:
        return 128 + (interrupted[0] if interrupted else signal.SIGINT)
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)  # cleanup must finish
        if child and child.poll() is None:
            child.kill()
            child.wait()
        cluster.down()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        usage="%(prog)s {run,check,clean} [options] [-- PROGRAM ARGS...]")
    ap.add_argument("command", choices=["run", "check", "clean"])
    ap.add_argument("--cluster", help="resource spec (YAML)")
    ap.add_argument("--ranks-per-node", type=int,
                    help="ranks on every node (default: its cpus/gpus count)")
    ap.add_argument("--bandwidth", type=float,
                    help="shape every node's link to this many Gbit/s instead "
                         "of its network_bandwidth")
    ap.add_argument("--share-cpus", action="store_true",
                    help="let every node use all CPUs (default: each node its "
                         "own block of them)")
    ap.add_argument("--mtu", type=int,
                    help="the links' MTU in bytes, 576-65535 (default: a "
                         "packet's worth of 0.5 ms at the slowest link's "
                         "rate, 1500-65535)")
    ap.add_argument("--mpirun", default=os.environ.get("AUTODIST_MPIRUN", "mpirun"))
    ap.add_argument("--verbose", action="store_true", help="print the mpirun command")
    ap.add_argument("--quiet", action="store_true", help="do not print the topology")
    argv = sys.argv[1:]
    program = []
    if "--" in argv:
        cut = argv.index("--")
        argv, program = argv[:cut], argv[cut + 1:]
    args = ap.parse_args(argv)
    args.program = program
    try:
        if args.command == "check":
            why = can_make_namespaces()
            if why:
                print(f"netcluster: cannot emulate a cluster here: {why}")
                return 1
            return 0
        if args.command == "clean":
            return clean()
        if not args.cluster:
            raise Error("run needs --cluster=SPEC.yaml")
        if args.ranks_per_node is not None and args.ranks_per_node < 1:
            raise Error("--ranks-per-node must be at least 1")
        if args.bandwidth is not None and not args.bandwidth > 0:
            raise Error("--bandwidth must be a positive number of Gbit/s")
        if args.mtu is not None and not 576 <= args.mtu <= 65535:
            raise Error(f"--mtu must be between 576 and 65535 bytes, not {args.mtu}")
        return run(args)
    except Error as e:
        log(f"error: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
