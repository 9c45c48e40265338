//===- ApplyStrategy.cpp - attach a strategy from a named builder ---------===//
//
// Strategy builders after AutoDist's (autodist/strategy/*.py): each maps the
// trainable variables to node configs. This slice has AllReduce.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {
#define GEN_PASS_DEF_APPLYSTRATEGY
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The ONNX names of the parameters of `func`, in argument order.
SmallVector<StringRef> parameterNames(func::FuncOp func) {
  SmallVector<StringRef> names;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto n = func.getArgAttrOfType<StringAttr>(i, "nn.param"))
      names.push_back(n.getValue());
  return names;
}

/// AutoDist's AllReduce builder: every variable all-reduced, fused into
/// groups of `chunkSize` consecutive variables.
dist::StrategyAttr buildAllReduce(MLIRContext *ctx, ArrayRef<StringRef> params,
                                  int64_t chunkSize) {
  SmallVector<Attribute> nodes;
  for (auto [i, name] : llvm::enumerate(params)) {
    auto sync = dist::AllReduceSynchronizerAttr::get(
        ctx, dist::AllReduceSpec::Auto, dist::Compressor::None,
        static_cast<int64_t>(i) / chunkSize);
    nodes.push_back(dist::NodeConfigAttr::get(ctx, name, sync));
  }
  return dist::StrategyAttr::get(ctx, "allreduce", ArrayAttr::get(ctx, nodes));
}

struct ApplyStrategyPass
    : public autodist::impl::ApplyStrategyBase<ApplyStrategyPass> {
  using ApplyStrategyBase::ApplyStrategyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto step = module.lookupSymbol<func::FuncOp>("train_step");
    if (!step) {
      module.emitError("no @train_step to distribute (run "
                       "autodist-build-train-step first)");
      return signalPassFailure();
    }
    if (chunkSize < 1) {
      module.emitError("dist-strategy chunk-size must be >= 1, got ")
          << static_cast<int64_t>(chunkSize);
      return signalPassFailure();
    }
    if (builder != "allreduce") {
      module.emitError("unknown strategy builder '")
          << builder << "' (supported: allreduce)";
      return signalPassFailure();
    }
    module->setAttr(
        "dist.strategy",
        buildAllReduce(&getContext(), parameterNames(step), chunkSize));
  }
};

} // namespace
