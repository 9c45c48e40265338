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

def NN_ConvOp : NN_Op<"conv"> {
  let summary = "2-D convolution (ONNX Conv) with groups, strides, dilations";
  let description = [{
    ONNX `Conv` on an NCHW input `[N, C, H, W]` with weights
    `[M, C / group, kH, kW]` and an optional bias `[M]`: output
    `[N, M, OH, OW]` with
    `OH = floor((H + pads[0] + pads[2] - dilations[0] * (kH - 1) - 1) / strides[0]) + 1`
    (likewise `OW`). Output channel `m` of group `g = m / (M / group)` reads
    input channels `[g * C / group, (g + 1) * C / group)`; `group = C` with
    one filter per channel is a depthwise convolution. Padding is zeros.
    Lowers to zero padding (fill + copy into a slice) and
    `linalg.conv_2d_nchw_fchw` (`group = 1`) or `linalg.conv_2d_ngchw_gfchw`
    on grouped views, then adds the bias (after the sum, as onnxruntime).

    ```mlir
    %y = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_F32Tensor:$weight,
                   Optional<NN_F32Tensor>:$bias,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MaxPoolOp : NN_Op<"max_pool"> {
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

def NN_AveragePoolOp : NN_Op<"average_pool"> {
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

def NN_GlobalAveragePoolOp : NN_Op<"global_average_pool"> {
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

def NN_BatchNormOp : NN_Op<"batch_norm"> {
  let summary = "Batch normalization in inference form";
  let description = [{
    ONNX `BatchNormalization` with `training_mode = 0`: for an input
    `[N, C, ...]` and per-channel `scale`, `bias`, `mean` and `var` (each
    `[C]`),
    `y = (x - mean) / sqrt(var + epsilon) * scale + bias`, computed as
    onnxruntime does: `s = scale / sqrt(var + epsilon)` (as
    `1 / sqrt(...) * scale`), `y = x * s + (bias - mean * s)`.

    ```mlir
    %y = nn.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.000000e-03 : f32}
        : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> tensor<?x4x8x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_F32Tensor:$scale,
                   NN_F32Tensor:$bias, NN_F32Tensor:$mean,
                   NN_F32Tensor:$var,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

#endif // AUTODIST_NN_CONV_OPS
