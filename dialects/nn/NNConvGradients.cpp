//===- NNConvGradients.cpp - VJPs of the CNN, embedding, norm ops ---------===//
//
// Vector-Jacobian products (DifferentiableOpInterface) of Conv, the
// poolings, batch normalization (inference and training forms), Gather and
// LayerNorm, and batch normalization's training form (StatefulOpInterface;
// over the global batch it all-reduces its sums with dist.all_reduce).
// The heavy gradients are nn ops of their own (nn.conv_input_grad, ...,
// lowered in NNConvLowering.cpp and NNNormGradLowering.cpp).
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace autodist::nn;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The static spatial dims [H, W] of an NCHW value.
static DenseI64ArrayAttr spatialSize(OpBuilder &b, Value v) {
  return b.getDenseI64ArrayAttr(typeOf(v).getShape().drop_front(2));
}

//===----------------------------------------------------------------------===//
// Conv and poolings
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  Value dx = ConvInputGradOp::create(
      b, loc, g, getWeight(), spatialSize(b, getInput()), getStridesAttr(),
      getPadsAttr(), getDilationsAttr(), getGroupAttr());
  Value dw = ConvWeightGradOp::create(
      b, loc, g, getInput(), spatialSize(b, getWeight()), getStridesAttr(),
      getPadsAttr(), getDilationsAttr(), getGroupAttr());
  operandGrads.assign({dx, dw});
  if (getBias())
    operandGrads.push_back(
        ReduceSumOp::create(b, loc, g, b.getDenseI64ArrayAttr({0, 2, 3}),
                            b.getBoolAttr(false), b.getBoolAttr(false)));
  return success();
}

LogicalResult MaxPoolOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({MaxPoolGradOp::create(
      b, getLoc(), resultGrads[0], getInput(), getKernelShapeAttr(),
      getStridesAttr(), getPadsAttr(), getDilationsAttr())});
  return success();
}

LogicalResult AveragePoolOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                      SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({AveragePoolGradOp::create(
      b, getLoc(), resultGrads[0], spatialSize(b, getInput()),
      getKernelShapeAttr(), getStridesAttr(), getPadsAttr(), getDilationsAttr(),
      getCountIncludePadAttr())});
  return success();
}

LogicalResult
GlobalAveragePoolOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  // dx = dy broadcast over the spatial dims, divided by their count: dy
  // [N, C, 1, ...] times a constant [1, 1, D1, ...] of 1 / count.
  auto shape = typeOf(getInput()).getShape();
  SmallVector<int64_t> spatial = {1, 1};
  int64_t count = 1;
  for (int64_t d : shape.drop_front(2)) {
    spatial.push_back(d);
    count *= d;
  }
  auto constType = RankedTensorType::get(spatial, b.getF32Type());
  Value inv = arith::ConstantOp::create(
      b, getLoc(),
      DenseElementsAttr::get(constType, 1.0f / static_cast<float>(count)));
  operandGrads.assign({MulOp::create(b, getLoc(), resultGrads[0], inv)});
  return success();
}

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  // Inference form: mean and var are constants, so they get no gradient.
  auto grad = BatchNormGradOp::create(
      b, getLoc(), resultGrads[0], getInput(), getScale(), getMean(), getVar(),
      ValueRange(), getEpsilonAttr(), b.getBoolAttr(false));
  operandGrads.assign({grad.getInputGrad(), grad.getScaleGrad(),
                       grad.getBiasGrad(), Value(), Value()});
  return success();
}

SmallVector<unsigned> BatchNormOp::getStateOperandIndices() { return {3, 4}; }

/// The training form of a batch norm on `input`: statistics of this rank's
/// batch, or with `globalBatch` of the global batch (sums marked
/// `global_batch`, which dist-synchronize all-reduces).
static BatchNormTrainOp
buildBatchNormTrain(OpBuilder &b, Location loc, Value input, Value scale,
                    Value bias, Value mean, Value var, FloatAttr epsilon,
                    FloatAttr momentum, BoolAttr unbiasedRunningVar,
                    bool globalBatch) {
  SmallVector<Value> stats;
  if (globalBatch) {
    // Two passes over the global batch, as over one rank's: the mean from
    // the all-reduced sums and counts, then the squared deviations from it.
    auto sum = BatchNormSumOp::create(b, loc, input, /*global_batch=*/true);
    auto sq = BatchNormSqDevOp::create(b, loc, input, sum.getSum(),
                                       sum.getCount(), /*global_batch=*/true);
    stats = {sum.getSum(), sq.getResult(), sum.getCount()};
  }
  return BatchNormTrainOp::create(b, loc, input, scale, bias, mean, var, stats,
                                  epsilon, momentum, unbiasedRunningVar);
}

