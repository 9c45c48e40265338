//===- NNToLinalg.cpp - lower nn ops through their own interface ----------===//

#include "autodist/Passes.h"
#include "nn/NNOps.h"
#include "nn/NNSignedness.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

struct ConvertNNToLinalgPass
    : public autodist::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    bool unsupported = false;
    getOperation().walk([&](Operation *op) {
      if (isa<nn::LowerToLinalgOpInterface>(op))
        ops.push_back(op);
      else if (isa<nn::NNDialect>(op->getDialect())) {
        op->emitOpError("has no lowering to linalg");
        unsupported = true;
      }
    });
    if (unsupported)
      return signalPassFailure();
    // arith has signless integers only; the ops that care keep a mark.
    nn::eraseSignedness(getOperation());
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> repl =
          cast<nn::LowerToLinalgOpInterface>(op).lowerToLinalg(rewriter);
      if (failed(repl))
        return signalPassFailure();
      rewriter.replaceOp(op, *repl);
    }
  }
};

} // namespace
