//===- ApplyStrategy.cpp - attach a strategy from a builder or a file -----===//

#include "autodist/Passes.h"
#include "autodist/Strategy/Builders.h"
#include "autodist/Strategy/ResourceSpec.h"
#include "autodist/Strategy/StrategyFile.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {
#define GEN_PASS_DEF_APPLYSTRATEGY
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The function whose parameters are distributed: @train_step, else
/// @forward.
func::FuncOp distributedFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>("train_step"))
    return f;
  return module.lookupSymbol<func::FuncOp>("forward");
}

/// Whether some use of `param` reads it sparsely (an embedding lookup), as
/// the op itself says (SparseAccessOpInterface).
bool hasSparseUse(Value param) {
  for (OpOperand &use : param.getUses())
    if (auto sparse = dyn_cast<nn::SparseAccessOpInterface>(use.getOwner()))
      if (sparse.isSparseOperand(use.getOperandNumber()))
        return true;
  return false;
}

/// The parameters of `func` in argument order.
SmallVector<Variable> variables(func::FuncOp func) {
  SmallVector<Variable> vars;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto n = func.getArgAttrOfType<StringAttr>(i, "nn.param"))
      vars.push_back({n.getValue().str(),
                      cast<RankedTensorType>(func.getArgument(i).getType()),
                      hasSparseUse(func.getArgument(i))});
  return vars;
}

struct ApplyStrategyPass
    : public autodist::impl::ApplyStrategyBase<ApplyStrategyPass> {
  using ApplyStrategyBase::ApplyStrategyBase;

  void runOnOperation() override;

private:
  FailureOr<BuilderOptions> builderOptions(ModuleOp module);
  FailureOr<dist::ClusterAttr> cluster(ModuleOp module);
};

FailureOr<BuilderOptions> ApplyStrategyPass::builderOptions(ModuleOp module) {
  BuilderOptions o;
  o.chunkSize = chunkSize;
  if (!spec.empty()) {
    auto s = dist::symbolizeAllReduceSpec(spec);
    if (!s)
      return module.emitError("dist-strategy: unknown spec '")
             << spec << "' (supported: auto, nccl, ring)";
    o.spec = *s;
  }
  auto c = dist::symbolizeCompressor(compressor);
  if (!c)
    return module.emitError("dist-strategy: unknown compressor '")
           << compressor << "' (supported: none, fp16, fp16_ef, powersgd)";
  o.compressor = *c;
  o.powersgdRank = powersgdRank;
  o.localProxy = localProxy;
  o.sync = sync;
  o.staleness = staleness;
  o.seed = seed;
  std::optional<Placement> p = parsePlacement(placement);
  if (!p)
    return module.emitError("dist-strategy: unknown placement '")
           << placement << "' (supported: bytes, bandwidth)";
  o.placement = *p;
  return o;
}

FailureOr<dist::ClusterAttr> ApplyStrategyPass::cluster(ModuleOp module) {
  if (!clusterFile.empty()) {
    std::string error;
    FailureOr<dist::ClusterAttr> c =
        readResourceSpec(&getContext(), clusterFile, error);
    if (failed(c))
      return module.emitError(error);
    module->setAttr("dist.cluster", *c);
    return c;
  }
  if (auto c = module->getAttrOfType<dist::ClusterAttr>("dist.cluster"))
    return c;
  return dist::ClusterAttr::getLocal(&getContext());
}

void ApplyStrategyPass::runOnOperation() {
  ModuleOp module = getOperation();
  func::FuncOp func = distributedFunction(module);
  if (!func) {
    module.emitError("no @train_step or @forward to distribute");
    return signalPassFailure();
  }
  FailureOr<dist::ClusterAttr> c = cluster(module);
  if (failed(c))
    return signalPassFailure();
  std::string error;
  FailureOr<dist::StrategyAttr> strategy = failure();
  if (!strategyFile.empty()) {
    strategy = readStrategyFile(&getContext(), strategyFile, error);
  } else {
    FailureOr<BuilderOptions> o = builderOptions(module);
    if (failed(o))
      return signalPassFailure();
    strategy = buildStrategy(builder, variables(func), *c, *o, error);
  }
  if (failed(strategy)) {
    module.emitError(error);
    return signalPassFailure();
  }
  module->setAttr("dist.strategy", *strategy);
  // The strategy must fit the program and the cluster (a file may not).
  if (failed(strategy->getDialect().verifyOperationAttribute(
          module,
          NamedAttribute(StringAttr::get(&getContext(), "dist.strategy"),
                         *strategy))))
    return signalPassFailure();
}

} // namespace
