"""Waits (up to 30 s) until no process runs the program given: mpirun can
exit on SIGTERM before its ranks have ended, and a rank still running may
be writing its next checkpoint's temporary when the test looks."""

import os
import sys
import time

target = os.path.realpath(sys.argv[1])
deadline = time.time() + 30
while time.time() < deadline:
    alive = False
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if argv0 and os.path.realpath(argv0) == target:
            alive = True
            break
    if not alive:
        sys.exit(0)
    time.sleep(0.1)
sys.exit(f"wait_exited.py: {target} still runs after 30 s")
