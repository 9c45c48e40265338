//===- ImportNormalization.cpp - softmax, layer and batch normalization ---===//

#include "Importer.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;

namespace autodist::detail {
namespace {

template <bool Log> FailureOr<Value> importSoftmax(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  OpBuilder &b = n.b;
  auto t = cast<RankedTensorType>(x->getType());
  int64_t rank = t.getRank();
  int64_t axis = n.attrInt("axis", n.opset() >= 13 ? -1 : 1);
  if (axis < -rank || axis >= rank) {
    n.error() << "attribute 'axis' = " << axis << " is out of range for rank "
              << rank;
    return failure();
  }
  if (axis < 0)
    axis += rank;
  auto axisAttr = [&](int64_t a) {
    return b.getNamedAttr("axis", b.getI64IntegerAttr(a));
  };
  auto softmax = [&](Value v, int64_t a) {
    if (Log)
      return n.build<nn::LogSoftmaxOp>({v}, {axisAttr(a)});
    return n.build<nn::SoftmaxOp>({v}, {axisAttr(a)});
  };
  // Opset 13+ normalizes along one axis; before, over the flattened dims
  // [axis, rank), which is the same when axis is the last dim.
  if (n.opset() >= 13 || axis == rank - 1)
    return softmax(*x, axis);
  if (t.getNumDynamicDims() > 1) {
    n.error() << "opset " << n.opset() << " " << n.node.op_type()
              << " with attribute 'axis' = " << axis
              << " needs at most one dynamic dim";
    return failure();
  }
  FailureOr<Value> flat = n.build<nn::FlattenOp>({*x}, {axisAttr(axis)});
  if (failed(flat))
    return failure();
  FailureOr<Value> sm = softmax(*flat, 1);
  if (failed(sm))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : t.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return n.build<nn::ReshapeOp>(
      {*sm}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

FailureOr<Value> importLayerNorm(NodeImporter &n) {
  if (int64_t stash = n.attrInt("stash_type"); stash != 1) {
    n.error() << "attribute 'stash_type' = " << stash
              << " is not supported (only 1: float32)";
    return failure();
  }
  FailureOr<SmallVector<Value>> ops =
      n.operands(/*required=*/2, /*optional=*/1);
  if (failed(ops))
    return failure();
  OpBuilder &b = n.b;
  int64_t axis = n.attrInt("axis");
  float eps = n.attrFloat("epsilon");
  FailureOr<Value> y = n.build<nn::LayerNormOp>(
      *ops, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
             b.getNamedAttr("epsilon", b.getF32FloatAttr(eps))});
  if (failed(y))
    return failure();
  bool wantStats = false;
  for (int i = 1; i < std::min(n.node.output_size(), 3); ++i)
    wantStats |= !n.node.output(i).empty();
  if (!wantStats)
    return y;
  // Mean and InvStdDev (the training outputs) over the normalized dims,
  // kept as size-1 dims: ops of their own beside the fused nn.layer_norm
  // (differentiable, and erased when nothing reads them).
  Value x = (*ops)[0];
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a)
    axes.push_back(a);
  SmallVector<NamedAttribute> reduce = {
      b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
      b.getNamedAttr("keepdims", b.getBoolAttr(true))};
  auto scalar = [&](float v) -> Value {
    return arith::ConstantOp::create(
        b, n.loc(),
        DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                               ArrayRef(v)));
  };
  FailureOr<Value> mean = n.build<nn::ReduceMeanOp>({x}, reduce);
  FailureOr<Value> d =
      succeeded(mean) ? n.build<nn::SubOp>({x, *mean}) : FailureOr<Value>();
  FailureOr<Value> sq =
      succeeded(d) ? n.build<nn::MulOp>({*d, *d}) : FailureOr<Value>();
  FailureOr<Value> var =
      succeeded(sq) ? n.build<nn::ReduceMeanOp>({*sq}, reduce) : sq;
  FailureOr<Value> ve = succeeded(var) ? n.build<nn::AddOp>({*var, scalar(eps)})
                                       : FailureOr<Value>();
  FailureOr<Value> sd =
      succeeded(ve) ? n.build<nn::SqrtOp>({*ve}) : FailureOr<Value>();
  FailureOr<Value> inv = succeeded(sd) ? n.build<nn::DivOp>({scalar(1.0f), *sd})
                                       : FailureOr<Value>();
  if (failed(inv))
    return failure();
  n.define(0, *y);
  n.define(1, *mean);
  n.define(2, *inv);
  return Value();
}

FailureOr<Value> importBatchNorm(NodeImporter &n) {
  OpBuilder &b = n.b;
  int64_t training = n.attrInt("training_mode");
  if (training != 0 && training != 1) {
    n.error() << "attribute 'training_mode' = " << training
              << " must be 0 or 1";
    return failure();
  }
  if (int64_t s = n.attrInt("spatial"); s != 1) {
    n.error() << "attribute 'spatial' = " << s
              << " is not supported (only 1: per-channel statistics)";
    return failure();
  }
  // Inference form: only Y is defined. Training form: Y and the updated
  // running mean and variance (which the train step writes back).
  if (!training &&
      failed(n.onlyFirstOutput("the running mean and variance outputs need "
                               "training_mode = 1")))
    return failure();
  if (training && n.node.output_size() > 3) {
    n.error() << "the saved mean and variance outputs (before opset 14) are "
                 "not supported";
    return failure();
  }
  FailureOr<SmallVector<Value>> operands = n.operands(/*required=*/5);
  if (failed(operands))
    return failure();
  float eps = n.attrFloat("epsilon"), momentum = n.attrFloat("momentum");
  if (!(momentum >= 0.0f && momentum <= 1.0f)) {
    n.error() << "attribute 'momentum' = " << momentum << " is not in [0, 1]";
    return failure();
  }
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("epsilon", b.getF32FloatAttr(eps))};
  // Only the training form (autodist-compile --train) uses the momentum.
  if (momentum != 0.9f)
    attrs.push_back(b.getNamedAttr("momentum", b.getF32FloatAttr(momentum)));
  if (!training)
    return n.build<nn::BatchNormOp>(*operands, attrs);
  // ONNX's running variance blends the biased batch variance (ReduceVar).
  attrs.push_back(b.getNamedAttr("unbiased_running_var", b.getBoolAttr(false)));
  FailureOr<Operation *> op =
      n.buildOp<nn::BatchNormTrainOp>(*operands, attrs, 5);
  if (failed(op))
    return failure();
  for (int i = 1; i < 3; ++i)
    n.define(i, (*op)->getResult(i));
  return (*op)->getResult(0);
}

} // namespace

