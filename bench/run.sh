#!/usr/bin/env bash
# AutoDist-MLIR vs PyTorch DDP (gloo) training benchmark, 2 ranks on this machine.
#
#   bash bench/run.sh [bench.py options]     # e.g. --batch-sizes 64 --rounds 7
#
# Needs the tools in build/ (scripts/setup.sh), OpenMPI, OpenBLAS headers,
# cc, /usr/bin/time, the `python3` with numpy+onnx (examples' interpreter) and
# an interpreter with torch (AUTODIST_TORCH_PYTHON, default /usr/bin/python3:
# Debian's python3-torch + python3-onnx). Writes bench/results/results.json
# and bench/results/results.md. About 5 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# OPENBLAS_CORETYPE is left as the environment has it (bench.py reports it).
exec python3 bench/bench.py "$@"
