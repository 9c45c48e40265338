//===- OverlapCollectives.cpp - start collectives early -------------------===//
//
// Which collectives overlap computation is a decision of the program, made
// here in the dist IR: a blocking `dist.all_reduce` with work to hide behind
// becomes `dist.all_reduce_start` where it stands and `dist.wait` before its
// first use. convert-dist-to-runtime then lowers each form as it is.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_OVERLAPCOLLECTIVES
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The first operation of `op`'s block that uses a result of `op` (directly
/// or inside its regions); the terminator when nothing does.
Operation *firstUserInBlock(Operation *op) {
  Block *block = op->getBlock();
  Operation *first = block->getTerminator();
  for (Operation *user : op->getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && inBlock->isBeforeInBlock(first))
      first = inBlock;
  }
  return first;
}

/// Whether any work (more than constants and empty tensors) runs between
/// `op` and `until`: if not, a start and a wait gain nothing over the
/// blocking call (and OpenMPI's non-blocking algorithms are slower than its
/// tuned blocking ones, bench/README.md).
bool workBetween(Operation *op, Operation *until) {
  for (Operation *o = op->getNextNode(); o != until; o = o->getNextNode())
    if (!o->hasTrait<OpTrait::ConstantLike>() && !isa<tensor::EmptyOp>(o))
      return true;
  return false;
}

/// Replaces `ar` by a start where it stands and a wait before `waitAt`.
void splitAllReduce(dist::AllReduceOp ar, Operation *waitAt) {
  IRRewriter b(ar);
  auto future = dist::FutureType::get(
      ar.getContext(), llvm::to_vector(ar.getInputs().getTypes()));
  auto start = dist::AllReduceStartOp::create(
      b, ar.getLoc(), future, ar.getInputs(), ar.getKind(), ar.getGroup());
  b.setInsertionPoint(waitAt);
  auto wait = dist::WaitOp::create(b, ar.getLoc(), start.getFuture());
  b.replaceOp(ar, wait.getResults());
}

struct OverlapCollectivesPass
    : public autodist::impl::OverlapCollectivesBase<OverlapCollectivesPass> {
  void runOnOperation() override {
    SmallVector<dist::AllReduceOp> allReduces;
    getOperation().walk(
        [&](dist::AllReduceOp ar) { allReduces.push_back(ar); });
    // In program order, each seeing the waits placed before it (a wait is
    // work that a later start can hide behind).
    for (dist::AllReduceOp ar : allReduces) {
      // A compressor's runtime call compresses, reduces and decompresses in
      // one: compressed all-reduces stay blocking.
      if (ar.getCompressor() != dist::Compressor::None)
        continue;
      Operation *waitAt = firstUserInBlock(ar);
      if (workBetween(ar, waitAt))
        splitAllReduce(ar, waitAt);
    }
  }
};

} // namespace
