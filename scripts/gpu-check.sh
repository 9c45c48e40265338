#!/usr/bin/env bash
# The cuda target's check on a GPU machine (docs/cuda.md), in one command of
# a few minutes. It needs the bundle scripts/gpu-bundle.sh made on a CPU
# machine with the build (the GPU machine has no MLIR and no Open MPI), e.g.
# through the device tool:
#
#   bash scripts/gpu-bundle.sh                     # here: build/gpu-bundle
#   run(command="bash scripts/gpu-check.sh", carry=["build/gpu-bundle"])
#
# It prints the device and versions, runs the CUDA runtime's unit tests (their
# GPU cases), checks each model's per-step losses over 20 steps against the
# CPU build's (fp32: relative 1e-4; bf16, --precision=bf16 against the CPU's
# bf16 build, which rounds the same operands: relative 1e-2; NCCL at world
# size 1 carries every model's gradients), and measures samples/s of
# ResNet-18 and a GPT-style model against PyTorch eager and torch.compile on
# the same device, in fp32 and in bf16 (PyTorch: autocast). Results:
# $OUT/gpu-check.json (and gpu-check.log); the exit status is 0 only if every
# check passed.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:-$src/build/gpu-bundle}
out=${OUT:-$bundle/out}
mkdir -p "$out"
exec > >(tee "$out/gpu-check.log") 2>&1
[ -f "$bundle/lib.tar.xz" ] || { echo "gpu-check: no bundle at $bundle (scripts/gpu-bundle.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results.jsonl"
: > "$results"
status=0
record() { python3 -c 'import json,sys; print(json.dumps(dict(zip(sys.argv[1::2], sys.argv[2::2]))))' "$@" >> "$results"; }

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || status=1
nvcc --version 2>/dev/null | tail -1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

echo "== libraries"
tar -C "$work" -xJf "$bundle/lib.tar.xz"
tar -C "$work" -xJf "$bundle/bin.tar.xz"
bin=$work/bin
# CUDA's libraries from the machine: the toolkit's, or PyTorch's wheels.
cudadirs=$( { find /usr/local/cuda*/lib64 /usr/local/cuda*/lib /usr/lib/x86_64-linux-gnu \
                "$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)" \
                -maxdepth 4 \( -name 'libcudart.so.13*' -o -name 'libcublasLt.so.13*' \
                -o -name 'libnccl.so.2*' -o -name 'libcudnn.so.9*' \) 2>/dev/null || true; } |
            xargs -r -n1 dirname | sort -u | paste -sd:)
echo "CUDA libraries from: $cudadirs"
export LD_LIBRARY_PATH="$work/lib:$cudadirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Open MPI from the bundle, as a singleton (no mpirun, no orted).
export OMPI_MCA_mca_base_component_path="$work/lib/openmpi3"
export PMIX_MCA_mca_base_component_path="$work/lib/pmix"
export OMPI_MCA_ess_singleton_isolated=1
export OMPI_MCA_mca_base_component_show_load_errors=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
missing=$(ldd "$bin"/* 2>/dev/null | grep "not found" | sort -u)
if [ -n "$missing" ]; then echo "unresolved libraries:"; echo "$missing"; status=1; fi

echo "== weights and benchmark data"
python3 "$src/scripts/gpu_models.py" regenerate "$bundle/models" || status=1

echo "== CUDA runtime unit tests"
if timeout 300 "$bin/autodist-cuda-runtime-tests" --gtest_brief=1; then
  record check runtime-tests result PASS
else
  record check runtime-tests result FAIL; status=1
fi

models=$(python3 -c 'import json,sys; [print(m["key"], m["name"], m["precision"], m["batch"], int(bool(m.get("external"))), int(bool(m.get("bench")))) for m in json.load(open(sys.argv[1]))]' "$bundle/models/models.json")

echo "== numerics: the CPU build's losses, 20 steps (fp32: 1e-4, bf16: 1e-2)"
while read -r key name precision batch external bench; do
  [ "$bench" = 1 ] && continue
  rtol=1e-4; [ "$precision" = fp32 ] || rtol=1e-2
  args=(--data="$bundle/models/$name.npz" --steps=20 --batch-size="$batch" --log="$out/$key.cuda.jsonl")
  [ "$external" = 1 ] && args+=(--external-data="$bundle/models")
  echo "-- $key"
  if timeout 300 "$bin/$key.cuda.train" "${args[@]}" > "$out/$key.out" 2>&1 &&
     python3 "$src/test/e2e/compare_losses.py" "$out/$key.cuda.jsonl" "$bundle/ref/$key.jsonl" \
       --rtol "$rtol" --steps 20 | tee "$out/$key.compare"; then
    record check "numerics-$key" result PASS detail "$(tail -2 "$out/$key.compare" | head -1)"
  else
    tail -5 "$out/$key.out"
    record check "numerics-$key" result FAIL detail "$(tail -1 "$out/$key.out")"; status=1
  fi
done <<< "$models"

echo "== samples/s against PyTorch (fp32 and bf16, same device)"
ours() { # median samples/s of steps 6..N of a --log
  python3 -c 'import json,sys,statistics; l=[json.loads(x) for x in open(sys.argv[1])][5:]; print(statistics.median(x["samples_per_s"] for x in l))' "$1"
}
while read -r key name precision batch external bench; do
  [ "$bench" = 1 ] || continue
  model=${name%_bench}
  args=(--data="$bundle/models/$name.npz" --steps=30 --batch-size="$batch" --log="$out/$key.cuda.jsonl" --external-data="$bundle/models")
  echo "-- $key (batch $batch)"
  if timeout 300 "$bin/$key.cuda.train" "${args[@]}" > "$out/$key.out" 2>&1; then
    mine=$(ours "$out/$key.cuda.jsonl")
  else
    tail -5 "$out/$key.out"; mine=0; status=1
  fi
  eager=$(timeout 300 python3 "$src/scripts/gpu_models.py" bench-torch --model "$model" --batch "$batch" --steps 30 --precision "$precision" | tail -1)
  compiled=$(timeout 400 python3 "$src/scripts/gpu_models.py" bench-torch --model "$model" --batch "$batch" --steps 30 --precision "$precision" --compile | tail -1)
  echo "autodist $mine; eager $eager; compile $compiled"
  python3 - "$key" "$mine" "$eager" "$compiled" "$precision" >> "$results" <<'EOF'
import json, sys
name, mine, precision = sys.argv[1], float(sys.argv[2]), sys.argv[5]
def rate(s):
    try: return json.loads(s)["samples_per_s"]
    except Exception: return None
eager, comp = rate(sys.argv[3]), rate(sys.argv[4])
print(json.dumps({"check": "bench-" + name, "precision": precision, "autodist_samples_per_s": mine,
                  "torch_eager_samples_per_s": eager, "torch_compile_samples_per_s": comp,
                  "vs_eager": mine / eager if eager else None,
                  "vs_compile": mine / comp if comp else None}))
EOF
done <<< "$models"

python3 - "$results" "$out/gpu-check.json" "$status" "$(cd "$src" && git rev-parse HEAD 2>/dev/null || echo unknown)" <<'EOF'
import json, sys, datetime
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump({"date": datetime.date.today().isoformat(), "commit": sys.argv[4],
           "passed": sys.argv[3] == "0", "results": rows}, open(sys.argv[2], "w"), indent=1)
for r in rows:
    print(" ".join(f"{k}={v}" for k, v in r.items()))
EOF
echo "gpu-check: $([ $status = 0 ] && echo PASS || echo FAIL) ($out/gpu-check.json)"
exit $status
