//===- NNOps.td - nn dialect ops ---------------------------*- tablegen -*-===//
//
// Compute ops with ONNX semantics. Every op infers its result type, verifies
// its operands, and carries its gradient and its lowering (see
// NNInterfaces.td); training-only ops (gradients, optimizer updates) are at
// the end.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_OPS
#define AUTODIST_NN_OPS

include "nn/NNDialect.td"
include "nn/NNInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NN_F32Tensor : RankedTensorOf<[F32]>;
def NN_F32Scalar : 0DTensorOf<[F32]>;
def NN_LabelTensor : 1DTensorOf<[I64]>;

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, !listconcat(traits, [
        Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>,
        DeclareOpInterfaceMethods<LowerToLinalgOpInterface>])> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

/// An op with ONNX semantics that autodiff can differentiate.
class NN_DiffOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<DifferentiableOpInterface>])>;

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def NN_GemmOp : NN_DiffOp<"gemm"> {
  let summary = "General matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    ONNX `Gemm`: `Y = alpha * op(A) * op(B) + beta * C` where `op(X)` is `X`
    or its transpose (`transA`, `transB`). `C` is optional and broadcasts
    unidirectionally to `[M, N]`.

    ```mlir
    %y = nn.gemm %x, %w, %b {transB = true}
        : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$a, NN_F32Tensor:$b,
                   Optional<NN_F32Tensor>:$c,
                   DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0">:$beta,
                   DefaultValuedAttr<BoolAttr, "false">:$transA,
                   DefaultValuedAttr<BoolAttr, "false">:$transB);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MatMulOp : NN_DiffOp<"matmul"> {
  let summary = "Matrix product of two 2-D tensors";
  let description = [{
    ONNX `MatMul` restricted to 2-D operands: `[M, K] x [K, N] -> [M, N]`.

    ```mlir
    %y = nn.matmul %x, %w : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$a, NN_F32Tensor:$b);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class NN_BinaryOp<string mnemonic, string onnxName, string symbol>
    : NN_DiffOp<mnemonic> {
  let summary = "Elementwise " # onnxName # " with numpy broadcasting";
  let description = [{
    ONNX `}] # onnxName # [{`: `lhs }] # symbol # [{ rhs` elementwise, with
    multidirectional (numpy) broadcasting.

    ```mlir
    %y = nn.}] # mnemonic # [{ %a, %b : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$lhs, NN_F32Tensor:$rhs);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_AddOp : NN_BinaryOp<"add", "Add", "+">;
def NN_SubOp : NN_BinaryOp<"sub", "Sub", "-">;
def NN_MulOp : NN_BinaryOp<"mul", "Mul", "*">;

def NN_ReluOp : NN_DiffOp<"relu", [SameOperandsAndResultType]> {
  let summary = "Rectified linear unit: max(x, 0)";
  let description = [{
    ONNX `Relu`.

    ```mlir
    %y = nn.relu %x : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input);
  let results = (outs NN_F32Tensor:$result);
}

def NN_IdentityOp : NN_DiffOp<"identity", [SameOperandsAndResultType]> {
  let summary = "Returns its input";
  let description = [{
    ONNX `Identity`.

    ```mlir
    %y = nn.identity %x : (tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input);
  let results = (outs NN_F32Tensor:$result);
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def NN_FlattenOp : NN_DiffOp<"flatten"> {
  let summary = "Flattens to 2-D around an axis";
  let description = [{
    ONNX `Flatten`: dims `[0, axis)` become the first result dim and dims
    `[axis, rank)` the second.

    ```mlir
    %y = nn.flatten %x {axis = 1 : i64} : (tensor<?x8x8xf32>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_ReshapeOp : NN_DiffOp<"reshape"> {
  let summary = "Reshape to a constant target shape";
  let description = [{
    ONNX `Reshape` whose shape input was a constant (the importer folds it
    into the `shape` attribute). As in ONNX, `0` copies the input dim and
    one `-1` is inferred from the element count.

    ```mlir
    %y = nn.reshape %x {shape = array<i64: -1, 32>} : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_ReduceSumOp : NN_Op<"reduce_sum"> {
  let summary = "Sum over the given axes";
  let description = [{
    ONNX `ReduceSum` with constant axes; reduced dims are kept with size 1
    when `keepdims` is true.

    ```mlir
    %y = nn.reduce_sum %x {axes = array<i64: 0>, keepdims = false}
        : (tensor<?x32xf32>) -> tensor<32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def NN_SoftmaxCrossEntropyLossOp : NN_DiffOp<"softmax_cross_entropy_loss"> {
  let summary = "Mean softmax cross-entropy of logits against class labels";
  let description = [{
    ONNX `SoftmaxCrossEntropyLoss` with `reduction = "mean"`: for logits
    `[N, C]` and integer labels `[N]` in `[0, C)`, the mean over the batch of
    `logsumexp(logits[n]) - logits[n, labels[n]]`.

    ```mlir
    %l = nn.softmax_cross_entropy_loss %logits, %labels
        : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$logits, NN_LabelTensor:$labels);
  let results = (outs NN_F32Scalar:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Training ops: gradients and optimizer updates
//===----------------------------------------------------------------------===//

def NN_ReluGradOp : NN_Op<"relu_grad", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Gradient of Relu: grad where input > 0, else 0";
  let description = [{
    ```mlir
    %dx = nn.relu_grad %dy, %x : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_SoftmaxCrossEntropyLossGradOp
    : NN_Op<"softmax_cross_entropy_loss_grad"> {
  let summary = "Gradient of the mean softmax cross-entropy w.r.t. logits";
  let description = [{
    `grad * (softmax(logits) - onehot(labels)) / N` for a scalar upstream
    gradient `grad`.

    ```mlir
    %d = nn.softmax_cross_entropy_loss_grad %g, %logits, %labels
        : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins NN_F32Scalar:$grad, NN_F32Tensor:$logits,
                   NN_LabelTensor:$labels);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_SgdUpdateOp : NN_Op<"sgd_update",
    [AllTypesMatch<["param", "result"]>,
     DeclareOpInterfaceMethods<OptimizerUpdateOpInterface>]> {
  let summary = "Plain SGD step: param - lr * grad";
  let description = [{
    ```mlir
    %p1 = nn.sgd_update %p, %g, %lr
        : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<f32>) -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$param, NN_F32Tensor:$grad,
                   NN_F32Scalar:$lr);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

#endif // AUTODIST_NN_OPS
