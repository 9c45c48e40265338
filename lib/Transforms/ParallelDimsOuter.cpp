//===- ParallelDimsOuter.cpp - parallel loop dims before reductions -------===//
//
// convert-linalg-to-parallel-loops keeps a linalg op's loop order: a
// reduction dim before a parallel one becomes a host scf.for around the
// parallel loop, i.e. one GPU kernel launch per iteration. With the
// parallel dims first, each output element is one thread.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_PARALLELDIMSOUTER
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// The loop order with `op`'s parallel dims first (each group in its
/// order), or an empty vector when it already is.
SmallVector<unsigned> parallelFirstOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (iterators[i] == utils::IteratorType::parallel)
      order.push_back(i);
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (iterators[i] != utils::IteratorType::parallel)
      order.push_back(i);
  for (unsigned i = 0; i < order.size(); ++i)
    if (order[i] != i)
      return order;
  return {};
}

struct ParallelDimsOuterPass
    : public autodist::impl::ParallelDimsOuterBase<ParallelDimsOuterPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!parallelFirstOrder(op).empty())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<unsigned> order = parallelFirstOrder(op);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> general =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(general)) {
          op->emitOpError("cannot be generalized to put its parallel loop "
                          "dims first");
          return signalPassFailure();
        }
        generic = *general;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic->emitOpError("cannot interchange its loop dims");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
