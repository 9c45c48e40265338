//===- CompressorState.cpp - compressor state as train-step state ---------===//
//
// The compressors with error feedback (fp16_ef, PowerSGD) carry values from
// one step to the next on every rank. This pass makes that state explicit:
// arguments and results of @train_step, threaded through the all-reduce's
// `state` operands and new-state results, so that the manifest names it and
// the runtime allocates, passes and checkpoints it like optimizer state
// (docs/design.md, "State that crosses steps").
//
//===----------------------------------------------------------------------===//

#include "StepState.h"
#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {
#define GEN_PASS_DEF_COMPRESSORSTATE
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// One state tensor of a compressed all-reduce: its name, size and how the
/// runtime starts it (a seed for PowerSGD's Q, none for zeros).
struct StateEntry {
  std::string name;
  int64_t size;
  std::optional<int64_t> qSeed;
};

/// The state `ar` keeps (its sizes are the op's), named from its first slot
/// `slot`; advances `slot` by the slots it takes (the runtime's seeds count
/// them so: one per fp16_ef bucket, two per PowerSGD matrix, Q's seed from
/// the second).
SmallVector<StateEntry> stateOf(dist::AllReduceOp ar, int64_t &slot) {
  std::string base = dist::stringifyCompressor(ar.getCompressor()).str() + "." +
                     std::to_string(slot);
  SmallVector<int64_t> sizes = ar.getStateSizes();
  SmallVector<StateEntry> out = {{base + "/residual", sizes[0], std::nullopt}};
  if (sizes.size() == 2)
    out.push_back({base + "/q", sizes[1], 0x5eed0000 + slot + 1});
  slot += sizes.size();
  return out;
}

/// Checks that `ar` can carry state: a static bucket, and for PowerSGD one
/// matrix (dist-split-powersgd's form).
LogicalResult checkBucket(dist::AllReduceOp ar) {
  for (Type t : ar.getInputs().getTypes())
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return ar.emitOpError("a compressed bucket with error feedback must "
                            "have static shapes, got ")
             << t;
  if (ar.getCompressor() != dist::Compressor::PowerSGD)
    return success();
  auto t = cast<RankedTensorType>(ar.getInputs().front().getType());
  if (ar.getInputs().size() != 1 || t.getRank() < 2)
    return ar.emitOpError("a powersgd all-reduce must hold one matrix (run "
                          "dist-split-powersgd first)");
  return success();
}

class StateThreader {
public:
  explicit StateThreader(func::FuncOp step) : step(step), b(step) {}

  /// Replaces `ar` by the same all-reduce with `entries` as state operands,
  /// each a new argument of the step, and its new values new results.
  void thread(dist::AllReduceOp ar, ArrayRef<StateEntry> entries);

private:
  BlockArgument addArgument(const StateEntry &e);

  func::FuncOp step;
  OpBuilder b;
};

BlockArgument StateThreader::addArgument(const StateEntry &e) {
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("nn.state", b.getStringAttr(e.name)),
      b.getNamedAttr("dist.per_rank", b.getUnitAttr())};
  if (e.qSeed) {
    attrs.push_back(b.getNamedAttr("dist.init", b.getStringAttr("powersgd_q")));
    attrs.push_back(
        b.getNamedAttr("dist.init_seed", b.getI64IntegerAttr(*e.qSeed)));
  }
  return addStepStateArgument(step,
                              RankedTensorType::get({e.size}, b.getF32Type()),
                              b.getDictionaryAttr(attrs));
}

void StateThreader::thread(dist::AllReduceOp ar, ArrayRef<StateEntry> entries) {
  SmallVector<Value> state;
  for (const StateEntry &e : entries)
    state.push_back(addArgument(e));
  b.setInsertionPoint(ar);
  auto withState = dist::AllReduceOp::create(
      b, ar.getLoc(), ar.getInputs(), state, ar.getKind(), ar.getGroup(),
      ar.getCompressor(), ar.getPowersgdRank());
  withState->setDiscardableAttrs(ar->getDiscardableAttrDictionary());
  ar.replaceAllUsesWith(withState.getReduced());
  ar.erase();
  for (auto [e, v] : llvm::zip(entries, withState.getNewState()))
    addStepStateResult(step, b.getStringAttr(e.name), v);
}

struct CompressorStatePass
    : public autodist::impl::CompressorStateBase<CompressorStatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dist::AllReduceOp> compressed;
    module.walk([&](dist::AllReduceOp ar) {
      if (ar.getState().empty() &&
          (ar.getCompressor() == dist::Compressor::FP16EF ||
           ar.getCompressor() == dist::Compressor::PowerSGD))
        compressed.push_back(ar);
    });
    if (compressed.empty())
      return;
    // The runtime's seeds count slots over the whole program, in the order
    // convert-dist-to-runtime lowers the collectives (a walk of the module).
    int64_t slot = 0;
    for (dist::AllReduceOp ar : compressed) {
      auto step = dyn_cast<func::FuncOp>(ar->getParentOp());
      if (!step || step.getSymName() != "train_step") {
        ar.emitOpError("keeps compressor state across steps, so it must be "
                       "in the body of @train_step");
        return signalPassFailure();
      }
      if (failed(checkBucket(ar)))
        return signalPassFailure();
      StateThreader(step).thread(ar, stateOf(ar, slot));
    }
  }
};

} // namespace
