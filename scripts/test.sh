#!/usr/bin/env bash
# Sets everything up and runs all tests: the lit suites (dialects, import,
# training, distribution, lowering, end to end on 1 and 2 MPI ranks) and the
# runtime's GoogleTest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
ninja -C build check-autodist
