//===- NNDynamicShapeOps.td - run-time axes and bounds -*- tablegen -*-===//
//
// Unsqueeze, Squeeze, ReduceSum and Slice whose axes, starts, ends or steps
// are tensors known only at run time (graph inputs), not constants. The
// result shape is the one the model declares for the node's output (the
// `shape` attribute, -1 for a dynamic dim); the program computes the ONNX
// shape from the run-time values and stops with a message when it differs,
// so a declaration that does not hold is never a wrong answer. No gradient:
// these take index inputs that training models fold to constants.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_DYNAMIC_SHAPE_OPS
#define AUTODIST_NN_DYNAMIC_SHAPE_OPS

/// A 1-D int64 or int32 tensor of static length (axes, starts, ...).
def NN_IndexVector : 1DTensorOf<[I64, I32]>;

def NN_UnsqueezeDynamicOp : NN_Op<"unsqueeze_dynamic"> {
  let summary = "Inserts size-1 dims at axes read at run time";
  let description = [{
    ONNX `Unsqueeze` whose `axes` input is a run-time tensor: positions in
    the result (negative counts from the end), each in range and none
    repeated, else the program stops. The result has the declared `shape`,
    which the program checks against the one the axes give.

    ```mlir
    %y = nn.unsqueeze_dynamic %x, %axes {shape = array<i64: 3, 1, 4>}
        : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, NN_IndexVector:$axes,
                   DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_SqueezeDynamicOp : NN_Op<"squeeze_dynamic"> {
  let summary = "Removes the size-1 dims at axes read at run time";
  let description = [{
    ONNX `Squeeze` whose `axes` input is a run-time tensor (negative counts
    from the end): each must be in range, not repeated and a dim of size 1,
    else the program stops. The result has the declared `shape`, checked
    against the one the axes give.

    ```mlir
    %y = nn.squeeze_dynamic %x, %axes {shape = array<i64: 3, 4>}
        : (tensor<3x1x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, NN_IndexVector:$axes,
                   DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_ReduceSumDynamicOp : NN_Op<"reduce_sum_dynamic"> {
  let summary = "Sum over axes read at run time";
  let description = [{
    ONNX `ReduceSum` whose `axes` input is a run-time tensor of one or more
    entries (an empty one is known at import and is `nn.reduce_sum`):
    negative axes count from the end; out of range or repeated ones stop
    the program. Each input dim is summed or kept by what the axes say at
    run time (an `scf.if` per dim), then the result takes the declared
    `shape` (without the reduced dims unless `keepdims`), checked against
    the one the axes give.

    ```mlir
    %y = nn.reduce_sum_dynamic %x, %axes {keepdims = false, shape = array<i64: 3, 2>}
        : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_IndexVector:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DenseI64ArrayAttr:$shape);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_SliceDynamicOp : NN_Op<"slice_dynamic"> {
  let summary = "Slice by starts, ends, axes and steps read at run time";
  let description = [{
    ONNX `Slice` (opset 10+) whose `starts`, `ends`, `axes` and `steps` are
    run-time tensors of one length (the importer gives the ONNX defaults
    for absent `axes` and `steps` as constants). The bounds are clamped as
    ONNX says; an axis out of range or repeated, or a step of 0, stops the
    program. Element `i` of the result along axis `a` reads
    `start[a] + step[a] * i` (a `linalg.generic` with `tensor.extract`). The
    result has the declared `shape`, checked against the one the bounds
    give.

    ```mlir
    %y = nn.slice_dynamic %x, %starts, %ends, %axes, %steps {shape = array<i64: 3, 10, 5>}
        : (tensor<20x10x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>,
           tensor<2xi64>) -> tensor<3x10x5xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, NN_IndexVector:$starts,
                   NN_IndexVector:$ends, NN_IndexVector:$axes,
                   NN_IndexVector:$steps, DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_RangeOp : NN_Op<"range"> {
  let summary = "The integers start, start + delta, ... below limit, at run time";
  let description = [{
    ONNX `Range` of int64 or int32 scalars known only at run time (e.g.
    `torch.arange(batch)`, whose limit reads the dynamic batch): element
    `i` is `start + i * delta`, for `max(ceil((limit - start) / delta), 0)`
    elements; a `delta` of 0 stops the program. Ranges of constants are
    folded at import instead.

    ```mlir
    %r = nn.range %start, %limit, %delta
        : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64, I32]>:$start,
                   0DTensorOf<[I64, I32]>:$limit,
                   0DTensorOf<[I64, I32]>:$delta);
  let results = (outs 1DTensorOf<[I64, I32]>:$result);
  let hasVerifier = 1;
}

#endif // AUTODIST_NN_DYNAMIC_SHAPE_OPS
