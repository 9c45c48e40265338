//===- NNShapeOps.td - nn slicing, splitting, broadcasting -*- tablegen -*-===//
//
// The data-movement ops of ONNX that Transformer exports use: Slice, Split,
// Expand and Trilu, plus Slice's gradient. Every attribute is static (the
// importer folds ONNX's constant inputs into them); the dims they slice,
// split or mask must be static, other dims (the batch) may be dynamic.
// Included from NNOps.td, which defines NN_Op and the tensor constraints.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_SHAPE_OPS
#define AUTODIST_NN_SHAPE_OPS

def NN_SliceOp : NN_DiffOp<"slice"> {
  let summary = "Strided slice along some axes (ONNX Slice)";
  let description = [{
    ONNX `Slice` (opset 10+) with its inputs as attributes: along each of
    `axes` (negative counts from the end, no repeats) take
    `start, start + step, ...` up to `end` (exclusive). Negative `starts` and
    `ends` count from the end of the dim; out-of-range values are clamped
    (`ends` = INT64_MAX or INT64_MIN mean "to the end"), so a slice may be
    empty. `steps` are non-zero; a negative step walks backwards (`start`
    clamped to `[0, dim - 1]`, `end` to `[-1, dim - 1]`). The sliced dims
    must be static. Lowers to `tensor.extract_slice` (positive steps) or a
    `linalg.generic` reading `start + step * i` (a negative step); the
    gradient is `nn.slice_grad` (the result gradient inserted into zeros).

    ```mlir
    %y = nn.slice %x {starts = array<i64: 1>, ends = array<i64: -1>,
                      axes = array<i64: 1>, steps = array<i64: 2>}
        : (tensor<?x8xf32>) -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$axes,
                   DenseI64ArrayAttr:$steps);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_SliceGradOp : NN_Op<"slice_grad"> {
  let summary = "Gradient of a slice: the result gradient placed into zeros";
  let description = [{
    A tensor of zeros shaped like `input` (read only for its shape) with
    `grad` written to the positions the `nn.slice` with the same attributes
    read. Lowers to `linalg.fill` and `tensor.insert_slice` (a negative
    step reverses `grad` along that axis first).

    ```mlir
    %dx = nn.slice_grad %dy, %x {starts = array<i64: 1>, ends = array<i64: -1>,
                                 axes = array<i64: 1>, steps = array<i64: 2>}
        : (tensor<?x3xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_AnyTensor:$input,
                   DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$ends,
                   DenseI64ArrayAttr:$axes, DenseI64ArrayAttr:$steps);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_PadOp : NN_DiffOp<"pad"> {
  let summary = "Pads a tensor with a constant (ONNX Pad, constant mode)";
  let description = [{
    ONNX `Pad` in `constant` mode with non-negative pads (the importer
    slices first for negative ones): `pads` holds the count added before
    each dim, then the count added after each dim; the new positions hold
    `value`. A dynamic dim takes no padding. Lowers to `linalg.fill` and
    `tensor.insert_slice`; the gradient is the `nn.slice` of the result
    gradient where the input was placed.

    ```mlir
    %y = nn.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 2>, value = 0.0 : f32}
        : (tensor<?x3x4x4xf32>) -> tensor<?x3x6x6xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, DenseI64ArrayAttr:$pads,
                   F32Attr:$value);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_SplitOp : NN_DiffOp<"split"> {
  let summary = "Splits a tensor into consecutive chunks along an axis";
  let description = [{
    ONNX `Split`: result `i` is the next `sizes[i]` entries of `input` along
    `axis` (negative counts from the end). The sizes are positive and add up
    to the (static) dim; the importer derives them from the `split` input
    (opset 13), the `split` attribute (before 13), `num_outputs` (opset 18:
    chunks of `ceil(dim / n)`, the last one smaller) or equal parts. Lowers
    to `tensor.extract_slice`s; the gradient concatenates the results'
    gradients (zeros for an unused result).

    ```mlir
    %q, %k, %v = nn.split %qkv {axis = 2 : i64, sizes = array<i64: 16, 16, 16>}
        : (tensor<?x8x48xf32>) -> (tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>)
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, I64Attr:$axis,
                   DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<NN_AnyTensor>:$results);
  let hasVerifier = 1;
}

def NN_ExpandOp : NN_DiffOp<"expand"> {
  let summary = "Broadcasts a tensor to a shape (ONNX Expand)";
  let description = [{
    ONNX `Expand`: the result shape is the numpy broadcast of the input's
    shape and `shape` (bidirectional: a 1 in `shape` keeps the input's dim,
    and `shape` may have fewer dims than the input). A dynamic input dim can
    only meet a 1, or a -1. A -1 in `shape` is an entry known only at run
    time (the batch size read by `Shape`): it is read from `sizes`, the
    1-D int64 shape tensor of the ONNX node, which must then be given; a
    dynamic input dim against it gives the larger of the two. Lowers to a
    `linalg.generic` with broadcasting maps; the gradient sums over the
    broadcast dims.

    ```mlir
    %y = nn.expand %m {shape = array<i64: 4, 1, 8, 8>}
        : (tensor<1x1x8x8xf32>) -> tensor<4x1x8x8xf32>
    %c = nn.expand %cls, %s {shape = array<i64: -1, 1, 1>}
        : (tensor<1x1x8xf32>, tensor<3xi64>) -> tensor<?x1x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input,
                   Optional<RankedTensorOf<[I64]>>:$sizes,
                   DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_ShapeOp : NN_Op<"shape"> {
  let summary = "The dims of a tensor as a 1-D int64 tensor (ONNX Shape)";
  let description = [{
    ONNX `Shape`: dims `start` up to `end` (exclusive, normalized: 0 <=
    start <= end <= rank) of `input` as a `tensor<(end - start) x i64>`.
    The importer folds a Shape whose dims are static; this op carries the
    ones that read a dynamic dim (the batch) to the ops that need its value
    at run time (Expand, ConstantOfShape). No gradient.

    ```mlir
    %s = nn.shape %x {start = 0, end = 2} : (tensor<?x16xi64>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let hasVerifier = 1;
}

def NN_TriluOp : NN_DiffOp<"trilu", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Upper or lower triangle of the trailing matrices (ONNX Trilu)";
  let description = [{
    ONNX `Trilu` on a tensor of rank >= 2 (any element type): in every
    matrix of the last two dims, entry `(i, j)` is kept where `j - i >= k`
    (`upper`) or `j - i <= k` (lower) and is zero (false) elsewhere. `k` is
    the attribute, or `runtime_k` (an i64 scalar computed at run time, ONNX's
    `k` input given as a graph input) when that operand is present. Lowers
    to a `linalg.generic` comparing the loop indices; the gradient is the
    same mask applied to the result gradient.

    ```mlir
    %m = nn.trilu %x {upper = false, k = 0 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %u = nn.trilu %x, %k {upper = true} : (tensor<8x8xf32>, tensor<i64>) -> tensor<8x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input,
                   Optional<0DTensorOf<[I64]>>:$runtime_k,
                   DefaultValuedAttr<BoolAttr, "true">:$upper,
                   DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

#endif // AUTODIST_NN_SHAPE_OPS