LogicalResult BatchNormOp::buildTrainingForm(OpBuilder &b,
                                             SmallVectorImpl<Value> &results,
                                             SmallVectorImpl<Value> &newStates,
                                             bool globalBatch) {
  auto train = buildBatchNormTrain(
      b, getLoc(), getInput(), getScale(), getBias(), getMean(), getVar(),
      getEpsilonAttr(), getMomentumAttr(), b.getBoolAttr(true), globalBatch);
  results.assign({train.getResult()});
  newStates.assign({train.getNewMean(), train.getNewVar()});
  return success();
}

SmallVector<unsigned> BatchNormTrainOp::getStateOperandIndices() {
  return {3, 4};
}

LogicalResult BatchNormTrainOp::buildTrainingForm(
    OpBuilder &b, SmallVectorImpl<Value> &results,
    SmallVectorImpl<Value> &newStates, bool globalBatch) {
  // Already a training form (imported from training_mode = 1): rebuilt the
  // same way, so that --sync-batchnorm applies to it too.
  if (!getGlobalStats().empty())
    return emitOpError("already has global statistics");
  auto train = buildBatchNormTrain(b, getLoc(), getInput(), getScale(),
                                   getBias(), getMean(), getVar(),
                                   getEpsilonAttr(), getMomentumAttr(),
                                   getUnbiasedRunningVarAttr(), globalBatch);
  results.assign(train->result_begin(), train->result_end());
  newStates.assign({train.getNewMean(), train.getNewVar()});
  return success();
}

LogicalResult BatchNormTrainOp::buildVJP(OpBuilder &b,
                                         ArrayRef<Value> resultGrads,
                                         SmallVectorImpl<Value> &operandGrads) {
  // Only y is differentiated: the running statistics are state, and the
  // batch statistics are outputs for the backward pass.
  operandGrads.assign(5, Value());
  if (!resultGrads[0])
    return success();
  Location loc = getLoc();
  SmallVector<Value> globalSums;
  if (!getGlobalStats().empty()) {
    // The input gradient needs the sums over the global batch (the
    // statistics were global); the scale and bias keep this rank's sums.
    auto sums = BatchNormGradSumsOp::create(b, loc, resultGrads[0], getInput(),
                                            getBatchMean(),
                                            /*global_batch=*/true);
    globalSums = SmallVector<Value>(sums.getResults());
    globalSums.push_back(getGlobalStats()[2]);
  }
  auto grad = BatchNormGradOp::create(
      b, loc, resultGrads[0], getInput(), getScale(), getBatchMean(),
      getBatchVar(), globalSums, getEpsilonAttr(), b.getBoolAttr(true));
  operandGrads[0] = grad.getInputGrad();
  operandGrads[1] = grad.getScaleGrad();
  operandGrads[2] = grad.getBiasGrad();
  return success();
}

//===----------------------------------------------------------------------===//
// Gather, LayerNorm
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  RankedTensorType data = getData().getType();
  if (!data.getElementType().isF32())
    return emitOpError("gradient of a gather of non-f32 data");
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += data.getRank();
  // A dynamic axis (flattened batch rows) is sized from the data at run
  // time.
  bool dynamic = data.isDynamicDim(axis);
  Value dd = GatherGradOp::create(
      b, getLoc(), resultGrads[0], getIndices(),
      dynamic ? getData() : Value(), b.getI64IntegerAttr(axis),
      b.getI64IntegerAttr(dynamic ? -1 : data.getDimSize(axis)));
  operandGrads.assign({dd, Value()});
  return success();
}

LogicalResult LayerNormOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  auto grad =
      LayerNormGradOp::create(b, loc, resultGrads[0], getInput(), getScale(),
                              getAxisAttr(), getEpsilonAttr());
  operandGrads.assign(
      {grad.getInputGrad(),
       sumToShape(b, loc, grad.getScaleGrad(), typeOf(getScale()))});
  if (Value bias = getBias())
    operandGrads.push_back(
        sumToShape(b, loc, grad.getBiasGrad(), typeOf(bias)));
  return success();
}
