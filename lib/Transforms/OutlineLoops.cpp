//===- OutlineLoops.cpp - one function per top-level loop nest ------------===//
//
// After linalg is lowered to loops, a training step is one function holding
// thousands of loop nests. LLVM's loop passes (IndVarSimplify's scalar
// evolution above all) grow superlinearly with the loops of one function:
// a 6-block GPT spent 43 of 53 s of `opt -O3` there (bench/README.md).
// Each top-level loop nest becomes a private, never-inlined function, so
// every function LLVM analyzes stays small and compile time grows linearly
// with the model.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_OUTLINELOOPS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Moves the result-less top-level `scf.for` nests of `func` into functions
/// of their own named `<func>_loop<N>`.
LogicalResult outlineLoops(func::FuncOp func, int64_t &counter) {
  SmallVector<scf::ForOp> loops;
  for (Operation &op : func.getBody().getOps())
    if (auto loop = dyn_cast<scf::ForOp>(op); loop && loop.getNumResults() == 0)
      loops.push_back(loop);
  IRRewriter rewriter(func.getContext());
  for (scf::ForOp loop : loops) {
    rewriter.setInsertionPoint(loop);
    auto region =
        scf::ExecuteRegionOp::create(rewriter, loop.getLoc(), TypeRange());
    Block *body = rewriter.createBlock(&region.getRegion());
    rewriter.setInsertionPointToStart(body);
    scf::YieldOp::create(rewriter, loop.getLoc());
    loop->moveBefore(body->getTerminator());
    rewriter.setInsertionPoint(region);
    std::string name =
        (func.getSymName() + "_loop" + std::to_string(counter++)).str();
    func::CallOp call;
    FailureOr<func::FuncOp> outlined = outlineSingleBlockRegion(
        rewriter, loop.getLoc(), region.getRegion(), name, &call);
    if (failed(outlined))
      return region.emitOpError("cannot be outlined");
    outlined->setPrivate();
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
