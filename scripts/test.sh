#!/usr/bin/env bash
# Sets everything up and runs all tests: the lit suites (dialects, import,
# training, distribution, lowering, runtime unit tests, end to end on 1 and 2
# MPI ranks), then the Python package's pytest suite (python/tests). Ends
# with the line "N passed, M failed, K skipped" over both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
scripts/setup-torch.sh build/torch-venv
scripts/setup-python.sh build/torch-venv   # pip install ./python, via a wheel
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
echo "lit: ${passed:-0} passed, ${failed:-0} failed, ${unsupported:-0} skipped"

# The Python package, installed by setup-python.sh (not the source tree:
# python/tests is not a package, so pytest does not put python/ on the path).
pylog=$(mktemp)
trap 'rm -f "$log" "$pylog"' EXIT
AUTODIST_WHEEL_DIR="$PWD/build/wheels" build/torch-venv/bin/python -m pytest \
  -p no:cacheprovider -q -rs python/tests 2>&1 | tee "$pylog" || status=$?
count() { { grep -Eo "[0-9]+ $1" "$pylog" || true; } | tail -1 | cut -d' ' -f1; }
pypassed=$(count passed); pyfailed=$(count failed); pyerrors=$(count error)
pyskipped=$(count skipped)
echo "pytest: ${pypassed:-0} passed, $(( ${pyfailed:-0} + ${pyerrors:-0} )) failed, ${pyskipped:-0} skipped"
echo "$(( ${passed:-0} + ${pypassed:-0} )) passed," \
  "$(( ${failed:-0} + ${pyfailed:-0} + ${pyerrors:-0} )) failed," \
  "$(( ${unsupported:-0} + ${pyskipped:-0} )) skipped"
exit $status
