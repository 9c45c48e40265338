#!/usr/bin/env bash
# Prepares, on a CPU machine with the build, everything scripts/gpu-check.sh
# needs on a GPU machine, which has CUDA, PyTorch and Python but neither MLIR
# nor Open MPI: the `--target=cuda` executables of the check's models, the
# CPU build's losses for them (the reference), the CUDA runtime's tests, and
# the non-CUDA shared libraries the executables load (Open MPI with its
# components, OpenBLAS, oneDNN, protobuf; xz-compressed). Large weights and
# the benchmark data are not carried: gpu_models.py regenerates them there.
#
#   bash scripts/gpu-bundle.sh [DIR]     (default build/gpu-bundle, < 60 MiB)
#
# Then, on the GPU machine (the device tool: carry build/gpu-bundle):
#   bash scripts/gpu-check.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${AUTODIST_BUILD:-$src/build}
out=${1:-$build/gpu-bundle}
compiler=$build/bin/autodist-compile
torchpy=${AUTODIST_TORCH_PYTHON:-$build/torch-venv/bin/python}
steps=20
for f in "$compiler" "$build/bin/autodist-cuda-runtime-tests" "$torchpy"; do
  [ -x "$f" ] || { echo "gpu-bundle: missing $f (build the project, scripts/setup-torch.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"/{models,ref}

python3 "$src/scripts/gpu_models.py" prepare --out "$out/models" --torch-python "$torchpy"

# key name batch external bench flags..., one executable per line (key: the
# name, with .bf16 for --precision=bf16).
python3 - "$out/models/models.json" > "$tmp/models.txt" <<'EOF'
import json, sys
for m in json.load(open(sys.argv[1])):
    print(m["key"], m["name"], m["batch"], int(bool(m.get("external"))),
          int(bool(m.get("bench"))), *m["flags"])
EOF
mkdir -p "$tmp/bin"
while read -r key name batch external bench flags; do
  echo "== $key"
  read -ra extra <<< "${flags:-}"
  "$compiler" "$out/models/$name.onnx" --train --target=cuda "${extra[@]}" \
    -o "$tmp/bin/$key.cuda.train" --quiet
  [ "$bench" = 1 ] && continue
  # The reference: the CPU build, the same data, batch and steps.
  "$compiler" "$out/models/$name.onnx" --train "${extra[@]}" -o "$tmp/$key.cpu.train" --quiet
  data=(--data="$out/models/$name.npz")
  [ "$external" = 1 ] && data+=(--external-data="$out/models")
  "$tmp/$key.cpu.train" "${data[@]}" --steps=$steps --batch-size="$batch" \
    --log="$out/ref/$key.jsonl" > "$tmp/$key.out"
done < "$tmp/models.txt"
cp "$build/bin/autodist-cuda-runtime-tests" "$build/bin/autodist-nccl-id-test" "$tmp/bin/"

# The shared libraries, less glibc's, the C++ runtime's and CUDA's (the GPU
# machine has its own), with Open MPI's and PMIx's components.
ompi=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
pmix=/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
mkdir -p "$tmp/lib/openmpi3" "$tmp/lib/pmix"
cp -L "$ompi"/*.so "$tmp/lib/openmpi3/"
[ -d "$pmix" ] && cp -L "$pmix"/*.so "$tmp/lib/pmix/"
skip='^(linux-vdso|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|ld-linux|libstdc\+\+|libgcc_s|libcuda\.so|libcudart|libcublas|libnccl|libcudnn)'
{ ldd "$tmp"/bin/* "$tmp"/lib/openmpi3/*.so "$tmp"/lib/pmix/*.so 2>/dev/null || true; } |
  awk '/=> \// {print $1, $3}' | sort -u | while read -r soname path; do
    [[ "$soname" =~ $skip ]] || cp -L "$path" "$tmp/lib/$soname"
  done
# Open MPI's own libraries (libmpi's dependencies are found above).
tar -C "$tmp" -cJf "$out/lib.tar.xz" lib
# The executables, compressed too (the bf16 ones double their size).
tar -C "$tmp" -cJf "$out/bin.tar.xz" bin
# Made again on the GPU machine.
rm -f "$out"/models/*.weights "$out"/models/*_bench.npz
rm -rf "$out/models/digits"
size=$(du -sm "$out" | cut -f1)
echo "gpu-bundle: $out ($size MiB)"
if [ "$size" -gt 60 ]; then
  echo "gpu-bundle: $out is over 60 MiB: the device tool carries 64 MiB in all" >&2
  exit 1
fi
