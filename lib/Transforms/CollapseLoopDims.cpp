//===- CollapseLoopDims.cpp - merge contiguous loop dims of linalg ops ----===//
//
// Convolutional networks hold tensors whose inner dims are tiny: weights
// `[M, C, 3, 3]`, activations `[N, 512, 1, 1]`. Lowered as they are, an
// elementwise op over them is a loop nest whose innermost loop runs 3 or 1
// times, and LLVM vectorizes such nests badly (across an outer loop, with
// gathers and scatters) or not at all. Dims that every operand reads
// contiguously and in order are one dim as far as the data is concerned:
// merging them (upstream's linalg::collapseOpIterationDims, on memref views
// that need no copy) leaves one long innermost loop.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_COLLAPSELOOPDIMS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The reassociation of `map`'s results that merges loop dims the way
/// `groups` (a partition of the loop dims into consecutive runs) does: the
/// results of one run are consecutive in a preserved map.
SmallVector<ReassociationIndices>
operandReassociation(AffineMap map, ArrayRef<ReassociationIndices> groups) {
  SmallVector<int64_t> groupOf(map.getNumDims());
  for (auto [g, dims] : llvm::enumerate(groups))
    for (int64_t d : dims)
      groupOf[d] = g;
  SmallVector<ReassociationIndices> re;
  int64_t last = -1;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    int64_t g = groupOf[cast<AffineDimExpr>(expr).getPosition()];
    if (re.empty() || g != last)
      re.push_back({});
    re.back().push_back(static_cast<int64_t>(i));
    last = g;
  }
  return re;
}

/// Whether merging the loop dims as `groups` does keeps every run contiguous
/// in every indexing map and every memref operand collapsible without a
/// copy.
bool canCollapse(linalg::LinalgOp op, ArrayRef<ReassociationIndices> groups) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!linalg::areDimSequencesPreserved(maps, groups))
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
            type, operandReassociation(map, groups)))
      return false;
  }
  return true;
}

/// The loop dims of `op` partitioned into maximal runs of consecutive dims
/// that can be merged (greedily, outermost first); empty if nothing merges.
SmallVector<ReassociationIndices> collapsibleRuns(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() <= 1 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return {};
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0, e = op.getNumLoops(); d < e; ++d)
    groups.push_back({d});
  // Try to merge each run with the next, keeping the merge when it is valid.
  SmallVector<ReassociationIndices> runs = {groups.front()};
  for (const ReassociationIndices &next : llvm::drop_begin(groups)) {
    if (iters[next.front()] == iters[runs.back().front()]) {
      SmallVector<ReassociationIndices> trial(runs);
      llvm::append_range(trial.back(), next);
      SmallVector<ReassociationIndices> whole(trial);
      for (int64_t d = next.front() + 1, e = op.getNumLoops(); d < e; ++d)
        whole.push_back({d});
      if (canCollapse(op, whole)) {
        runs = std::move(trial);
        continue;
      }
    }
    runs.push_back(next);
  }
  if (runs.size() == groups.size())
    return {};
  return runs;
}

struct CollapseLoopDimsPass
    : public autodist::impl::CollapseLoopDimsBase<CollapseLoopDimsPass> {
  void runOnOperation() override {
    // Each op is rewritten once (its collapsed form has nothing left to
    // merge), so a single walk suffices.
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      if (!isa<linalg::GenericOp, linalg::CopyOp, linalg::FillOp>(op))
        continue;
      SmallVector<ReassociationIndices> runs = collapsibleRuns(op);
      if (runs.empty())
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::collapseOpIterationDims(op, runs, rewriter))) {
        op.emitOpError("cannot merge its loop dims");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
