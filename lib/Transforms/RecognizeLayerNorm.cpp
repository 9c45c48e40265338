//===- RecognizeLayerNorm.cpp - decomposed LayerNorm to nn.layer_norm -----===//
//
// Matches the chain exporters write for LayerNorm before opset 17 (PyTorch:
// ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul scale, Add
// bias) and replaces it by one nn.layer_norm.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autodist {
#define GEN_PASS_DEF_RECOGNIZELAYERNORM
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The value of a splat f32 constant, if `v` is one.
std::optional<float> splatValue(Value v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToFloat();
}

/// The first reduced axis when `op` is a keepdims mean over the trailing
/// dims of its input, else nullopt.
std::optional<int64_t> trailingMeanAxis(nn::ReduceMeanOp op) {
  if (!op || !op.getKeepdims())
    return std::nullopt;
  SmallVector<int64_t> dims = op.getReducedDims();
  int64_t rank = op.getInput().getType().getRank();
  if (dims.empty() || dims.back() != rank - 1)
    return std::nullopt;
  for (size_t i = 1; i < dims.size(); ++i)
    if (dims[i] != dims[i - 1] + 1)
      return std::nullopt;
  return dims.front();
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) [* scale] [+ bias]
struct FoldLayerNorm : public OpRewritePattern<nn::DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::DivOp div,
                                PatternRewriter &rewriter) const override {
    auto centered = div.getLhs().getDefiningOp<nn::SubOp>();
    auto sqrt = div.getRhs().getDefiningOp<nn::SqrtOp>();
    if (!centered || !sqrt)
      return failure();
    Value x = centered.getLhs();
    auto mean = centered.getRhs().getDefiningOp<nn::ReduceMeanOp>();
    if (!mean || mean.getInput() != x)
      return failure();
    std::optional<int64_t> axis = trailingMeanAxis(mean);
    auto addEps = sqrt.getInput().getDefiningOp<nn::AddOp>();
    if (!axis || !addEps)
      return failure();
    auto var = addEps.getLhs().getDefiningOp<nn::ReduceMeanOp>();
    std::optional<float> eps = splatValue(addEps.getRhs());
    if (!var || !eps || trailingMeanAxis(var) != axis)
      return failure();
    auto square = var.getInput().getDefiningOp<nn::PowOp>();
    if (!square || square.getLhs() != centered.getResult() ||
        splatValue(square.getRhs()) != 2.0f)
      return failure();
    if (div.getType() != x.getType())
      return failure();

    // The optional affine part, when the division feeds only it.
    Location loc = div.getLoc();
    Operation *last = div;
    Value scale, bias;
    if (div->hasOneUse())
      if (auto mul = dyn_cast<nn::MulOp>(*div->getUsers().begin());
          mul && mul.getLhs() == div.getResult() &&
          mul.getType() == div.getType()) {
        scale = mul.getRhs();
        last = mul;
        if (mul->hasOneUse())
          if (auto add = dyn_cast<nn::AddOp>(*mul->getUsers().begin());
              add && add.getLhs() == mul.getResult() &&
              add.getType() == mul.getType()) {
            bias = add.getRhs();
            last = add;
          }
      }
    rewriter.setInsertionPoint(last);
    auto normalized = x.getType();
    if (!scale) {
      auto shape =
          cast<RankedTensorType>(normalized).getShape().drop_front(*axis);
      auto type = RankedTensorType::get(shape, rewriter.getF32Type());
      scale = arith::ConstantOp::create(rewriter, loc,
                                        DenseElementsAttr::get(type, 1.0f));
    }
    // Scale and bias must broadcast to the normalized dims; anything else
    // is not a LayerNorm.
    ArrayRef<int64_t> dims =
        cast<RankedTensorType>(normalized).getShape().drop_front(*axis);
    for (Value v : {scale, bias}) {
      if (!v)
        continue;
      ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
      FailureOr<SmallVector<int64_t>> bc = nn::broadcastShapes(shape, dims);
      if (shape.size() > dims.size() || failed(bc) ||
          ArrayRef<int64_t>(*bc) != dims)
        return failure();
    }
    auto ln = nn::LayerNormOp::create(rewriter, loc, x, scale, bias,
                                      rewriter.getI64IntegerAttr(*axis),
                                      rewriter.getF32FloatAttr(*eps));
    rewriter.replaceOp(last, ln.getResult());
    return success();
  }
};

struct RecognizeLayerNormPass
    : public autodist::impl::RecognizeLayerNormBase<RecognizeLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldLayerNorm>(&getContext());
    // Only this rewrite: the imported IR otherwise stays as it was.
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
