//===- DistToRuntime.cpp - dist collectives to runtime calls --------------===//
//
// A bucket all-reduce becomes one contiguous buffer, one in-place call into
// the runtime (`_mlir_ciface_autodist_rt_allreduce_f32`, docs/abi.md) and
// slices back to the operand shapes.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_CONVERTDISTTORUNTIME
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

constexpr StringLiteral kAllReduceFn = "autodist_rt_allreduce_f32";

/// Declares `name(argTypes)` with a C interface, once per module.
func::FuncOp declareRuntimeFn(ModuleOp module, StringRef name,
                              TypeRange argTypes) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                b.getFunctionType(argTypes, {}));
  f.setPrivate();
  f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return f;
}

/// `v` (static shape) as a 1-D tensor.
Value flatten(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
  if (t.getRank() == 1)
    return v;
  if (t.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flat, v,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all(t.getRank());
  std::iota(all.begin(), all.end(), 0);
  return tensor::CollapseShapeOp::create(b, loc, flat, v,
                                         ArrayRef<ReassociationIndices>{all});
}

/// The inverse of `flatten`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType t) {
  if (t.getRank() == 1)
    return flat;
  if (t.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, t, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all(t.getRank());
  std::iota(all.begin(), all.end(), 0);
  return tensor::ExpandShapeOp::create(b, loc, t, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

LogicalResult lowerAllReduce(ModuleOp module, dist::AllReduceOp op) {
  for (Value v : op.getInputs())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op.emitOpError("operand of dynamic shape ")
             << v.getType() << " cannot be bucketed";
  IRRewriter b(op);
  Location loc = op.getLoc();
  SmallVector<Value> flats;
  for (Value v : op.getInputs())
    flats.push_back(flatten(b, loc, v));
  Value bucket = flats.size() == 1
                     ? flats.front()
                     : tensor::ConcatOp::create(b, loc, 0, flats).getResult();
  auto bucketType = cast<RankedTensorType>(bucket.getType());
  auto bufType = MemRefType::get(bucketType.getShape(), b.getF32Type());
  auto dynType = MemRefType::get({ShapedType::kDynamic}, b.getF32Type());

  // Reduce a private copy in place: the bucket's own buffer may be shared.
  Value src = bufferization::ToBufferOp::create(b, loc, bufType, bucket);
  Value buf = memref::AllocOp::create(b, loc, bufType);
  memref::CopyOp::create(b, loc, src, buf);
  Value kind = arith::ConstantIntOp::create(
      b, loc, static_cast<int64_t>(op.getKind()), 32);
  func::FuncOp fn =
      declareRuntimeFn(module, kAllReduceFn, {dynType, b.getI32Type()});
  Value dyn = memref::CastOp::create(b, loc, dynType, buf);
  func::CallOp::create(b, loc, fn, ValueRange{dyn, kind});
  Value reduced = bufferization::ToTensorOp::create(b, loc, bucketType, buf,
                                                    /*restrict=*/true,
                                                    /*writable=*/true);

  SmallVector<Value> results;
  int64_t offset = 0;
  for (Value v : op.getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    Value slice = reduced;
    if (flats.size() > 1)
      slice = tensor::ExtractSliceOp::create(
          b, loc, reduced, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(t.getNumElements())},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    results.push_back(unflatten(b, loc, slice, t));
    offset += t.getNumElements();
  }
  b.replaceOp(op, results);
  return success();
}

struct ConvertDistToRuntimePass
    : public autodist::impl::ConvertDistToRuntimeBase<
          ConvertDistToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dist::AllReduceOp> ops;
    module.walk([&](dist::AllReduceOp op) { ops.push_back(op); });
    for (dist::AllReduceOp op : ops)
      if (failed(lowerAllReduce(module, op)))
        return signalPassFailure();
  }
};

} // namespace
