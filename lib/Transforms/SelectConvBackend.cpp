//===- SelectConvBackend.cpp - im2col+sgemm or oneDNN per convolution -----===//
//
// Marks the group-1 convolutions (forward and both gradients) that
// convert-nn-to-linalg lowers to the runtime's oneDNN convolutions (the ops'
// `onednn` attribute); the others keep the im2col + sgemm lowering.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "nn/NNOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace autodist {
#define GEN_PASS_DEF_SELECTCONVBACKEND
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

/// Whether `auto` picks oneDNN for a convolution whose output (or output
/// gradient) is `out` ([N, M, OH, OW]).
bool onednnWins(Value out) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(out.getType()).getShape();
  return shape[2] * shape[3] >= kMinOutputPositions;
}

struct SelectConvBackendPass
    : public autodist::impl::SelectConvBackendBase<SelectConvBackendPass> {
  using SelectConvBackendBase::SelectConvBackendBase;

  void runOnOperation() override {
    if (backend != "auto" && backend != "im2col" && backend != "onednn") {
      getOperation().emitError("unknown convolution backend '")
          << backend << "' (expected auto, im2col or onednn)";
      return signalPassFailure();
    }
    if (backend == "onednn" && !kHaveOnednn) {
      getOperation().emitError("this build has no oneDNN (install "
                               "libdnnl-dev and rebuild)");
      return signalPassFailure();
    }
    getOperation().walk([&](Operation *op) {
      if (auto conv = dyn_cast<nn::ConvOp>(op))
        mark(op, conv.getGroup(), conv.getResult());
      else if (auto dx = dyn_cast<nn::ConvInputGradOp>(op))
        mark(op, dx.getGroup(), dx.getGrad());
      else if (auto dw = dyn_cast<nn::ConvWeightGradOp>(op))
        mark(op, dw.getGroup(), dw.getGrad());
    });
  }

  /// Sets or clears `onednn` on the convolution `op` of `group` whose output
  /// (gradient) is `out`.
  void mark(Operation *op, int64_t group, Value out) {
    bool onednn =
        group == 1 && kHaveOnednn &&
        (backend == "onednn" || (backend == "auto" && onednnWins(out)));
    if (onednn)
      op->setAttr("onednn", UnitAttr::get(op->getContext()));
    else
      op->removeAttr("onednn");
  }
};

} // namespace
