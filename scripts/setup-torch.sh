#!/usr/bin/env bash
# Installs what the PyTorch-export tests need: Debian's python3-torch and
# python3-torchvision (torch 1.13, CPU) and a virtual environment on top of
# them with Hugging Face transformers (for the BERT-like model) and onnx.
# Idempotent. Usage: scripts/setup-torch.sh [venv-dir]   (default: build/torch-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-build/torch-venv}

APT_PACKAGES=(python3-torch python3-torchvision python3-venv python3-pip
              python3-matplotlib) # matplotlib: the plots of bench/staleness.py
source scripts/apt-install.sh
apt_install setup-torch "${APT_PACKAGES[@]}"
if [ ! -x "$VENV/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
# transformers 4.36 is the last line that supports Debian's torch 1.13.
# onnx comes from PyPI into the venv: Debian's libonnx-testdata (the
# conformance tests' data) leaves an empty onnx/ folder in dist-packages,
# which `import onnx` would otherwise find as a namespace package. numpy stays
# Debian's (torch 1.13 is built against numpy 1.x).
if ! "$VENV/bin/python" -c "import transformers, torchvision
from onnx import TensorProto, numpy_helper" >/dev/null 2>&1; then
  echo "setup-torch: installing transformers and onnx into $VENV"
  "$VENV/bin/pip" install -q "transformers==4.36.2" "onnx==1.17.0" "numpy<2"
fi
