//===- UntieEmptyTensors.cpp - one tensor.empty per use -------------------===//
//
// CSE ties equal tensor.empty ops together; one-shot bufferization then
// analyzes all the ops that write into one of them as one alias set, in
// quadratic time, and copies where it cannot prove the writes independent.
// This pass unties them again: each use gets a clone right before its user.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_UNTIEEMPTYTENSORS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// Gives every use of a multiply used `empty` a clone of it, created right
/// before the user (its dynamic sizes dominate the original, hence the
/// user), and erases the original.
void untie(RewriterBase &rewriter, tensor::EmptyOp empty) {
  if (empty->hasOneUse() || empty->use_empty())
    return;
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : empty->getUses())
    uses.push_back(&use);
  for (OpOperand *use : uses) {
    rewriter.setInsertionPoint(use->getOwner());
    Operation *clone = rewriter.clone(*empty);
    rewriter.modifyOpInPlace(use->getOwner(),
                             [&] { use->set(clone->getResult(0)); });
  }
  rewriter.eraseOp(empty);
}

struct UntieEmptyTensorsPass
    : public autodist::impl::UntieEmptyTensorsBase<UntieEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (tensor::EmptyOp empty : empties)
      untie(rewriter, empty);
  }
};

} // namespace
