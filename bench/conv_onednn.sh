#!/usr/bin/env bash
# Builds bench/conv_onednn.cpp and runs it single-threaded (bench/README.md,
# "Convolutions and sgemm: OpenBLAS vs oneDNN"). Needs libdnnl-dev (Debian 12:
# oneDNN 2.6.3), libopenblas-dev, g++; `all` also runs bench/conv_torch.py with
# Debian's /usr/bin/python3 (torch 1.13).
#
#   bash bench/conv_onednn.sh conv [seconds per op]      # one run, convolutions
#   bash bench/conv_onednn.sh sgemm [seconds per shape]  # one run, OpenBLAS vs dnnl_sgemm
#   bash bench/conv_onednn.sh all OUTDIR [rounds=3]      # the README's figures:
#       rounds x conv, rounds x (sgemm with OPENBLAS_CORETYPE unset, =Haswell),
#       rounds x conv_torch.py, `uptime` around each; OUTDIR/summary.md
#
# One run's own OPENBLAS_CORETYPE is passed through as found.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${CONV_ONEDNN_BIN:-/tmp/conv_onednn}
if [[ ! -x $bin || $here/conv_onednn.cpp -nt $bin ]]; then
  g++ -O2 -std=c++17 "$here/conv_onednn.cpp" \
    -I/usr/include/x86_64-linux-gnu/openblas-pthread -ldnnl -lopenblas -o "$bin"
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
if [[ ${1:-} != all ]]; then
  exec "$bin" "$@"
fi
out=${2:?usage: conv_onednn.sh all OUTDIR [rounds]}
rounds=${3:-3}
mkdir -p "$out"
for r in $(seq "$rounds"); do
  uptime >"$out/conv$r.load"
  "$bin" conv 1.0 >"$out/conv$r.out"
  uptime >>"$out/conv$r.load"
done
for r in $(seq "$rounds"); do
  for ct in unset Haswell; do
    uptime >"$out/sgemm-$ct-$r.load"
    if [[ $ct == unset ]]; then
      env -u OPENBLAS_CORETYPE "$bin" sgemm 0.5 >"$out/sgemm-$ct-$r.out"
    else
      OPENBLAS_CORETYPE=$ct "$bin" sgemm 0.5 >"$out/sgemm-$ct-$r.out"
    fi
    uptime >>"$out/sgemm-$ct-$r.load"
  done
done
for r in $(seq "$rounds"); do
  uptime >"$out/torch$r.load"
  /usr/bin/python3 "$here/conv_torch.py" --layers-from "$bin" --seconds 1.0 >"$out/torch$r.out"
  uptime >>"$out/torch$r.load"
done
python3 "$here/conv_onednn_summary.py" "$out" | tee "$out/summary.md"
