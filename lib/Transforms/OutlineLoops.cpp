//===- OutlineLoops.cpp - one function per top-level loop nest ------------===//
//
// After linalg is lowered to loops, a training step is one function holding
// thousands of loop nests. LLVM's loop passes (IndVarSimplify's scalar
// evolution above all) grow superlinearly with the loops of one function:
// a 6-block GPT spent 43 of 53 s of `opt -O3` there (bench/README.md).
// Each top-level loop nest becomes a private, never-inlined function, so
// every function LLVM analyzes stays small and compile time grows linearly
// with the model. Constants are cloned into the nests and static offsets of
// the memrefs they take are made dynamic, so that the nests of equal layers
// are equal functions, which `duplicate-function-elimination` then merges:
// LLVM compiles each kind of nest once, however many layers use it.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_OUTLINELOOPS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Clones the constants that `region` uses from above into its entry block,
/// so the outlined function holds them (loop bounds stay visible to LLVM
/// and equal nests stay equal) instead of taking them as arguments.
void sinkConstants(RewriterBase &rewriter, Region &region) {
  // The region's own operands are rewritten (not the constants' uses: a
  // constant like %c0 has thousands of uses in a training step).
  DenseMap<Value, Value> clones;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&region.front());
  region.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      Operation *def = v.getDefiningOp();
      if (!def || region.isAncestor(def->getParentRegion()) ||
          !matchPattern(def, m_Constant()))
        continue;
      Value &copy = clones[v];
      if (!copy)
        copy = rewriter.clone(*def)->getResult(0);
      rewriter.modifyOpInPlace(op, [&] { operand.set(copy); });
    }
  });
}

/// `type` with a dynamic offset if it has a strided layout with a static
/// one, else null.
MemRefType withDynamicOffset(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return {};
  auto layout = dyn_cast<StridedLayoutAttr>(memref.getLayout());
  if (!layout || ShapedType::isDynamic(layout.getOffset()))
    return {};
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         StridedLayoutAttr::get(type.getContext(),
                                                ShapedType::kDynamic,
                                                layout.getStrides()),
                         memref.getMemorySpace());
}

/// Whether every use of `v`, through subviews, is a load, a store or a
/// subview, whose types do not depend on the offset of `v` (a subview's
/// result offset does, and is made dynamic along with it).
bool onlyAddressedThrough(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::LoadOp>(user) ||
        (isa<memref::StoreOp>(user) && use.getOperandNumber() == 1))
      continue;
    auto subview = dyn_cast<memref::SubViewOp>(user);
    if (!subview || !withDynamicOffset(subview.getType()) ||
        !onlyAddressedThrough(subview.getResult()))
      return false;
  }
  return true;
}

/// Gives `v` (and the subviews of it) a dynamic offset.
void makeOffsetDynamic(Value v) {
  v.setType(withDynamicOffset(v.getType()));
  for (Operation *user : v.getUsers())
    if (auto subview = dyn_cast<memref::SubViewOp>(user))
      makeOffsetDynamic(subview.getResult());
}

/// Makes the static offsets of the strided memref arguments of `outlined`
/// dynamic, casting at `call`: a nest over a slice at offset 64 of a buffer
/// and the same nest at offset 4096 become the same function.
void generalizeOffsets(RewriterBase &rewriter, func::FuncOp outlined,
                       func::CallOp call) {
  Block &entry = outlined.getBody().front();
  bool changed = false;
  for (BlockArgument arg : entry.getArguments()) {
    MemRefType dynamic = withDynamicOffset(arg.getType());
    if (!dynamic || !onlyAddressedThrough(arg))
      continue;
    makeOffsetDynamic(arg);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(call);
    Value operand = call.getOperand(arg.getArgNumber());
    call.setOperand(
        arg.getArgNumber(),
        memref::CastOp::create(rewriter, call.getLoc(), dynamic, operand));
    changed = true;
  }
  if (changed)
    outlined.setFunctionType(rewriter.getFunctionType(
        entry.getArgumentTypes(), outlined.getResultTypes()));
}

/// Moves the top-level `scf.for` nests of `func` into functions of their
/// own named `<func>_loop<N>`; a nest's results (loop-carried buffers, as
/// the scatter-adds of gather gradients carry them) become the function's.
LogicalResult outlineLoops(func::FuncOp func, int64_t &counter) {
  SmallVector<scf::ForOp> loops(func.getBody().getOps<scf::ForOp>());
  IRRewriter rewriter(func.getContext());
  for (scf::ForOp loop : loops) {
    rewriter.setInsertionPoint(loop);
    auto region = scf::ExecuteRegionOp::create(rewriter, loop.getLoc(),
                                               loop.getResultTypes());
    rewriter.replaceAllUsesWith(loop.getResults(), region.getResults());
    Block *body = rewriter.createBlock(&region.getRegion());
    rewriter.setInsertionPointToStart(body);
    auto yield =
        scf::YieldOp::create(rewriter, loop.getLoc(), loop.getResults());
    loop->moveBefore(yield);
    sinkConstants(rewriter, region.getRegion());
    rewriter.setInsertionPoint(region);
    std::string name =
        (func.getSymName() + "_loop" + std::to_string(counter++)).str();
    func::CallOp call;
    FailureOr<func::FuncOp> outlined = outlineSingleBlockRegion(
        rewriter, loop.getLoc(), region.getRegion(), name, &call);
    if (failed(outlined))
      return region.emitOpError("cannot be outlined");
    outlined->setPrivate();
    generalizeOffsets(rewriter, *outlined, call);
    // autodist-emit-abi turns the tag into LLVM's noinline (the func to
    // LLVM conversion keeps discardable attributes, not this property).
    (*outlined)->setAttr("autodist.outlined", rewriter.getUnitAttr());
    // The scf.execute_region left around the call is inlined by the
    // canonicalizer that runs next.
  }
  return success();
}

struct OutlineLoopsPass
    : public autodist::impl::OutlineLoopsBase<OutlineLoopsPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    int64_t counter = 0;
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && failed(outlineLoops(func, counter)))
        return signalPassFailure();
  }
};

} // namespace
