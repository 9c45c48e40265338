//===- LinalgToBlas.cpp - f32 linalg.matmul on memrefs to sgemm -----------===//
//
// Contractions go to a tuned library (docs/abi.md: autodist_rt_sgemm, backed
// by OpenBLAS). Transposes are read off the matmul's indexing maps.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_CONVERTLINALGTOBLAS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

constexpr StringLiteral kSgemmFn = "autodist_rt_sgemm";

/// Whether `map` reads a matrix as (x, y) (false) or transposed (true), for
/// the iteration dims (m, n, k); nullopt for any other access.
std::optional<bool> transposed(AffineMap map, unsigned row, unsigned col) {
  if (map.getNumResults() != 2 || !map.isProjectedPermutation())
    return std::nullopt;
  unsigned r = map.getDimPosition(0), c = map.getDimPosition(1);
  if (r == row && c == col)
    return false;
  if (r == col && c == row)
    return true;
  return std::nullopt;
}

/// A rank-2 f32 memref of fully dynamic shape and strides.
MemRefType stridedMatrixType(MLIRContext *ctx) {
  int64_t dyn = ShapedType::kDynamic;
  return MemRefType::get({dyn, dyn}, Float32Type::get(ctx),
                         StridedLayoutAttr::get(ctx, dyn, {dyn, dyn}));
}

func::FuncOp declareSgemm(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(kSgemmFn))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  MemRefType m = stridedMatrixType(b.getContext());
  auto f = func::FuncOp::create(
      b, module.getLoc(), kSgemmFn,
      b.getFunctionType({m, m, m, b.getI32Type(), b.getI32Type(),
                         b.getF32Type(), b.getF32Type()},
                        {}));
  f.setPrivate();
  f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return f;
}

/// Rewrites `op` to `C = op(A) op(B) + C` through sgemm; leaves matmuls it
/// cannot map (other element types, broadcasts, casts) to the loop lowering.
void rewriteMatmul(ModuleOp module, linalg::MatmulOp op) {
  if (!op.hasPureBufferSemantics())
    return;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<MemRefType>(v.getType());
    if (!t || !t.getElementType().isF32() || t.getRank() != 2)
      return;
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Iteration dims: d0 = m, d1 = n, d2 = k.
  std::optional<bool> tA = transposed(maps[0], 0, 2);
  std::optional<bool> tB = transposed(maps[1], 2, 1);
  std::optional<bool> tC = transposed(maps[2], 0, 1);
  if (!tA || !tB || !tC || *tC)
    return;
  IRRewriter b(op);
  Location loc = op.getLoc();
  MemRefType m = stridedMatrixType(b.getContext());
  SmallVector<Value> args;
  for (Value v : op->getOperands())
    args.push_back(memref::CastOp::create(b, loc, m, v));
  args.push_back(arith::ConstantIntOp::create(b, loc, *tA ? 1 : 0, 32));
  args.push_back(arith::ConstantIntOp::create(b, loc, *tB ? 1 : 0, 32));
  args.push_back(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)));
  args.push_back(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)));
  func::CallOp::create(b, loc, declareSgemm(module), args);
  b.eraseOp(op);
}

struct ConvertLinalgToBlasPass
    : public autodist::impl::ConvertLinalgToBlasBase<ConvertLinalgToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> ops;
    module.walk([&](linalg::MatmulOp op) { ops.push_back(op); });
    for (linalg::MatmulOp op : ops)
      rewriteMatmul(module, op);
  }
};

} // namespace
