#!/usr/bin/env bash
# The main job on the embedded default: sets everything up, compiles an MLP
# ONNX model into a training executable, trains it on 2 MPI ranks on
# scikit-learn's bundled digits dataset and prints the test accuracy; then
# the same from Python with the autodist package.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
OUT=out/demo
mkdir -p "$OUT"
python3 examples/mlp/make_mlp.py --out "$OUT/mlp.onnx" --hidden 64
python3 examples/digits/make_data.py --out-dir "$OUT"
build/bin/autodist-compile "$OUT/mlp.onnx" --train --loss=cross_entropy \
  --optimizer=sgd --lr=0.1 --strategy=allreduce -o "$OUT/mlp.train"
mpirun -np 2 "$OUT/mlp.train" --data="$OUT/train.npz" --steps=600 \
  --batch-size=16 --log="$OUT/metrics.jsonl" --save="$OUT/trained.onnx" \
  --eval="$OUT/test.npz"

# The same from Python: the autodist package (pip install ./python, through
# scripts/setup-python.sh) trains a PyTorch-defined model on 2 ranks and
# plots its loss (examples/python/train_digits.py, docs/python.md).
scripts/setup-torch.sh build/torch-venv
scripts/setup-python.sh build/torch-venv
build/torch-venv/bin/python examples/python/train_digits.py --out-dir "$OUT/python"
