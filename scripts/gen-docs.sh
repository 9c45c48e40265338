#!/usr/bin/env bash
# Regenerates docs/reference/ (dialect and pass references) from the ODS
# files through the build's mlir-doc target.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build mlir-doc >/dev/null
mkdir -p docs/reference
cp build/docs/nn/NNDialect.md docs/reference/nn-dialect.md
cp build/docs/dist/DistDialect.md docs/reference/dist-dialect.md
cp build/docs/AutodistPasses.md docs/reference/passes.md
echo "docs/reference updated"
