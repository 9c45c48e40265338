#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build directory and runs each for
# MINUTES minutes, then prints executions per second and findings.
#
# Usage: scripts/fuzz.sh HARNESS|all MINUTES [libFuzzer flags...]
#   HARNESS: onnx-importer strategy-file resource-spec npz checkpoint
#   FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS: harnesses run at once
#   with `all` (default 1), FUZZ_MAX_LEN: -max_len (default: libFuzzer's).
#
# Seeds come from fuzz/make_corpus.py (with build/bin/autodist-compile when
# there is one: strategies of the builders, a trained checkpoint). New inputs
# accumulate in $FUZZ_BUILD_DIR/fuzz-corpus/HARNESS across runs; crashes go
# to $FUZZ_BUILD_DIR/fuzz-findings/HARNESS/. A finding is fixed, then its
# minimized reproducer (`<harness>-fuzzer -minimize_crash=1 CRASH`) goes to
# fuzz/regressions/HARNESS/, which the normal test suite replays.
set -euo pipefail
cd "$(dirname "$0")/.."
HARNESSES=(onnx-importer strategy-file resource-spec npz checkpoint)
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
WHICH=$1 MINUTES=$2
shift 2
if [ "$WHICH" = all ]; then
  RUN=("${HARNESSES[@]}")
elif [[ " ${HARNESSES[*]} " == *" $WHICH "* ]]; then
  RUN=("$WHICH")
else
  echo "fuzz.sh: unknown harness '$WHICH' (${HARNESSES[*]} or all)" >&2
  exit 2
fi

bash scripts/setup-fuzz.sh
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
PYTHON=${PYTHON:-python3}
if [ ! -f "$BUILD/build.ninja" ]; then
  LLVM_PREFIX=$(llvm-config-22 --prefix)
  # Release (NDEBUG) as Debian's MLIR is, with line tables for the reports.
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG -gline-tables-only" \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG -gline-tables-only" \
    -DAUTODIST_FUZZ=ON -DAUTODIST_SANITIZE=address,undefined \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DPython3_EXECUTABLE="$("$PYTHON" -c 'import sys; print(sys.executable)')" \
    >/dev/null
fi
nice -n 10 ninja -C "$BUILD" -j "${JOBS:-2}" "${RUN[@]/%/-fuzzer}"

SEEDS=$BUILD/fuzz-seeds
if [ ! -d "$SEEDS" ]; then
  COMPILE=()
  [ -x build/bin/autodist-compile ] && COMPILE=(--compile build/bin/autodist-compile)
  "$PYTHON" fuzz/make_corpus.py --out-dir "$SEEDS.tmp" "${COMPILE[@]}"
  mv "$SEEDS.tmp" "$SEEDS"
fi

# Every sanitizer report is a crash; leaks are findings too.
# allow_user_poisoning=0: see test/lit.cfg.py (LLVM headers in our
# instrumented code against the uninstrumented libMLIR).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

fuzz_one() {
  local h=$1 corpus=$BUILD/fuzz-corpus/$1 findings=$BUILD/fuzz-findings/$1
  local log=$BUILD/fuzz-logs/$1.log regressions=fuzz/regressions/$1
  shift # the rest are libFuzzer flags
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  local dirs=("$corpus" "$SEEDS/$h")
  [ -d "$regressions" ] && dirs+=("$regressions")
  local flags=(-max_total_time=$((MINUTES * 60)) -rss_limit_mb=2048
    -malloc_limit_mb=512 -timeout=10 -print_final_stats=1
    -artifact_prefix="$findings/")
  [ -n "${FUZZ_MAX_LEN:-}" ] && flags+=(-max_len="$FUZZ_MAX_LEN")
  local rc=0 before
  before=$(ls "$findings" | wc -l) # earlier runs' artifacts stay there
  nice -n 10 "$BUILD/bin/$h-fuzzer" "${flags[@]}" "$@" "${dirs[@]}" \
    >"$log" 2>&1 || rc=$?
  local execs rate units crashes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  units=$(ls "$corpus" | wc -l)
  crashes=$(($(ls "$findings" | wc -l) - before))
  echo "$h: ${execs:-?} executions in $MINUTES min, ${rate:-?}/s," \
    "corpus $units, new findings $crashes (rc $rc, log $log)"
  if [ "$rc" -ne 0 ]; then
    grep -m1 -E "^==[0-9]+==ERROR|runtime error|fuzz finding|Test unit written" \
      "$log" || tail -5 "$log"
  fi
  return "$rc"
}

status=0
JOBS_AT_ONCE=${FUZZ_JOBS:-1}
pids=()
for h in "${RUN[@]}"; do
  fuzz_one "$h" "$@" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS_AT_ONCE" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
