//===- FuseElementwise.cpp - elementwise fusion that spares contractions --===//
//
// linalg's elementwise fusion and reshape propagation (the patterns of
// upstream's -linalg-fuse-elementwise-ops), with a control function that
// leaves contractions alone: a reshape folded into a linalg.contract turns
// it into a linalg.generic over more dims, and an im2col or transpose fused
// into it would make it a strided loop nest; either way it would no longer
// map onto one sgemm per batch point (convert-linalg-to-blas).
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autodist {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Whether `op` is a linalg contraction (matmul, contract, ...).
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// Fuses through `fusedOperand` when its producer has no other use and
/// neither side is a contraction.
bool allowFusion(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse() &&
         !isContraction(fusedOperand->getOwner()) && !isContraction(producer);
}

struct FuseElementwisePass
    : public autodist::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, allowFusion);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, allowFusion);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, allowFusion);
    // Results nobody reads are not written (a multi-result loop of which
    // only some results are used, e.g. weight prediction's update).
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
