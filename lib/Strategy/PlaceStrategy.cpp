//===- PlaceStrategy.cpp - dist-place: choose the open servers ------------===//

#include "autodist/Passes.h"
#include "autodist/Strategy/Placement.h"
#include "dist/DistDialect.h"

namespace autodist {
#define GEN_PASS_DEF_PLACESTRATEGY
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

struct PlaceStrategyPass
    : public autodist::impl::PlaceStrategyBase<PlaceStrategyPass> {
  using PlaceStrategyBase::PlaceStrategyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto strategy = module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
    if (!strategy) {
      module.emitError("no dist.strategy attribute (run dist-strategy first)");
      return signalPassFailure();
    }
    std::optional<Placement> policy = parsePlacement(placement);
    if (!policy) {
      module.emitError("dist-place: unknown placement '")
          << placement << "' (supported: bytes, bandwidth)";
      return signalPassFailure();
    }
    func::FuncOp func = distributedFunction(module);
    if (!func) {
      module.emitError("no @train_step or @forward to place");
      return signalPassFailure();
    }
    auto cluster = module->getAttrOfType<dist::ClusterAttr>("dist.cluster");
    if (!cluster)
      cluster = dist::ClusterAttr::getLocal(&getContext());
    FailureOr<dist::StrategyAttr> placed = placeServers(
        strategy, variables(func), cluster, *policy, module.getLoc());
    if (failed(placed))
      return signalPassFailure();
    module->setAttr("dist.strategy", *placed);
  }
};

} // namespace
