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

/// Fuses a producer whose results are also read elsewhere into a consumer
/// of the same iteration space, in one loop that yields both ops' results:
/// an optimizer update and the weight prediction that reads its new
/// parameter and moments (dist-staleness-pipeline). Upstream's pattern
/// leaves such a producer alone (allowFusion: one use) since fusing it
/// would compute it twice; here the fused op replaces it everywhere, and
/// the consumer's other reads of the producer's results take the values the
/// fused body computes. Only where every other user comes after the
/// consumer in its block, so that the fused op dominates them.
struct FuseProducerReadElsewhere : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() ||
          !linalg::areElementwiseOpsFusable(operand) ||
          isContraction(producer) || isContraction(consumer) ||
          producer.getNumLoops() != consumer.getNumLoops() ||
          !consumer.getMatchingIndexingMap(operand).isPermutation() ||
          !canForwardReads(producer, consumer, operand))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused))
        return failure();
      auto fusedOp = cast<linalg::GenericOp>(fused->fusedOp);
      // The consumer's other reads of the producer: the values computed
      // in the same iteration of the fused body.
      auto yield = cast<linalg::YieldOp>(fusedOp.getBody()->getTerminator());
      for (OpOperand *in : fusedOp.getDpsInputOperands()) {
        auto res = dyn_cast<OpResult>(in->get());
        if (!res || res.getOwner() != producer)
          continue;
        auto kept = cast<OpResult>(fused->replacements.lookup(res));
        rewriter.replaceAllUsesWith(fusedOp.getMatchingBlockArgument(in),
                                    yield.getOperand(kept.getResultNumber()));
      }
      for (auto [orig, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(orig, replacement, [&](OpOperand &use) {
          return use.getOwner() != fusedOp;
        });
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }

  /// Whether every user of `producer` but `consumer` comes after it in its
  /// block, and every other read of the producer by `consumer` is an input
  /// of the same indexing as `fused` of a result the fusion keeps.
  static bool canForwardReads(linalg::GenericOp producer,
                              linalg::GenericOp consumer, OpOperand *fused) {
    for (Operation *user : producer->getUsers())
      if (user != consumer.getOperation() &&
          (user->getBlock() != consumer->getBlock() ||
           !consumer->isBeforeInBlock(user)))
        return false;
    llvm::SmallDenseSet<int> kept =
        linalg::getPreservedProducerResults(producer, consumer, fused);
    AffineMap fusedMap = consumer.getMatchingIndexingMap(fused);
    AffineMap resultMap =
        producer.getIndexingMapMatchingResult(cast<OpResult>(fused->get()));
    for (OpOperand &use : consumer->getOpOperands()) {
      auto res = dyn_cast<OpResult>(use.get());
      if (&use == fused || !res || res.getOwner() != producer)
        continue;
      if (!consumer.isDpsInput(&use) || !kept.contains(res.getResultNumber()) ||
          consumer.getMatchingIndexingMap(&use) != fusedMap ||
          producer.getIndexingMapMatchingResult(res) != resultMap)
        return false;
    }
    return true;
  }
};

struct FuseElementwisePass
    : public autodist::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, allowFusion);
    patterns.add<FuseProducerReadElsewhere>(ctx);
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
