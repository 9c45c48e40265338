//===- NNConvToLibrary.cpp - a target's convolution library --------------===//
//
// A target's library choice for convolutions (docs/design.md, "Library
// choice per target"): each group-1 nn.conv, nn.conv_input_grad and
// nn.conv_weight_grad that `backend` selects becomes one call into the
// runtime's convolutions (docs/abi.md: oneDNN on the CPU, cuDNN on the
// cuda target, behind the same ABI); the others are left to
// convert-nn-to-linalg (im2col and one sgemm, or the grouped generics).
// It runs on nn's convolutions, just before convert-nn-to-linalg, because
// linalg has no named op for either gradient (nor a padded forward) that a
// pattern after linalg could match back; contractions are matched after
// linalg (convert-linalg-to-blas).
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "autodist/runtime/AbiNames.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_CONVERTNNCONVTOLIBRARY
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Whether this build's runtime has the oneDNN convolutions.
constexpr bool kHaveOnednn =
#ifdef AUTODIST_HAVE_ONEDNN
    true;
#else
    false;
#endif

/// Output positions per sample from which `auto` picks oneDNN: below it,
/// reordering the weights on every call costs more than oneDNN's kernels
/// save (bench/results/onednn.md, ResNet-18 layers 3 and 4 at 2x2 and 1x1).
constexpr int64_t kMinOutputPositions = 16;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// `buffer` as the memref of dynamic shape the runtime's C ABI takes.
Value dynamicBuffer(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> dyn(type.getRank(), ShapedType::kDynamic);
  return memref::CastOp::create(
      b, loc, MemRefType::get(dyn, type.getElementType()), buffer);
}

/// One call `fn(ins..., out, strides, pads, dilations)` (docs/abi.md: the
/// runtime's oneDNN convolutions, i32 geometry) on the buffers of the
/// tensors `ins`, writing a fresh buffer of `type` whose batch is that of
/// `like`; returns that buffer as a tensor. The call survives bufferization
/// as it is (to_buffer / to_tensor, as the dist collectives).
Value onednnCall(OpBuilder &b, Operation *op, StringRef fn, ValueRange ins,
                 RankedTensorType type, Value like, ArrayRef<int64_t> s,
                 ArrayRef<int64_t> p, ArrayRef<int64_t> d) {
  Location loc = op->getLoc();
  SmallVector<Value> args;
  for (Value v : ins) {
    auto t = typeOf(v);
    Value buf = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(t.getShape(), t.getElementType()), v);
    args.push_back(dynamicBuffer(b, loc, buf));
  }
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  auto outType = MemRefType::get(type.getShape(), type.getElementType());
  Value out = memref::AllocOp::create(b, loc, outType, dyn);
  args.push_back(dynamicBuffer(b, loc, out));
  for (ArrayRef<int64_t> attr : {s, p, d})
    for (int64_t v : attr)
      args.push_back(arith::ConstantIntOp::create(b, loc, v, 32));
  auto module = op->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(fn);
  if (!callee) {
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    callee = func::FuncOp::create(
        mb, loc, fn, mb.getFunctionType(ValueRange(args).getTypes(), {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    mb.getUnitAttr());
  }
  func::CallOp::create(b, loc, callee, args);
  return bufferization::ToTensorOp::create(b, loc, type, out,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

/// The call replacing a convolution (or one of its gradients), or null for
/// an op that is not one.
Value lowerToOnednn(OpBuilder &b, Operation *op) {
  if (auto conv = dyn_cast<nn::ConvOp>(op)) {
    SmallVector<Value> ins = {conv.getInput(), conv.getWeight()};
    if (conv.getBias())
      ins.push_back(conv.getBias());
    return onednnCall(b, op,
                      conv.getBias() ? abi::kConv2dFwdBias : abi::kConv2dFwd,
                      ins, conv.getType(), conv.getInput(), conv.getStrides(),
                      conv.getPads(), conv.getDilations());
  }
  if (auto dx = dyn_cast<nn::ConvInputGradOp>(op))
    return onednnCall(b, op, abi::kConv2dBwdData,
                      {dx.getGrad(), dx.getWeight()}, dx.getType(),
                      dx.getGrad(), dx.getStrides(), dx.getPads(),
                      dx.getDilations());
  if (auto dw = dyn_cast<nn::ConvWeightGradOp>(op))
    return onednnCall(b, op, abi::kConv2dBwdWeights,
                      {dw.getGrad(), dw.getInput()}, dw.getType(), dw.getGrad(),
                      dw.getStrides(), dw.getPads(), dw.getDilations());
  return {};
}

/// The group and the output (or output gradient, `[N, M, OH, OW]`) of a
/// convolution op, by which `backend` chooses.
std::optional<std::pair<int64_t, Value>> convolution(Operation *op) {
  // 16-bit operands (--precision) stay on im2col and the 16-bit GEMM.
  if (op->getNumOperands() > 0 &&
      !getElementTypeOrSelf(op->getOperand(0).getType()).isF32())
    return std::nullopt;
  if (auto conv = dyn_cast<nn::ConvOp>(op))
    return std::make_pair(conv.getGroup(), conv.getResult());
  if (auto dx = dyn_cast<nn::ConvInputGradOp>(op))
    return std::make_pair(dx.getGroup(), dx.getGrad());
  if (auto dw = dyn_cast<nn::ConvWeightGradOp>(op))
    return std::make_pair(dw.getGroup(), dw.getGrad());
  return std::nullopt;
}

struct ConvertNNConvToLibraryPass
    : public autodist::impl::ConvertNNConvToLibraryBase<
          ConvertNNConvToLibraryPass> {
  using ConvertNNConvToLibraryBase::ConvertNNConvToLibraryBase;

  void runOnOperation() override {
    if (library != "onednn" && library != "cudnn") {
      getOperation().emitError("unknown convolution library '")
          << library << "' (expected onednn or cudnn)";
      return signalPassFailure();
    }
    if (backend != "auto" && backend != "im2col" && backend != "onednn") {
      getOperation().emitError("unknown convolution backend '")
          << backend << "' (expected auto, im2col or onednn)";
      return signalPassFailure();
    }
    if (library == "onednn" && backend == "onednn" && !kHaveOnednn) {
      getOperation().emitError("this build has no oneDNN (install "
                               "libdnnl-dev and rebuild)");
      return signalPassFailure();
    }
    SmallVector<Operation *> chosen;
    getOperation().walk([&](Operation *op) {
      if (std::optional<std::pair<int64_t, Value>> c = convolution(op))
        if (choosesOnednn(c->first, c->second))
          chosen.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : chosen) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, lowerToOnednn(rewriter, op));
    }
  }

  /// Whether the convolution of `group` whose output (gradient) is `out`
  /// goes to oneDNN: group 1 only, always with `onednn`, and with `auto`
  /// where the output has at least kMinOutputPositions per sample.
  bool choosesOnednn(int64_t group, Value out) const {
    if (group != 1 || backend == "im2col")
      return false;
    // cuDNN's algorithms (implicit GEMM, Winograd, FFT) beat im2col and
    // one GEMM at every size; the cuda runtime always has it.
    if (library == "cudnn")
      return true;
    if (!kHaveOnednn)
      return false;
    ArrayRef<int64_t> shape = typeOf(out).getShape();
    return backend == "onednn" || shape[2] * shape[3] >= kMinOutputPositions;
  }
};

} // namespace
