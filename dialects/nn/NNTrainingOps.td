//===- NNTrainingOps.td - dropout's training form ----------*- tablegen -*-===//
//
// Ops that only the training step uses: the random mask of dropout's
// training form and its application (included by NNOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_TRAINING_OPS
#define AUTODIST_NN_TRAINING_OPS

def NN_I64Scalar : 0DTensorOf<[I64]>;

def NN_DropoutMaskOp : NN_Op<"dropout_mask"> {
  let summary = "Dropout's keep mask from a stateless counter-based generator";
  let description = [{
    A mask shaped like `input` (only its shape is read) in which each
    element is false (dropped) with probability `ratio`. Element `i` (its
    row-major index in this rank's tensor) is kept iff
    `h(key + (i + 1) * G) >> 40 >= round(ratio * 2^24)`, where `h` is
    splitmix64's finalizer, `G = 0x9E3779B97F4A7C15`, and
    `key = h(h(h(h(seed + G) + rank * G) + step * G) + stream * G)` (64-bit
    wrapping arithmetic; `step` converted to an integer). The mask is thus
    a pure function of (seed, rank, step, stream, i): no generator state,
    and the same in the forward and the backward pass.

    ```mlir
    %m = nn.dropout_mask %x, %seed, %rank, %step {ratio = 3.000000e-01 : f32, stream = 0 : i64}
        : (tensor<?x32xf32>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<?x32xi1>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_I64Scalar:$seed,
                   NN_I64Scalar:$rank, NN_F32Scalar:$step, F32Attr:$ratio,
                   I64Attr:$stream);
  let results = (outs NN_BoolTensor:$mask);
  let hasVerifier = 1;
}

def NN_MaskedScaleOp : NN_DiffOp<"masked_scale"> {
  let summary = "Elementwise mask ? input * scale : 0";
  let description = [{
    Dropout's output from its mask: kept elements are multiplied by `scale`
    (`1 / (1 - ratio)`), dropped ones are 0. Its gradient is the same op on
    the upstream gradient with the same mask and scale.

    ```mlir
    %y = nn.masked_scale %x, %m {scale = 1.42857146 : f32}
        : (tensor<?x32xf32>, tensor<?x32xi1>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_BoolTensor:$mask,
                   F32Attr:$scale);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

#endif // AUTODIST_NN_TRAINING_OPS
