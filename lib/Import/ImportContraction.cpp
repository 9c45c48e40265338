//===- ImportContraction.cpp - Gemm and MatMul ----------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

using namespace mlir;

namespace autodist::detail {
namespace {

FailureOr<Value> importGemm(NodeImporter &n) {
  FailureOr<SmallVector<Value>> ops =
      n.operands(/*required=*/2, /*optional=*/1);
  if (failed(ops))
    return failure();
  OpBuilder &b = n.b;
  return n.build<nn::GemmOp>(
      *ops, {b.getNamedAttr("alpha", b.getF32FloatAttr(n.attrFloat("alpha"))),
             b.getNamedAttr("beta", b.getF32FloatAttr(n.attrFloat("beta"))),
             b.getNamedAttr("transA", b.getBoolAttr(n.attrInt("transA"))),
             b.getNamedAttr("transB", b.getBoolAttr(n.attrInt("transB")))});
}

} // namespace

void registerContractionOps(OpRegistry &r) {
  r.add({"Gemm",
         7,
         {{"alpha", 1.0f}, {"beta", 1.0f}, {"transA", 0}, {"transB", 0}},
         importGemm,
         {},
         {"", "`nn.gemm`", "A, B, C (C summed to its broadcast shape)",
          "`alpha` (non-zero), `beta`, `transA`, `transB`; C broadcasts "
          "unidirectionally"}});
  r.add({"MatMul",
         7,
         {},
         importBinary<nn::MatMulOp>,
         {},
         {"", "`nn.matmul`",
          "both operands, every form: 1-D operands promoted, summed over "
          "broadcast batch dims; N-D x 2-D: the weight gradient is one gemm on "
          "the collapsed rows",
          "numpy matmul: N-D operands, broadcast batch dims, 1-D operands. 2-D "
          "x 2-D lowers to `linalg.matmul` (BLAS), N-D x 2-D to one "
          "`linalg.matmul` on collapsed batch dims (needs at most one dynamic "
          "dim among the lhs leading dims), everything else to one "
          "`linalg.contract` (one sgemm per batch point after bufferization; a "
          "`linalg.generic` loop nest when an operand broadcasts a size-1 "
          "batch dim)"}});
}

} // namespace autodist::detail