void registerNormalizationOps(OpRegistry &r) {
  const char *softmaxGradient =
      "yes, from the output (fused `nn.softmax_grad`)";
  const char *softmaxNotes =
      "`axis`. Opset 13+: along one axis (default -1). Opset < 13: over the "
      "dims flattened from `axis` (default 1), imported as Flatten + softmax "
      "+ Reshape (needs at most one dynamic dim); same as opset 13 when "
      "`axis` is the last dim. Stable: the max along the axis is subtracted "
      "first";
  r.add({"Softmax",
         7,
         {"axis"},
         importSoftmax<false>,
         {},
         {"", "`nn.softmax`", softmaxGradient, softmaxNotes}});
  r.add({"LogSoftmax",
         7,
         {"axis"},
         importSoftmax<true>,
         {},
         {"", "`nn.log_softmax`", softmaxGradient, softmaxNotes}});
  r.add({"LayerNormalization",
         17,
         {{"axis", -1}, {"epsilon", 1e-5f}, {"stash_type", 1}},
         importLayerNorm,
         {},
         {"", "`nn.layer_norm`",
          "X, Scale, B (`nn.layer_norm_grad`; scale/bias gradients summed to "
          "their broadcast shapes)",
          "see [reference/nn-dialect.md](reference/nn-dialect.md). The Mean "
          "and InvStdDev outputs are computed beside it (`nn.reduce_mean`, "
          "...; differentiable); `stash_type` must be 1"}});
  r.add(
      {"BatchNormalization",
       7,
       {{"epsilon", 1e-5f},
        {"momentum", 0.9f},
        {"spatial", 1},
        {"training_mode", 0}},
       importBatchNorm,
       {},
       {"", "`nn.batch_norm`",
        R"(X, scale, B (`nn.batch_norm_grad`). With `--train` the op takes its training form `nn.batch_norm_train` (batch statistics of the per-rank batch, full batch-norm backward); with `--freeze` of both its mean and var it stays in inference form (mean/var constants))", R"(`y = (x - mean) / sqrt(var + epsilon) * scale + B`, per channel (dim 1) of an `[N, C, ...]` input; `epsilon` (default 1e-5); `momentum` (default 0.9); `spatial` (opset < 9) must be 1. `training_mode = 1` (models exported in training mode) imports as `nn.batch_norm_train`: batch statistics also in inference executables (as onnxruntime), running mean/var outputs available; the saved mean/var outputs of opsets < 14 are errors. `input_mean` and `input_var` initializers become parameters (`nn.param`); when training they are running statistics (`StatefulOpInterface`): not given to the optimizer, but updated each step, `momentum * running + (1 - momentum) * batch` (the variance unbiased, as PyTorch's `running_var`, when the op was exported in inference form; from a `training_mode = 1` export it is the biased batch variance, as the ONNX spec and onnxruntime define it, so a `--save`d `running_var` then differs from PyTorch's, whose running variance is unbiased; losses are not affected), and written back (`--save`, checkpoints). Each rank normalizes with and updates them from its own batch (as DDP); with `--sync-batchnorm`, from the global batch (all-reduced sums; as torch's SyncBatchNorm))"}});
}

} // namespace autodist::detail
