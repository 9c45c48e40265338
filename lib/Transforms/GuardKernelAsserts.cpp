//===- GuardKernelAsserts.cpp - cf.assert under scf.if in parallel loops --===//
//
// convert-parallel-loops-to-gpu does not convert a parallel loop whose body
// holds a cf.assert directly; nested in an scf.if it does. The assert then
// runs only where it fails.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace autodist {
#define GEN_PASS_DEF_GUARDKERNELASSERTS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

struct GuardKernelAssertsPass
    : public autodist::impl::GuardKernelAssertsBase<GuardKernelAssertsPass> {
  void runOnOperation() override {
    SmallVector<cf::AssertOp> asserts;
    getOperation().walk([&](cf::AssertOp a) {
      if (isa<scf::ParallelOp>(a->getParentOp()))
        asserts.push_back(a);
    });
    for (cf::AssertOp a : asserts) {
      OpBuilder b(a);
      Location loc = a.getLoc();
      Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
      Value bad = arith::XOrIOp::create(b, loc, a.getArg(), yes);
      auto guard = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/false);
      a->moveBefore(guard.thenBlock()->getTerminator());
    }
  }
};

} // namespace
