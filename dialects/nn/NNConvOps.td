//===- NNConvOps.td - nn convolution, pooling, batch norm --*- tablegen -*-===//
//
// The CNN ops of ONNX in inference form: Conv, MaxPool, AveragePool,
// GlobalAveragePool and BatchNormalization, on NCHW tensors with 2-D
// spatial dims (GlobalAveragePool: any spatial rank). The batch dim may be
// dynamic; channel and spatial dims must be static. Padding is explicit
// (`pads` = [top, left, bottom, right], ONNX's order): the importer resolves
// ONNX's `auto_pad`. Included from NNOps.td, which defines NN_Op and the
// tensor constraints.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_CONV_OPS
#define AUTODIST_NN_CONV_OPS

def NN_ConvOp : NN_DiffOp<"conv",
    [DeclareOpInterfaceMethods<HalfOperandsOpInterface, ["acceptsHalfOperands"]>]> {
  let summary = "2-D convolution (ONNX Conv) with groups, strides, dilations";
  let description = [{
    ONNX `Conv` on an NCHW input `[N, C, H, W]` with weights
    `[M, C / group, kH, kW]` and an optional bias `[M]`: output
    `[N, M, OH, OW]` with
    `OH = floor((H + pads[0] + pads[2] - dilations[0] * (kH - 1) - 1) / strides[0]) + 1`
    (likewise `OW`). Output channel `m` of group `g = m / (M / group)` reads
    input channels `[g * C / group, (g + 1) * C / group)`; `group = C` with
    one filter per channel is a depthwise convolution. Padding is zeros.
    Lowers to zero padding (fill + copy into a slice), then with
    `group = 1` im2col columns of the whole batch `[C * kH * kW, N * OH * OW]`
    (a copy generic) and one `linalg.contract` with the weight
    `[M, C * kH * kW]` (one sgemm after bufferization) whose channels-first
    product `[M, N, OH, OW]` one generic transposes to NCHW, adding the bias
    (after the sum, as onnxruntime); otherwise `linalg.conv_2d_ngchw_gfchw`
    on grouped views, then the bias. (A target may instead call a library
    for it before this lowering: the CPU target's
    `convert-nn-conv-to-library`.) With `group = 1`, `input` and `weight` may
    both be bf16 or both f16 (autodist-mixed-precision): the im2col columns
    are 16-bit and the product sums in f32; the bias and result are f32.

    ```mlir
    %y = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    ```
  }];
  let arguments = (ins NN_ContractionTensor:$input,
                   NN_ContractionTensor:$weight, Optional<NN_F32Tensor>:$bias,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MaxPoolOp : NN_DiffOp<"max_pool"> {
  let summary = "2-D max pooling (ONNX MaxPool)";
  let description = [{
    ONNX `MaxPool` (`ceil_mode = 0`, no `Indices` output) on an NCHW input:
    the maximum over each `kernel_shape` window (with `strides` and
    `dilations`); padded positions are `-inf`, so they never win. Each pad
    must be smaller than the kernel. The output size is as for `nn.conv`.
    Lowers to `-inf` padding and `linalg.pooling_nchw_max`.

    ```mlir
    %y = nn.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x6x28x28xf32>) -> tensor<?x6x14x14xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DenseI64ArrayAttr:$kernel_shape,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MaxPoolIndicesOp : NN_Op<"max_pool_indices"> {
  let summary = "Where each window's maximum is (ONNX MaxPool's Indices)";
  let description = [{
    The `Indices` output of ONNX `MaxPool`: for each window of `nn.max_pool`
    with the same attributes, the flat index of its maximum in the input
    (the first in row-major window order on ties; NaN wins, as in
    PyTorch). `storage_order = 0` counts row-major,
    `((n * C + c) * H + h) * W + w`; `storage_order = 1` counts the
    spatial dims column-major, `(n * C + c) * H * W + w * H + h`. Integer,
    so no gradient flows through it.

    ```mlir
    %i = nn.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x6x28x28xf32>) -> tensor<?x6x14x14xi64>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DenseI64ArrayAttr:$kernel_shape,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "0">:$storage_order);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let hasVerifier = 1;
}

def NN_AveragePoolOp : NN_DiffOp<"average_pool"> {
  let summary = "2-D average pooling (ONNX AveragePool)";
  let description = [{
    ONNX `AveragePool` (`ceil_mode = 0`) on an NCHW input: the mean over
    each `kernel_shape` window (with `strides` and `dilations`). Padded
    positions are zeros; with `count_include_pad` they count in the divisor
    (always `kH * kW`), without (the default) the divisor is the number of
    window positions inside the input. Each pad must be smaller than the
    kernel. Lowers to zero padding, `linalg.pooling_nchw_sum` and a division
    (by a constant, or by a constant `[OH, OW]` tensor of counts).

    ```mlir
    %y = nn.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DenseI64ArrayAttr:$kernel_shape,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_GlobalAveragePoolOp : NN_DiffOp<"global_average_pool"> {
  let summary = "Mean over all spatial dims (ONNX GlobalAveragePool)";
  let description = [{
    ONNX `GlobalAveragePool`: for an input `[N, C, D1, ..., Dk]` (k >= 1),
    the mean over `D1..Dk`, kept as size-1 dims: `[N, C, 1, ..., 1]`.

    ```mlir
    %y = nn.global_average_pool %x : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_BatchNormOp : NN_DiffOp<"batch_norm",
    [DeclareOpInterfaceMethods<StatefulOpInterface>]> {
  let summary = "Batch normalization in inference form";
  let description = [{
    ONNX `BatchNormalization` with `training_mode = 0`: for an input
    `[N, C, ...]` and per-channel `scale`, `bias`, `mean` and `var` (each
    `[C]`),
    `y = (x - mean) / sqrt(var + epsilon) * scale + bias`, computed as
    onnxruntime does: `s = scale / sqrt(var + epsilon)` (as
    `1 / sqrt(...) * scale`), `y = x * s + (bias - mean * s)`.
    Differentiable w.r.t. `input`, `scale` and `bias` (`mean` and `var` are
    constants here). `momentum` (ONNX's: the weight of the running
    statistics) only matters in the training form, `nn.batch_norm_train`
    (StatefulOpInterface: `mean` and `var` are running statistics, which
    `autodist-build-train-step` updates instead of training).

    ```mlir
    %y = nn.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.000000e-03 : f32}
        : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> tensor<?x4x8x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_F32Tensor:$scale,
                   NN_F32Tensor:$bias, NN_F32Tensor:$mean,
                   NN_F32Tensor:$var,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                   DefaultValuedAttr<F32Attr, "0.9">:$momentum);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Training forms and gradients of the CNN, embedding and normalization ops
//===----------------------------------------------------------------------===//

def NN_BatchNormTrainOp : NN_DiffOp<"batch_norm_train",
    [DeclareOpInterfaceMethods<StatefulOpInterface>]> {
  let summary = "Batch normalization in training form (batch statistics)";
  let description = [{
    ONNX `BatchNormalization` with `training_mode = 1` on an input
    `[N, C, ...]`: normalizes with the statistics of this batch, per channel
    over all dims but 1, `batch_mean` and the biased `batch_var`:
    `y = (x - batch_mean) / sqrt(batch_var + epsilon) * scale + bias`.
    It also returns the updated running statistics, as ONNX and PyTorch
    do: `new_mean = momentum * mean + (1 - momentum) * batch_mean` and
    `new_var = momentum * var + (1 - momentum) * batch_var * n / (n - 1)`
    (`n` the number of values per channel: the running variance is
    unbiased, as PyTorch's `running_var`; with `unbiased_running_var = false`
    the batch variance enters as it is, as the ONNX specification's
    `ReduceVar`). `batch_mean` and `batch_var` are
    what the gradient (`nn.batch_norm_grad`) needs. The importer builds it
    for `training_mode = 1` nodes (models exported in training mode); it
    is its own training form, so the train step writes `new_mean` and
    `new_var` back to the running-statistic parameters.

    `global_stats` is empty (statistics of this rank's batch) or, for
    statistics over the global batch (`--sync-batchnorm`), the per-channel
    sum `[C]`, sum of squared deviations from the mean `[C]` and the count
    `[1]` over all ranks (`nn.batch_norm_sum`, `nn.batch_norm_sq_dev` and
    `dist.all_reduce sum`): then `batch_mean = sum / count`,
    `batch_var = sq_dev / count` and `n = count`.

    ```mlir
    %y, %m1, %v1, %bm, %bv = nn.batch_norm_train %x, %scale, %bias, %mean, %var
        {epsilon = 1.000000e-05 : f32, momentum = 0.899999976 : f32}
        : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_F32Tensor:$scale,
                   NN_F32Tensor:$bias, NN_F32Tensor:$mean,
                   NN_F32Tensor:$var, Variadic<NN_F32Tensor>:$global_stats,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                   DefaultValuedAttr<F32Attr, "0.9">:$momentum,
                   DefaultValuedAttr<BoolAttr, "true">:$unbiased_running_var);
  let results = (outs NN_F32Tensor:$result, NN_F32Tensor:$new_mean,
                 NN_F32Tensor:$new_var, NN_F32Tensor:$batch_mean,
                 NN_F32Tensor:$batch_var);
  let hasVerifier = 1;
}

def NN_BatchNormSumOp : NN_Op<"batch_norm_sum", [GlobalBatchSumOpInterface]> {
  let summary = "Per-channel sum and count of this rank's batch";
  let description = [{
    For an input `[N, C, ...]`: the sum over all dims but 1 (`[C]`) and the
    number of values per channel (`[1]`, f32). The first step of batch
    statistics over the global batch: all-reduced, `sum / count` is the
    global mean. With `global_batch` the results are meant over the global
    batch of a data-parallel step: `dist-synchronize` all-reduces them (and
    drops the attribute); lowering an op that still has it is an error.

    ```mlir
    %sum, %count = nn.batch_norm_sum %x
        : (tensor<?x4x8x8xf32>) -> (tensor<4xf32>, tensor<1xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, UnitAttr:$global_batch);
  let results = (outs NN_F32Tensor:$sum, NN_F32Tensor:$count);
  let hasVerifier = 1;
}

def NN_BatchNormSqDevOp
    : NN_Op<"batch_norm_sq_dev", [GlobalBatchSumOpInterface]> {
  let summary = "Per-channel sum of squared deviations from a given mean";
  let description = [{
    For an input `[N, C, ...]` and the (global) per-channel `sum` `[C]` and
    `count` `[1]`: `sum((x - sum / count)^2)` over all dims but 1 (`[C]`).
    All-reduced and divided by the global count, the global (biased)
    variance, computed in two passes like the per-rank statistics.
    `global_batch` as for `nn.batch_norm_sum`.

    ```mlir
    %sq = nn.batch_norm_sq_dev %x, %sum, %count
        : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_F32Tensor:$sum,
                   NN_F32Tensor:$count, UnitAttr:$global_batch);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_BatchNormGradSumsOp
    : NN_Op<"batch_norm_grad_sums", [GlobalBatchSumOpInterface]> {
  let summary = "Per-channel sums the batch-norm backward reduces";
  let description = [{
    For the upstream gradient `grad` and the input `[N, C, ...]` of a batch
    normalization with batch mean `mean` `[C]`: `sum(grad)` and
    `sum(grad * (x - mean))` over all dims but 1 (each `[C]`). With
    statistics over the global batch these are all-reduced before the input
    gradient is formed (`nn.batch_norm_grad` with `global_sums`): asked for
    by `global_batch`, as for `nn.batch_norm_sum`.

    ```mlir
    %sdy, %sdyx = nn.batch_norm_grad_sums %dy, %x, %mean
        : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   NN_F32Tensor:$mean, UnitAttr:$global_batch);
  let results = (outs NN_F32Tensor:$sum_grad, NN_F32Tensor:$sum_grad_dev);
  let hasVerifier = 1;
}

def NN_BatchNormGradOp : NN_Op<"batch_norm_grad"> {
  let summary = "Gradient of batch normalization w.r.t. input, scale, bias";
  let description = [{
    For `y = (x - mean) / sqrt(var + epsilon) * scale + bias` per channel
    (dim 1) and the upstream gradient `grad` of `y`: the gradients of `x`,
    `scale` and `bias`. `mean` and `var` are those the forward used: the
    running statistics (constants, `training_mode = false`) or the batch
    statistics (`training_mode = true`, which adds the terms through which
    `x` moves them: the full batch-norm backward).

    `global_sums` is empty, or (statistics over the global batch, only with
    `training_mode`) `sum(grad)`, `sum(grad * (x - mean))` (`[C]` each) and
    the count (`[1]`) over all ranks: the input gradient then uses them,
    while the scale and bias gradients stay this rank's own sums (the
    gradient synchronization averages them as any parameter's).

    ```mlir
    %dx, %dscale, %dbias = nn.batch_norm_grad %dy, %x, %scale, %mean, %var
        {epsilon = 1.000000e-05 : f32, training_mode = true}
        : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   NN_F32Tensor:$scale, NN_F32Tensor:$mean,
                   NN_F32Tensor:$var, Variadic<NN_F32Tensor>:$global_sums,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                   DefaultValuedAttr<BoolAttr, "false">:$training_mode);
  let results = (outs NN_F32Tensor:$input_grad, NN_F32Tensor:$scale_grad,
                 NN_F32Tensor:$bias_grad);
  let hasVerifier = 1;
}

def NN_ConvInputGradOp : NN_Op<"conv_input_grad",
    [DeclareOpInterfaceMethods<HalfOperandsOpInterface, ["acceptsHalfOperands"]>]> {
  let summary = "Gradient of nn.conv w.r.t. its input (transposed conv)";
  let description = [{
    For an `nn.conv` with these `strides`, `pads`, `dilations` and `group`,
    weight `[M, C / group, kH, kW]` and input spatial size `input_size`
    (`[H, W]`): the gradient `[N, C, H, W]` of the input from the gradient
    `grad` (`[N, M, OH, OW]`) of the output. It is the correlation of
    `grad`, dilated by the strides and padded by the dilated kernel, with
    the flipped kernel; the pads are then cut off. With `group = 1` it is
    computed as the gradient of the forward's im2col columns instead,
    `w^T grad` (one `linalg.contract`, one sgemm
    `[C * kH * kW, M] x [M, N * OH * OW]` on `grad` transposed to
    channels-first), added back into the padded input positions the columns
    were read from (col2im: one strided-slice addition per kernel position),
    so no products with the zeros of the dilation; otherwise one
    `linalg.generic` of the dilated, padded `grad`.

    ```mlir
    %dx = nn.conv_input_grad %dy, %w {input_size = array<i64: 8, 8>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
    ```
  }];
  let arguments = (ins NN_ContractionTensor:$grad,
                   NN_ContractionTensor:$weight, DenseI64ArrayAttr:$input_size,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_ConvWeightGradOp : NN_Op<"conv_weight_grad",
    [DeclareOpInterfaceMethods<HalfOperandsOpInterface, ["acceptsHalfOperands"]>]> {
  let summary = "Gradient of nn.conv w.r.t. its weight";
  let description = [{
    For an `nn.conv` of `input` (`[N, C, H, W]`) with these attributes and a
    kernel of spatial size `kernel_shape`: the gradient
    `[M, C / group, kH, kW]` of the weight from the gradient `grad`
    (`[N, M, OH, OW]`) of the output: the correlation of the padded input
    with `grad`, summed over the batch. With `group = 1` it contracts `grad`
    transposed to `[M, N * OH * OW]` (shared with the input gradient by CSE)
    with the input's im2col columns (the forward's, likewise shared) in one
    `linalg.contract` (one sgemm over the batch and the output positions),
    otherwise it is one `linalg.generic`.

    ```mlir
    %dw = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<?x4x4x4xf32>, tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32>
    ```
  }];
  let arguments = (ins NN_ContractionTensor:$grad,
                   NN_ContractionTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MaxPoolGradOp : NN_Op<"max_pool_grad"> {
  let summary = "Gradient of nn.max_pool: routed to each window's maximum";
  let description = [{
    The gradient of the input of an `nn.max_pool` (same attributes): each
    output's gradient goes to the position of its window's maximum, the
    first one in row-major window order on ties (as PyTorch); a position
    that is the maximum of several windows receives the sum. Lowers to one
    generic finding each window's maximum position, then, when the windows
    tile the input (kernel = strides, no padding or dilation, the input a
    whole number of windows), one elementwise pass over the input that
    compares its window position with it; otherwise a pass over the
    padded input summing the windows that reach each position.

    ```mlir
    %dx = nn.max_pool_grad %dy, %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x6x14x14xf32>, tensor<?x6x28x28xf32>) -> tensor<?x6x28x28xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   DenseI64ArrayAttr:$kernel_shape,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations);
  let results = (outs NN_F32Tensor:$result);
}

def NN_AveragePoolGradOp : NN_Op<"average_pool_grad"> {
  let summary = "Gradient of nn.average_pool";
  let description = [{
    The gradient `[N, C, H, W]` (`input_size` = `[H, W]`) of the input of an
    `nn.average_pool` with the same attributes: each output's gradient,
    divided by its window's divisor (see `count_include_pad`), is spread
    over the window's positions inside the input.

    ```mlir
    %dx = nn.average_pool_grad %dy {input_size = array<i64: 8, 8>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, DenseI64ArrayAttr:$input_size,
                   DenseI64ArrayAttr:$kernel_shape,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs NN_F32Tensor:$result);
}

def NN_GatherGradOp : NN_Op<"gather_grad"> {
  let summary = "Gradient of nn.gather w.r.t. data: scatter-add";
  let description = [{
    The gradient of the `data` operand of an `nn.gather` along `axis` whose
    data dim `axis` has size `axis_size`: zeros of the data's shape into
    which each slice of `grad` is added at its (wrapped) index; an index
    that occurs several times receives the sum. Lowers to `scf.for` loops
    over the indices, each adding its slice of `grad` into the result in
    place (`tensor.extract_slice` / `linalg.generic` / `tensor.insert_slice`).
    A dynamic axis (`axis_size = -1`, e.g. the batch of flattened logits)
    takes its size at run time from `data`, the forward's data operand.

    ```mlir
    %dt = nn.gather_grad %dy, %ids {axis = 0 : i64, axis_size = 100 : i64}
        : (tensor<?x8x16xf32>, tensor<?x8xi64>) -> tensor<100x16xf32>
    %dl = nn.gather_grad %dy, %rows, %logits {axis = 0 : i64, axis_size = -1 : i64}
        : (tensor<?x10xf32>, tensor<?xi64>, tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, RankedTensorOf<[I64, I32]>:$indices,
                   Optional<NN_F32Tensor>:$data,
                   I64Attr:$axis, I64Attr:$axis_size);
  let hasVerifier = 1;
  let results = (outs NN_F32Tensor:$result);
}

def NN_GatherElementsGradOp : NN_Op<"gather_elements_grad"> {
  let summary = "Gradient of nn.gather_elements w.r.t. data: scatter-add";
  let description = [{
    Zeros of the shape of `data` (the forward's data operand, read for its
    shape only) into which each element of `grad` is added at the position
    its index names along `axis`; an index that occurs several times
    receives the sum. Lowers to `scf.for` loops over the indices, one
    element each.

    ```mlir
    %dd = nn.gather_elements_grad %dy, %ids, %table {axis = 1 : i64}
        : (tensor<?x16x8xf32>, tensor<?x16x8xi64>, tensor<?x40x8xf32>) -> tensor<?x40x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, RankedTensorOf<[I64, I32]>:$indices,
                   NN_F32Tensor:$data, I64Attr:$axis);
  let results = (outs NN_F32Tensor:$result);
}

def NN_GatherNDGradOp : NN_Op<"gather_nd_grad"> {
  let summary = "Gradient of nn.gather_nd w.r.t. data: scatter-add";
  let description = [{
    Zeros of the shape of `data` (the forward's data operand, read for its
    shape only) into which each slice of `grad` is added at the index tuple
    that gathered it; a tuple that occurs several times receives the sum.
    Lowers to `scf.for` loops over `grad`, one element each.

    ```mlir
    %dd = nn.gather_nd_grad %dy, %i, %x
        : (tensor<?x3x4xf32>, tensor<?x3x1xi64>, tensor<?x5x4xf32>) -> tensor<?x5x4xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, RankedTensorOf<[I64, I32]>:$indices,
                   NN_F32Tensor:$data, DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs NN_F32Tensor:$result);
}

def NN_ScatterNDDataGradOp : NN_Op<"scatter_nd_data_grad"> {
  let summary = "Gradient of nn.scatter_nd (reduction none) w.r.t. data";
  let description = [{
    `grad` with zeros where the forward wrote its updates (those positions
    of the data did not reach the result). `updates` is read for its shape
    only. Lowers to `scf.for` loops over the updates, one element each.

    ```mlir
    %dd = nn.scatter_nd_data_grad %dy, %i, %u
        : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, RankedTensorOf<[I64, I32]>:$indices,
                   NN_F32Tensor:$updates);
  let results = (outs NN_F32Tensor:$result);
}

def NN_EmbeddingBagGradOp : NN_Op<"embedding_bag_grad"> {
  let summary = "Gradient of nn.embedding_bag w.r.t. the table";
  let description = [{
    For an `nn.embedding_bag` of a table with `num_rows` rows: zeros of the
    table's shape into which row `b` of `grad` is added at every id of bag
    `b` (scaled by 1 / the bag's size for `"mean"`). For `"max"` each
    element goes to the bag's first row holding the maximum, found by
    comparing the table with the forward result: `max_inputs` is those two
    for `"max"` and empty otherwise. Lowers to `scf.for` loops over the bags and their ids adding
    rows in place.

    ```mlir
    %dt = nn.embedding_bag_grad %dy, %ids, %offsets {mode = "sum", num_rows = 100 : i64}
        : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<100x16xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, RankedTensorOf<[I64, I32]>:$ids,
                   RankedTensorOf<[I64, I32]>:$offsets,
                   Variadic<NN_F32Tensor>:$max_inputs, StrAttr:$mode,
                   DefaultValuedAttr<BoolAttr, "false">:$include_last_offset,
                   I64Attr:$num_rows);
  let results = (outs NN_F32Tensor:$table_grad);
  let hasVerifier = 1;
}

def NN_LayerNormGradOp : NN_Op<"layer_norm_grad"> {
  let summary = "Gradient of layer normalization";
  let description = [{
    For `nn.layer_norm` of `input` with `scale` over the dims
    `[axis, rank)`, and the upstream gradient `grad`: the gradient of the
    input, and those of the scale and the bias summed over the leading dims
    (shape: the normalized dims; the VJP reduces them further to the shapes
    of scale and bias when these broadcast).

    ```mlir
    %dx, %dg, %db = nn.layer_norm_grad %dy, %x, %g {axis = -1 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<16xf32>)
        -> (tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   NN_F32Tensor:$scale,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs NN_F32Tensor:$input_grad, NN_F32Tensor:$scale_grad,
                 NN_F32Tensor:$bias_grad);
}

#endif // AUTODIST_NN_CONV_OPS
