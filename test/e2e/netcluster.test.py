#!/usr/bin/env python3
"""The emulated cluster itself (scripts/netcluster.sh): topology, shaping,
exit status, errors, and that nothing it made outlives a run, also one that
is interrupted or killed. Prints one PASS/FAIL line per check."""
import os
import re
import signal
import subprocess
import sys
import time

src, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
NC = [os.path.join(src, "scripts", "netcluster.sh")]
failed = False


def check(name, ok, detail=""):
    global failed
    failed |= not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""),
          flush=True)


def spec(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def nc(*args, timeout=120):
    return subprocess.run(NC + list(args), capture_output=True, text=True, timeout=timeout)


def leftovers(pid):
    """Namespaces and links of run `pid` still present."""
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return re.findall(rf"\badc{pid}[bvpn][0-9]*\b", names + links)


two = spec("two.yaml", """nodes:
  - address: 10.0.0.1
    cpus: [0, 1]
    chief: true
    network_bandwidth: 0.5
  - address: 10.0.0.2
    cpus: [0, 1]
    network_bandwidth: 2
    ssh_config: c
ssh:
  c: {username: root}
""")

# Ranks per node from `cpus`; each node its own host name and address.
r = nc("run", f"--cluster={two}", "--", "sh", "-c",
       'echo "rank $OMPI_COMM_WORLD_RANK on $(hostname)"')
lines = sorted(line for line in r.stdout.splitlines() if line.startswith("rank"))
check("2 nodes x 2 ranks, ranks 0-1 on the chief",
      r.returncode == 0 and lines == ["rank 0 on node0", "rank 1 on node0",
                                      "rank 2 on node1", "rank 3 on node1"],
      r.stdout + r.stderr)
check("topology printed", re.search(r"2 nodes on 198\.1[89]\.[0-9]+\.0/24 \(MTU 31250\): node0 \S+ "
                                    r"\(10\.0\.0\.1\): 2 ranks, 0\.5 Gbit/s, CPUs [0-9,]+; node1 \S+ "
                                    r"\(10\.0\.0\.2\): 2 ranks, 2 Gbit/s, CPUs [0-9,]+", r.stderr) is not None,
      r.stderr)

# Each node its own block of CPUs (disjoint while there are enough).
r = nc("run", f"--cluster={two}", "--ranks-per-node=1", "--quiet", "--", "sh", "-c",
       'echo "$(hostname) $(sed -n "s/^Cpus_allowed_list:\\s*//p" /proc/self/status)"')


def cpu_list(text):
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out


sets = dict(line.split() for line in r.stdout.splitlines() if line.startswith("node"))
enough = len(os.sched_getaffinity(0)) >= 2
check("each node its own CPUs", r.returncode == 0 and len(sets) == 2 and (
    not enough or not cpu_list(sets["node0"]) & cpu_list(sets["node1"])), r.stdout + r.stderr)

# Each node's link is shaped both ways to its network_bandwidth.
r = nc("run", f"--cluster={two}", "--ranks-per-node=1", "--", "sh", "-c",
       'tc qdisc show | grep -o "tbf .* rate [^ ]*" | sed "s/^/$(hostname): /"')
check("node links shaped to network_bandwidth",
      r.returncode == 0 and "node0: tbf" in r.stdout and "rate 500Mbit" in r.stdout
      and "rate 2Gbit" in r.stdout, r.stdout + r.stderr)

# --bandwidth overrides; the exit status is the job's.
r = nc("run", f"--cluster={two}", "--ranks-per-node=1", "--bandwidth=0.25", "--quiet", "--",
       "sh", "-c", 'tc qdisc show | grep -o "rate [^ ]*"; exit 3')
check("--bandwidth overrides every node", "rate 250Mbit" in r.stdout
      and "rate 500Mbit" not in r.stdout, r.stdout + r.stderr)
check("exit status of the job", r.returncode == 3, f"exit {r.returncode}")

# The links' MTU: by default a packet's worth of 0.5 ms at the slowest link
# (0.5 Gbit/s here: 31250 bytes), --mtu for others; tbf's bucket holds two
# such packets (the jobs that move data through it, above, finished).
r = nc("run", f"--cluster={two}", "--ranks-per-node=1", "--quiet", "--", "sh", "-c",
       'cat /sys/class/net/*p[0-9]*/mtu')
check("links at MTU 31250 by default", r.returncode == 0
      and r.stdout.split() == ["31250", "31250"], r.stdout + r.stderr)
r = nc("run", f"--cluster={two}", "--ranks-per-node=1", "--mtu=1500", "--quiet", "--",
       "sh", "-c", 'cat /sys/class/net/*p[0-9]*/mtu')
check("--mtu sets the links' MTU", r.returncode == 0
      and r.stdout.split() == ["1500", "1500"], r.stdout + r.stderr)

# Errors name the thing at fault and exit 2 before anything is made.
cases = [
    (["run", "--cluster=" + os.path.join(work, "missing.yaml"), "--", "true"],
     "cannot read the cluster spec"),
    (["run", "--cluster=" + spec("empty.yaml", "ssh: {}\n"), "--", "true"],
     "needs a non-empty `nodes:` list"),
    (["run", "--cluster=" + spec("noaddr.yaml", "nodes:\n  - cpus: [0]\n"), "--", "true"],
     "node 0 has no `address`"),
    (["run", "--cluster=" + spec("badbw.yaml", "nodes:\n  - address: a\n    network_bandwidth: -1\n"),
      "--", "true"], "network_bandwidth must be a positive number of Gbit/s, not -1"),
    (["run", "--cluster=" + spec("bad.yaml", "nodes: [\n"), "--", "true"], "not valid YAML"),
    (["run", f"--cluster={two}"], "no program given"),
    (["run", "--", "true"], "run needs --cluster"),
    (["run", f"--cluster={two}", "--ranks-per-node=0", "--", "true"],
     "--ranks-per-node must be at least 1"),
    (["run", f"--cluster={two}", "--mtu=100", "--", "true"],
     "--mtu must be between 576 and 65535 bytes, not 100"),
]
for argv, message in cases:
    r = nc(*argv)
    check(f"error: {message}", r.returncode == 2 and message in r.stderr,
          f"exit {r.returncode}: {r.stderr}")

def running(command):
    return subprocess.run(["pgrep", "-f", f"^{command}$"], capture_output=True,
                          text=True).stdout


def start_and_wait(command):
    """Starts `command` on the cluster and returns once its ranks run."""
    p = subprocess.Popen(NC + ["run", f"--cluster={two}", "--"] + command.split(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not running(command):
        time.sleep(0.2)
    return p


# SIGTERM in the middle of a job: the job ends, everything is removed.
p = start_and_wait("sleep 60")
started = time.time()
p.send_signal(signal.SIGTERM)
out, err = p.communicate(timeout=60)
ended = time.time() - started
sleeps = running("sleep 60")
check("SIGTERM ends the job", p.returncode == 128 + signal.SIGTERM and ended < 20 and not sleeps,
      f"exit {p.returncode} after {ended:.1f} s; left {sleeps.split()}")
check("SIGTERM: nothing left", leftovers(p.pid) == [], str(leftovers(p.pid)))

# SIGKILL of the script: mpirun dies with it, `clean` removes the rest.
p = start_and_wait("sleep 61")
p.kill()
p.communicate()
check("SIGKILL leaves namespaces", leftovers(p.pid) != [], "nothing was made?")
deadline = time.time() + 20
while time.time() < deadline and running("sleep 61"):
    time.sleep(0.2)
check("SIGKILL: the job dies with the script", not running("sleep 61"))
r = nc("clean")
check("clean removes the leftovers", r.returncode == 0 and leftovers(p.pid) == [],
      str(leftovers(p.pid)) + r.stderr)
sys.exit(1 if failed else 0)
