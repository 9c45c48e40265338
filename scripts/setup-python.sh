#!/usr/bin/env bash
# Builds the autodist Python package (python/: scikit-build-core + nanobind
# over the compiler's C API) and installs it into a virtual environment —
# what `pip install ./python` does, through a wheel kept in build/wheels for
# the fresh-venv test. The package's CMake build lives in build-python/,
# beside build/ (ccache shares their objects), and is kept between runs.
# Idempotent. Usage: scripts/setup-python.sh [venv-dir]  (default: build/torch-venv,
# made by scripts/setup-torch.sh: the tests' from_torch needs torch)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-build/torch-venv}
PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
  echo "setup-python: no virtual environment at $VENV (run scripts/setup-torch.sh first)" >&2
  exit 1
fi
# The build backend and bindings (--no-build-isolation below uses these),
# pytest for python/tests, scikit-learn for the digits data of the tests and
# examples/python (numpy stays 1.x: Debian's torch 1.13 is built against it).
if ! "$PY" -c "import scikit_build_core, nanobind, pytest, sklearn" >/dev/null 2>&1; then
  echo "setup-python: installing scikit-build-core, nanobind, pytest and scikit-learn into $VENV"
  "$PY" -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.0" pytest scikit-learn "numpy<2"
fi
# The compilers build/ was configured with (pip's environment would name
# x86_64-linux-gnu-g++, and ccache keys on the compiler's name).
export CC=${CC:-cc} CXX=${CXX:-c++}
rm -rf build/wheels
echo "setup-python: building the autodist wheel (build-python/)"
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} "$PY" -m pip wheel -q --no-deps \
  --no-build-isolation ./python -w build/wheels
"$PY" -m pip install -q --no-deps --force-reinstall build/wheels/autodist-*.whl
echo "setup-python: installed $(ls build/wheels) into $VENV"
