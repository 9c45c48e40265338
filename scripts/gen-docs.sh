#!/usr/bin/env bash
# Regenerates docs/reference/ (dialect and pass references) from the ODS
# files through the build's mlir-doc target, and the operator table of
# docs/operators.md from the importer's registry (lib/Import/OpRegistry.h).
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build mlir-doc >/dev/null
mkdir -p docs/reference
cp build/docs/nn/NNDialect.md docs/reference/nn-dialect.md
cp build/docs/dist/DistDialect.md docs/reference/dist-dialect.md
cp build/docs/AutodistPasses.md docs/reference/passes.md
echo "docs/reference updated"
# The operator table of docs/operators.md, from the importer's registry.
ninja -C build autodist-translate >/dev/null
TABLE=$(mktemp)
trap 'rm -f "$TABLE"' EXIT
build/bin/autodist-translate --print-onnx-operators >"$TABLE"
python3 scripts/operator_table.py --write docs/operators.md "$TABLE"
echo "docs/operators.md operator table updated"
