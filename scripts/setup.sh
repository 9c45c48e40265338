#!/usr/bin/env bash
# Installs what AutoDist-MLIR needs on Debian 12 (apt + pip) and builds it.
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Usage: scripts/setup.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}

APT_PACKAGES=(cmake ninja-build ccache g++ pkg-config
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  openmpi-bin libopenmpi-dev libopenblas-dev libdnnl-dev
  nlohmann-json3-dev libgtest-dev zlib1g-dev
  iproute2 python3-yaml)  # the emulated cluster: scripts/netcluster.py

source scripts/apt-install.sh
apt_install setup "${APT_PACKAGES[@]}"

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c "import onnx, onnxruntime, numpy, sklearn, yaml" >/dev/null 2>&1; then
  echo "setup: installing python packages (onnx onnxruntime numpy scikit-learn pyyaml)"
  "$PYTHON" -m pip install -q onnx onnxruntime numpy scikit-learn pyyaml
fi
PYTHON_EXE=$("$PYTHON" -c 'import sys; print(sys.executable)')

LLVM_PREFIX=$(llvm-config-22 --prefix)
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DPython3_EXECUTABLE="$PYTHON_EXE" >/dev/null
fi
# ccache keys on absolute paths unless told where checkouts live: with the
# parent directory as base, a second clone beside this one (CI on a fresh
# clone) reuses this one's objects instead of compiling everything again.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd .. && pwd)}
ninja -C "$BUILD_DIR" -j "${JOBS:-2}"
