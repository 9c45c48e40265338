#!/usr/bin/env bash
# Sets everything up and runs all tests: the lit suites (dialects, import,
# training, distribution, lowering, runtime unit tests, end to end on 1 and 2
# MPI ranks). Ends with the line "N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
scripts/setup-torch.sh build/torch-venv
source scripts/apt-install.sh
apt_install test libonnx-testdata   # the ONNX backend node tests
ninja -C build -j "${JOBS:-2}" autodist-runtime-tests fake-model-train
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$(llvm-config-22 --bindir)/lit" -sv build/test 2>&1 | tee "$log" || status=$?
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
unsupported=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
echo "${passed:-0} passed, ${failed:-0} failed, ${unsupported:-0} skipped"
exit $status
