//===- InnermostDimFirst.cpp - contiguous dim to consecutive GPU threads --===//
//
// gpu-map-parallel-loops gives a parallel loop's first dim to the threads of
// a block. Linalg's loop order ends with the row-major innermost dim, so
// consecutive threads would access addresses a row apart (uncoalesced). The
// order of an scf.parallel's dims carries no meaning: rotating the last dim
// to the front changes only which thread computes which element.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace autodist {
#define GEN_PASS_DEF_INNERMOSTDIMFIRST
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// Fewer iterations than a warp: not worth the threads of a block.
constexpr int64_t kMinThreadDim = 32;

bool worthRotating(scf::ParallelOp loop) {
  unsigned n = loop.getNumLoops();
  if (n < 2 || loop.getNumReductions() != 0)
    return false;
  APInt lb, ub, step;
  if (matchPattern(loop.getLowerBound()[n - 1], m_ConstantInt(&lb)) &&
      matchPattern(loop.getUpperBound()[n - 1], m_ConstantInt(&ub)) &&
      matchPattern(loop.getStep()[n - 1], m_ConstantInt(&step)) &&
      !step.isZero() &&
      (ub.getSExtValue() - lb.getSExtValue()) / step.getSExtValue() <
          kMinThreadDim)
    return false;
  return true;
}

/// `v` with its last element first.
SmallVector<Value> rotated(ValueRange v) {
  SmallVector<Value> r{v.back()};
  llvm::append_range(r, v.drop_back());
  return r;
}

struct InnermostDimFirstPass
    : public autodist::impl::InnermostDimFirstBase<InnermostDimFirstPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() && worthRotating(loop))
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops) {
      OpBuilder b(loop);
      auto rotatedLoop = scf::ParallelOp::create(
          b, loop.getLoc(), rotated(loop.getLowerBound()),
          rotated(loop.getUpperBound()), rotated(loop.getStep()));
      Block *body = rotatedLoop.getBody();
      rotatedLoop.getBody()->getTerminator()->erase();
      Block &old = loop.getRegion().front();
      // Old dim i is new dim i + 1, the old last the new first.
      unsigned n = loop.getNumLoops();
      for (unsigned i = 0; i < n; ++i)
        old.getArgument(i).replaceAllUsesWith(
            body->getArgument(i + 1 == n ? 0 : i + 1));
      body->getOperations().splice(body->end(), old.getOperations());
      loop.erase();
    }
  }
};

} // namespace
