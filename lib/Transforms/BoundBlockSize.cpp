//===- BoundBlockSize.cpp - cut long blocks into chained blocks -----------===//
//
// Dialect conversion inserts ops one by one into the block being converted
// and orders them with isBeforeInBlock, which renumbers the whole block when
// its numbering runs out of gaps: superlinear on the one block of a deep
// training step. Blocks of bounded size keep that cost linear.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace autodist {
#define GEN_PASS_DEF_BOUNDBLOCKSIZE
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// Cuts `block` before every `maxOps`-th op (never before its terminator)
/// and chains the pieces with `cf.br`. Cuts are made from the back, so each
/// op moves once.
void boundBlock(Block &block, int64_t maxOps) {
  SmallVector<Operation *> cuts;
  int64_t n = 0;
  for (Operation &op : block.without_terminator())
    if (++n % maxOps == 0 && op.getNextNode() != block.getTerminator())
      cuts.push_back(op.getNextNode());
  for (Operation *cut : llvm::reverse(cuts)) {
    Block *tail = block.splitBlock(cut);
    OpBuilder builder = OpBuilder::atBlockEnd(&block);
    cf::BranchOp::create(builder, cut->getLoc(), tail);
  }
}

struct BoundBlockSizePass
    : public autodist::impl::BoundBlockSizeBase<BoundBlockSizePass> {
  using BoundBlockSizeBase::BoundBlockSizeBase;

  void runOnOperation() override {
    if (maxOps < 1) {
      getOperation().emitError("autodist-bound-block-size: max-ops must be "
                               "at least 1, got ")
          << static_cast<int64_t>(maxOps);
      return signalPassFailure();
    }
    for (Operation &op : getOperation().getBody()->getOperations()) {
      auto func = dyn_cast<FunctionOpInterface>(op);
      if (!func || func.isExternal())
        continue;
      SmallVector<Block *> blocks;
      for (Block &block : func.getFunctionBody())
        if (static_cast<int64_t>(block.getOperations().size()) > maxOps)
          blocks.push_back(&block);
      for (Block *block : blocks)
        boundBlock(*block, maxOps);
    }
  }
};

} // namespace
