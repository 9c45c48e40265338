//===- DeallocateBuffers.cpp - free each buffer after its last use --------===//
//
// Upstream's ownership-based deallocation frees all the buffers of a block
// at its end, in one bufferization.dealloc whose simplification compares
// every pair of them. A training step is one block with thousands of
// buffers: its peak memory would be all of them at once, and the
// simplification grows quadratically with the model. In straight-line
// functions the lifetime of a buffer is simply the span up to the last use
// of it or of a view of it, so the dealloc goes right there.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"

namespace autodist {
#define GEN_PASS_DEF_DEALLOCATEBUFFERS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// Whether `op` makes its memref results views of `source` (a view-like op
/// or a cast of it).
bool isViewOf(Operation *op, Value source) {
  if (auto view = dyn_cast<ViewLikeOpInterface>(op))
    return view.getViewSource() == source;
  return isa<CastOpInterface>(op) && op->getNumOperands() == 1;
}

/// Whether `op` can use a buffer without creating an alias that outlives
/// it: it yields no memrefs and does not pass its operands out of a region.
bool usesWithoutAliasing(Operation *op) {
  if (op->hasTrait<OpTrait::ReturnLike>() ||
      isa<RegionBranchTerminatorOpInterface>(op))
    return false;
  return llvm::none_of(op->getResultTypes(), llvm::IsaPred<BaseMemRefType>);
}

/// The values a use of a buffer by `use`'s owner makes aliases of it when
/// the owner is an `scf.for` carrying it, or the `scf.yield` of one: the
/// iteration argument and the loop result it flows to.
SmallVector<Value> loopCarriedAliases(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto loop = dyn_cast<scf::ForOp>(user)) {
    if (OpResult result = loop.getTiedLoopResult(&use))
      return {loop.getTiedLoopRegionIterArg(&use), result};
    return {};
  }
  if (auto loop = dyn_cast<scf::ForOp>(user->getParentOp());
      loop && isa<scf::YieldOp>(user)) {
    unsigned i = use.getOperandNumber();
    return {loop.getRegionIterArgs()[i], loop.getResult(i)};
  }
  return {};
}

/// The op of `block` after which nothing uses `alloc` or an alias of it (a
/// view, a cast, a loop-carried value), or failure if an alias escapes
/// where this cannot follow it.
FailureOr<Operation *> lastUseInBlock(memref::AllocOp alloc, Block &block) {
  Operation *last = alloc;
  SmallVector<Value> worklist = {alloc.getResult()};
  llvm::SmallPtrSet<Value, 8> seen = {alloc.getResult()};
  auto follow = [&](ValueRange aliases) {
    for (Value a : aliases)
      if (seen.insert(a).second)
        worklist.push_back(a);
  };
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      SmallVector<Value> carried = loopCarriedAliases(use);
      if (!carried.empty())
        follow(carried);
      else if (isViewOf(user, v))
        follow(user->getResults());
      else if (!usesWithoutAliasing(user))
        return failure();
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (!inBlock)
        return failure();
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

/// Where each buffer of `func` is freed, or failure if `func` is not a
/// straight-line function whose buffers this can follow.
FailureOr<SmallVector<std::pair<memref::AllocOp, Operation *>>>
planDeallocs(func::FuncOp func) {
  SmallVector<std::pair<memref::AllocOp, Operation *>> plan;
  if (func.isExternal())
    return plan;
  if (!func.getBody().hasOneBlock()) {
    return failure();
  }
  Block &body = func.getBody().front();
  bool ok = true;
  func.walk([&](Operation *op) {
    if (isa<memref::DeallocOp, memref::ReallocOp>(op))
      ok = false;
    else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      FailureOr<Operation *> last = failure();
      if (alloc->getBlock() == &body)
        last = lastUseInBlock(alloc, body);
      if (failed(last))
        ok = false;
      else
        plan.emplace_back(alloc, *last);
    }
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (!ok)
    return failure();
  return plan;
}

struct DeallocateBuffersPass
    : public autodist::impl::DeallocateBuffersBase<DeallocateBuffersPass> {
  void runOnOperation() override {
    SmallVector<std::pair<memref::AllocOp, Operation *>> plan;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      auto funcPlan = planDeallocs(func);
      if (failed(funcPlan))
        return runUpstreamPipeline();
      llvm::append_range(plan, *funcPlan);
    }
    for (auto [alloc, last] : plan) {
      OpBuilder b(last->getContext());
      b.setInsertionPointAfter(last);
      memref::DeallocOp::create(b, alloc.getLoc(), alloc.getResult());
    }
  }

  /// The general case: ownership-based deallocation, as
  /// `buffer-deallocation-pipeline` does it.
  void runUpstreamPipeline() {
    OpPassManager pm("builtin.module");
    bufferization::buildBufferDeallocationPipeline(pm);
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
