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
def NN_LabelTensor : RankedTensorOf<[I64]>;
def NN_BoolTensor : RankedTensorOf<[I1]>;
def NN_BoolScalar : 0DTensorOf<[I1]>;
/// Operands of a matrix product: f32, or a 16-bit float that
/// autodist-mixed-precision casts them to (accumulated in f32).
def NN_ContractionTensor : RankedTensorOf<[F32, BF16, F16]>;
/// Tensors that shape ops, comparisons, selects and casts accept: every
/// element type ONNX models bring that nn computes in its own type (f32 is
/// the only one that is differentiated; see backpropagate).
def NN_AnyTensor : RankedTensorOf<[F32, F64, F16, BF16, I64, I32, I16, I8, I1,
                                   UI64, UI32, UI16, UI8]>;
/// Tensors that arithmetic accepts: floats, and signed and unsigned integers
/// (wrapping), each computed in its own type (unsigned ones are made
/// signless for the lowering, see NNSignedness.h).
def NN_NumericTensor : RankedTensorOf<[F32, F64, F16, BF16, I64, I32, I16, I8,
                                       UI64, UI32, UI16, UI8]>;

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

def NN_GemmOp : NN_DiffOp<"gemm", [HalfOperandsOpInterface]> {
  let summary = "General matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    ONNX `Gemm`: `Y = alpha * op(A) * op(B) + beta * C` where `op(X)` is `X`
    or its transpose (`transA`, `transB`). `C` is optional and broadcasts
    unidirectionally to `[M, N]`. `A` and `B` are f32, or both bf16 or
    both f16 (autodist-mixed-precision): their products are exact in f32
    and accumulated in f32; `C` and the result are f32.

    ```mlir
    %y = nn.gemm %x, %w, %b {transB = true}
        : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_ContractionTensor:$a, NN_ContractionTensor:$b,
                   Optional<NN_F32Tensor>:$c,
                   DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0">:$beta,
                   DefaultValuedAttr<BoolAttr, "false">:$transA,
                   DefaultValuedAttr<BoolAttr, "false">:$transB);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MatMulOp : NN_DiffOp<"matmul", [HalfOperandsOpInterface]> {
  let summary = "Matrix product with numpy matmul semantics";
  let description = [{
    ONNX `MatMul` (numpy `matmul`): the last two dims of each operand are
    matrices, the leading (batch) dims broadcast; a 1-D `a` is a row vector
    and a 1-D `b` a column vector whose unit dim is dropped from the result.
    2-D x 2-D lowers to `linalg.matmul` (mapped to BLAS later), N-D x 2-D to
    a 2-D `linalg.matmul` on collapsed batch dims, anything else to a
    `linalg.generic` contraction. Every form is differentiable; the
    gradient of a broadcast operand is summed over the broadcast batch dims.
    The operands are f32, or both bf16 or both f16 (autodist-mixed-precision:
    products exact in f32, accumulated in f32, an f32 result; only the f32
    form is differentiated).

    ```mlir
    %y = nn.matmul %x, %w : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
    %z = nn.matmul %a, %b : (tensor<?x4x8xf32>, tensor<1x8x3xf32>) -> tensor<?x4x3xf32>
    ```
  }];
  let arguments = (ins NN_ContractionTensor:$a, NN_ContractionTensor:$b);
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
    multidirectional (numpy) broadcasting. Both operands are f32, or both
    i64 or i32 (wrapping on overflow); integer results get no gradient.

    ```mlir
    %y = nn.}] # mnemonic # [{ %a, %b : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs);
  let results = (outs NN_NumericTensor:$result);
  let hasVerifier = 1;
}

def NN_AddOp : NN_BinaryOp<"add", "Add", "+">;
def NN_SubOp : NN_BinaryOp<"sub", "Sub", "-">;
def NN_MulOp : NN_BinaryOp<"mul", "Mul", "*">;

/// A differentiable binary elementwise op with numpy broadcasting.
class NN_BroadcastBinaryOp<string mnemonic, string onnxName, string expr,
                           TypeConstraint type = NN_F32Tensor,
                           string types = "f32">
    : NN_DiffOp<mnemonic> {
  let summary = "Elementwise " # onnxName # " with numpy broadcasting";
  let description = [{
    ONNX `}] # onnxName # [{`: `}] # expr # [{` elementwise on }] # types #
    [{, with multidirectional (numpy) broadcasting.

    ```mlir
    %y = nn.}] # mnemonic # [{ %a, %b : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let hasVerifier = 1;
}

def NN_DivOp : NN_BroadcastBinaryOp<"div", "Div", "lhs / rhs", NN_NumericTensor,
    "f32, or on i64 truncating toward zero (a zero divisor gives 0 instead "
    "of trapping; the minimum divided by -1 wraps)">;
def NN_PowOp : NN_DiffOp<"pow"> {
  let summary = "Elementwise Pow with numpy broadcasting";
  let description = [{
    ONNX `Pow`: `pow(lhs, rhs)` elementwise with multidirectional (numpy)
    broadcasting; the result has the base's (`lhs`) type. On f32 (both
    f32) it is `powf` (a negative base with a non-integer exponent gives
    NaN). An i64 or i32 base takes an exponent of its own type, giving the
    exact integer power (wrapping on overflow, as numpy; a negative
    exponent gives 0, except for bases 1 and -1), or an f32 exponent,
    applied in f64 and truncated toward zero (numpy's `power` then
    `astype`). Only the f32 form has a gradient.

    ```mlir
    %y = nn.pow %a, %b : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    %n = nn.pow %i, %e : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs);
  let results = (outs NN_NumericTensor:$result);
  let hasVerifier = 1;
}
def NN_MinOp : NN_BroadcastBinaryOp<"min", "Min", "min(lhs, rhs)",
    NN_NumericTensor, "f32 (NaN propagates; the gradient of a tie is split "
    "in halves, as PyTorch's minimum) or i64 (signed)">;
def NN_MaxOp : NN_BroadcastBinaryOp<"max", "Max", "max(lhs, rhs)",
    NN_NumericTensor, "f32 (NaN propagates; the gradient of a tie is split "
    "in halves, as PyTorch's maximum) or i64 (signed)">;

def NN_ModOp : NN_Op<"mod"> {
  let summary = "Elementwise remainder with numpy broadcasting";
  let description = [{
    ONNX `Mod`. With `fmod = false` (i64 only) the remainder takes the sign
    of the divisor, as Python's `%`; with `fmod = true` it takes the sign of
    the dividend, as C's `fmod` (required for f32). A zero divisor gives 0
    on i64 (instead of trapping) and NaN on f32. No gradient.

    ```mlir
    %r = nn.mod %a, %b {fmod = false} : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs,
                   BoolAttr:$fmod);
  let results = (outs NN_NumericTensor:$result);
  let hasVerifier = 1;
}

def NN_LogicalOp : NN_Op<"logical"> {
  let summary = "Elementwise boolean and/or/xor with numpy broadcasting";
  let description = [{
    ONNX `And`, `Or` and `Xor` on `i1` tensors (`kind` one of `and`, `or`,
    `xor`), with numpy broadcasting.

    ```mlir
    %m = nn.logical %a, %b {kind = "and"} : (tensor<?x4xi1>, tensor<4xi1>) -> tensor<?x4xi1>
    ```
  }];
  let arguments = (ins NN_BoolTensor:$lhs, NN_BoolTensor:$rhs,
                   StrAttr:$kind);
  let results = (outs NN_BoolTensor:$result);
  let hasVerifier = 1;
}

def NN_NotOp : NN_Op<"not", [SameOperandsAndResultType]> {
  let summary = "Elementwise boolean negation";
  let description = [{
    ONNX `Not` on an `i1` tensor.

    ```mlir
    %m = nn.not %a : (tensor<?x4xi1>) -> tensor<?x4xi1>
    ```
  }];
  let arguments = (ins NN_BoolTensor:$input);
  let results = (outs NN_BoolTensor:$result);
}

def NN_CumSumOp : NN_DiffOp<"cumsum", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Cumulative sum along an axis (ONNX CumSum)";
  let description = [{
    ONNX `CumSum`: `result[..., j, ...] = sum of input[..., i, ...]` over
    `i <= j` along `axis` (non-negative); `exclusive` sums over `i < j`,
    `reverse` runs from the end. Any numeric type (integers wrap). Lowers
    to a loop over the axis adding one slice per step; the gradient is the
    cumulative sum of the upstream gradient in the opposite direction.

    The axis may instead be computed at run time: `runtime_axis`, an i64 or
    i32 scalar in [-rank, rank) (negative counts from the end; outside, the
    program stops), when `axis` is ignored. The result's shape does not
    depend on it; the lowering switches (`scf.index_switch`) over the
    rank's axes.

    ```mlir
    %y = nn.cumsum %m {axis = 1 : i64, exclusive = false, reverse = false}
        : (tensor<?x16xi32>) -> tensor<?x16xi32>
    %z = nn.cumsum %x, %a {axis = 0 : i64, exclusive = false, reverse = true}
        : (tensor<4x16xf64>, tensor<i32>) -> tensor<4x16xf64>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$input,
                   Optional<0DTensorOf<[I64, I32]>>:$runtime_axis,
                   I64Attr:$axis, BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs NN_NumericTensor:$result);
  let hasVerifier = 1;
}

/// A unary elementwise op (f32 unless `type` says otherwise).
class NN_UnaryOp<string mnemonic, string onnxName, string expr,
                 TypeConstraint type = NN_F32Tensor>
    : NN_DiffOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "Elementwise " # onnxName;
  let description = [{
    ONNX `}] # onnxName # [{`: `}] # expr # [{` elementwise.

    ```mlir
    %y = nn.}] # mnemonic # [{ %x : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins type:$input);
  let results = (outs type:$result);
}

def NN_SqrtOp : NN_UnaryOp<"sqrt", "Sqrt", "sqrt(x)">;
def NN_NegOp : NN_UnaryOp<"neg", "Neg", "-x (f32, or i64 wrapping)",
                          NN_NumericTensor>;
def NN_AbsOp : NN_UnaryOp<"abs", "Abs",
    "|x| (f32, gradient `g sign(x)`, 0 at 0 as PyTorch; or i64 wrapping)",
    NN_NumericTensor>;
def NN_ExpOp : NN_UnaryOp<"exp", "Exp", "exp(x)">;
def NN_LogOp : NN_UnaryOp<"log", "Log", "log(x)">;
def NN_SigmoidOp : NN_UnaryOp<"sigmoid", "Sigmoid", "1 / (1 + exp(-x))">;
def NN_TanhOp : NN_UnaryOp<"tanh", "Tanh", "tanh(x)">;
def NN_ErfOp : NN_UnaryOp<"erf", "Erf",
    "the error function erf(x) (a rational approximation accurate to a few "
    "float ulp)">;

def NN_LeakyReluOp : NN_DiffOp<"leaky_relu", [SameOperandsAndResultType]> {
  let summary = "Leaky rectified linear unit";
  let description = [{
    ONNX `LeakyRelu`: `x` where `x >= 0`, else `alpha * x`.

    ```mlir
    %y = nn.leaky_relu %x {alpha = 2.000000e-01 : f32} : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DefaultValuedAttr<F32Attr, "0.01">:$alpha);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_ClipOp : NN_DiffOp<"clip", [SameOperandsAndResultType]> {
  let summary = "Clamp to [min, max]";
  let description = [{
    ONNX `Clip` with constant bounds: `min(max(x, min), max)` elementwise,
    NaN propagating (as `arith.maximumf` / `arith.minimumf`). An absent
    bound is infinite; `min <= max` and neither is NaN. PyTorch exports
    ReLU6 as `min = 0, max = 6`. The gradient (`nn.clip_grad`) passes where
    `min < x < max` only, as PyTorch's hardtanh / ReLU6.

    ```mlir
    %y = nn.clip %x {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
        : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
      DefaultValuedAttr<F32Attr, "-std::numeric_limits<float>::infinity()">:$min,
      DefaultValuedAttr<F32Attr, "std::numeric_limits<float>::infinity()">:$max);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_HardSigmoidOp : NN_DiffOp<"hard_sigmoid", [SameOperandsAndResultType]> {
  let summary = "Piecewise-linear sigmoid: max(0, min(1, alpha * x + beta))";
  let description = [{
    ONNX `HardSigmoid` (`alpha` and `beta` finite). PyTorch's
    `nn.Hardsigmoid` is `alpha = 1/6, beta = 0.5`.

    ```mlir
    %y = nn.hard_sigmoid %x {alpha = 0.166666672 : f32}
        : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.5">:$beta);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_HardSwishOp : NN_DiffOp<"hard_swish", [SameOperandsAndResultType]> {
  let summary = "x * hard_sigmoid(x) with alpha = 1/6, beta = 0.5";
  let description = [{
    ONNX `HardSwish` (opset 14): `x * max(0, min(1, x / 6 + 0.5))`, as
    PyTorch's `nn.Hardswish`. Types are its only constraint (it has no
    attributes).

    ```mlir
    %y = nn.hard_swish %x : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input);
  let results = (outs NN_F32Tensor:$result);
}

def NN_GeluOp : NN_DiffOp<"gelu", [SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    ONNX `Gelu` (opset 20): `0.5 * x * (1 + erf(x / sqrt(2)))`, or with
    `approximate = "tanh"`
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %y = nn.gelu %x {approximate = "tanh"} : (tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_EqualOp : NN_Op<"equal"> {
  let summary = "Elementwise equality with numpy broadcasting";
  let description = [{
    ONNX `Equal`: `lhs == rhs` elementwise (ordered: NaN is unequal to
    everything), with numpy broadcasting; both operands have the same
    element type and the result is `i1`.

    ```mlir
    %m = nn.equal %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$lhs, NN_AnyTensor:$rhs);
  let results = (outs NN_BoolTensor:$result);
  let hasVerifier = 1;
}

def NN_CompareOp : NN_Op<"compare"> {
  let summary = "Elementwise ordering comparison with numpy broadcasting";
  let description = [{
    ONNX `Less`, `LessOrEqual`, `Greater` and `GreaterOrEqual`:
    `lhs <predicate> rhs` elementwise, `predicate` one of `lt`, `le`, `gt`,
    `ge`, with numpy broadcasting. Both operands are f32 or both i64
    (signed); the result is `i1`. Float comparisons are ordered: any with
    NaN is false, as in ONNX and numpy.

    ```mlir
    %m = nn.compare %a, %b {predicate = "lt"} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$lhs, NN_AnyTensor:$rhs,
                   StrAttr:$predicate);
  let results = (outs NN_BoolTensor:$result);
  let hasVerifier = 1;
}

def NN_WhereOp : NN_DiffOp<"where"> {
  let summary = "Elementwise select with numpy broadcasting";
  let description = [{
    ONNX `Where`: `condition ? x : y` elementwise, all three operands
    broadcast together (numpy rules); `x` and `y` have the same element
    type, which is the result's.

    ```mlir
    %y = nn.where %c, %a, %b : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins NN_BoolTensor:$condition, NN_AnyTensor:$x,
                   NN_AnyTensor:$y);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_CastOp : NN_DiffOp<"cast"> {
  let summary = "Elementwise conversion between f32, i64, i32 and i1";
  let description = [{
    ONNX `Cast` between `f32`, `i64`, `i32` and `i1` (`to` is the result
    element type). f32 to an integer truncates toward zero; i64 to i32
    wraps, i32 to i64 sign-extends; to `i1` is `x != 0` (NaN is true); from
    `i1` gives 0 or 1.

    ```mlir
    %y = nn.cast %m {to = f32} : (tensor<?x4xi1>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, TypeAttr:$to);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_DropoutOp : NN_DiffOp<"dropout",
    [DeclareOpInterfaceMethods<StochasticOpInterface>]> {
  let summary = "Dropout (inference form: the identity)";
  let description = [{
    ONNX `Dropout`. This inference form is the identity: `output` is the
    input unchanged and `mask` is all true (as `torch.nn.Dropout` in eval
    mode), whatever ONNX's `training_mode`. `ratio` (the probability of
    dropping an element, `0 <= ratio < 1`) only matters in the training
    form (StochasticOpInterface), which `autodist-build-train-step` builds:
    `nn.dropout_mask` and `nn.masked_scale` with keep-scale
    `1 / (1 - ratio)`. A model may give the ratio at run time (a graph
    input): `runtime_ratio`, a scalar, which the inference form does not
    read; the training form needs a constant ratio and refuses it.

    ```mlir
    %y, %mask = nn.dropout %x {ratio = 3.000000e-01 : f32}
        : (tensor<?x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xi1>)
    %z, %m = nn.dropout %x, %r
        : (tensor<?x32xf32>, tensor<f32>) -> (tensor<?x32xf32>, tensor<?x32xi1>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   Optional<NN_F32Tensor>:$runtime_ratio,
                   DefaultValuedAttr<F32Attr, "0.5">:$ratio);
  let results = (outs NN_F32Tensor:$output, NN_BoolTensor:$mask);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalizations along an axis
//===----------------------------------------------------------------------===//

class NN_SoftmaxLikeOp<string mnemonic, string onnxName, string expr>
    : NN_DiffOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = onnxName # " along one axis";
  let description = [{
    ONNX `}] # onnxName # [{` (opset 13 semantics): `}] # expr # [{` along
    `axis` (negative counts from the end; default -1), computed stably
    (the max along the axis is subtracted first).

    ```mlir
    %y = nn.}] # mnemonic # [{ %x {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_SoftmaxOp : NN_SoftmaxLikeOp<"softmax", "Softmax",
                                    "exp(x) / sum(exp(x))">;
def NN_LogSoftmaxOp : NN_SoftmaxLikeOp<"log_softmax", "LogSoftmax",
                                       "x - log(sum(exp(x)))">;

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
  let arguments = (ins NN_AnyTensor:$input);
  let results = (outs NN_AnyTensor:$result);
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
  let arguments = (ins NN_AnyTensor:$input,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_ReshapeOp : NN_DiffOp<"reshape"> {
  let summary = "Reshape to a constant target shape";
  let description = [{
    ONNX `Reshape` whose shape input was a constant (the importer folds it
    into the `shape` attribute). As in ONNX, `0` copies the input dim and
    one `-1` is inferred from the element count. Any element type (f32,
    int64 token ids, bool masks); the result keeps it.

    When the ONNX shape reads the dynamic batch next to a `-1` (`x.view(b,
    -1, heads, d)`), the importer resolves it assuming the batch entry is
    the input's dynamic dim, and passes the run-time shape as `sizes`: the
    program then checks that every entry of `sizes` (a `0` meaning the
    input's dim, a `-1` skipped) equals the result's dim, and aborts with a
    message otherwise, so the assumption never gives a wrong answer.

    ```mlir
    %y = nn.reshape %x {shape = array<i64: -1, 32>} : (tensor<?x32xf32>) -> tensor<?x32xf32>
    %h = nn.reshape %x, %s {shape = array<i64: -1, 16, 2, 8>}
        : (tensor<?x16x16xf32>, tensor<4xi64>) -> tensor<?x16x2x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input,
                   Optional<RankedTensorOf<[I64]>>:$sizes,
                   DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

/// A reduction over constant axes with ONNX's keepdims and
/// noop_with_empty_axes.
class NN_ReduceOp<string mnemonic, string onnxName, string what>
    : NN_DiffOp<mnemonic> {
  let summary = what # " over the given axes";
  let description = [{
    ONNX `}] # onnxName # [{` with constant axes (negative counts from the
    end; repeats are errors). Reduced dims are kept with size 1 when
    `keepdims` is true (the default). Empty `axes` reduce over all dims,
    or, with `noop_with_empty_axes`, make the op the identity.

    ```mlir
    %y = nn.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = false}
        : (tensor<?x32xf32>) -> tensor<?xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$noop_with_empty_axes);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduced dims, non-negative and sorted (empty for a no-op).
    ::llvm::SmallVector<int64_t> getReducedDims();
  }];
}

def NN_ReduceSumOp : NN_ReduceOp<"reduce_sum", "ReduceSum", "Sum">;
def NN_ReduceMeanOp : NN_ReduceOp<"reduce_mean", "ReduceMean", "Mean">;
def NN_ReduceMaxOp : NN_ReduceOp<"reduce_max", "ReduceMax", "Maximum">;

/// The element types ArgMax and ArgMin compare: floats and signed integers.
def NN_OrderedTensor : RankedTensorOf<[F32, F64, F16, BF16, I64, I32, I16, I8]>;

class NN_ArgOp<string mnemonic, string onnxName, string which>
    : NN_Op<mnemonic> {
  let summary = "Index of the " # which # " along an axis";
  let description = [{
    ONNX `}] # onnxName # [{`: the int64 index along `axis` (non-negative,
    the importer resolves negative ones) of the }] # which # [{ of each
    slice, the first one among ties, or the last with `select_last_index`.
    A NaN counts as the }] # which # [{ (the first NaN, as numpy and
    PyTorch). The axis is kept with size 1 when `keepdims` is true (the
    default). No gradient: the result is an index.

    ```mlir
    %i = nn.}] # mnemonic # [{ %x {axis = 1 : i64, keepdims = false}
        : (tensor<?x10xf32>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins NN_OrderedTensor:$input, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let hasVerifier = 1;
}

def NN_ArgMaxOp : NN_ArgOp<"arg_max", "ArgMax", "maximum">;
def NN_ArgMinOp : NN_ArgOp<"arg_min", "ArgMin", "minimum">;

def NN_TransposeOp : NN_DiffOp<"transpose"> {
  let summary = "Permutes the dims";
  let description = [{
    ONNX `Transpose`: result dim `i` is input dim `perm[i]` (the importer
    fills in ONNX's default, the reversed dims).

    ```mlir
    %y = nn.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<?x4x8xf32>) -> tensor<?x8x4xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_SqueezeOp : NN_DiffOp<"squeeze"> {
  let summary = "Removes size-1 dims";
  let description = [{
    ONNX `Squeeze` with constant axes (negative counts from the end); each
    must be a static dim of size 1 (the importer turns ONNX's "no axes"
    into the list of static size-1 dims).

    ```mlir
    %y = nn.squeeze %x {axes = array<i64: 1>} : (tensor<?x1x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_UnsqueezeOp : NN_DiffOp<"unsqueeze"> {
  let summary = "Inserts size-1 dims";
  let description = [{
    ONNX `Unsqueeze` with constant axes, positions in the result
    (negative counts from the end of the result).

    ```mlir
    %y = nn.unsqueeze %x {axes = array<i64: 1, -1>} : (tensor<?x8xf32>) -> tensor<?x1x8x1xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_ConcatOp : NN_DiffOp<"concat"> {
  let summary = "Concatenates tensors along an axis";
  let description = [{
    ONNX `Concat`: operands of the same rank and element type, equal in
    every dim but `axis` (negative counts from the end).

    ```mlir
    %y = nn.concat %a, %b {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x7xf32>
    ```
  }];
  let arguments = (ins Variadic<NN_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Embeddings and normalization
//===----------------------------------------------------------------------===//

def NN_GatherOp : NN_DiffOp<"gather",
    [DeclareOpInterfaceMethods<SparseAccessOpInterface>]> {
  let summary = "Gathers slices of data along an axis at integer indices";
  let description = [{
    ONNX `Gather`: `result[i..., j..., k...] = data[i..., indices[j...], k...]`
    with `j` the indices' dims at `axis`; negative indices count from the end.
    Along axis 0 it is an embedding lookup: the data operand is read
    sparsely (SparseAccessOpInterface).

    ```mlir
    %e = nn.gather %table, %ids {axis = 0 : i64}
        : (tensor<100x16xf32>, tensor<?x8xi64>) -> tensor<?x8x16xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$data, RankedTensorOf<[I64, I32]>:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_GatherElementsOp : NN_DiffOp<"gather_elements"> {
  let summary = "Gathers elements of data at per-element indices along an axis";
  let description = [{
    ONNX `GatherElements` (`torch.gather`): the result has the indices'
    shape and `result[i..., j, k...] = data[i..., indices[i..., j, k...],
    k...]` with `j` at `axis`; negative indices count from the end. The
    data's dim `axis` must be static; the indices' other dims may be smaller
    than the data's. Indices out of range stop the program (checked where
    they are read).

    ```mlir
    %y = nn.gather_elements %table, %ids {axis = 1 : i64}
        : (tensor<?x40x8xf32>, tensor<?x16x8xi64>) -> tensor<?x16x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$data, RankedTensorOf<[I64, I32]>:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_GatherNDOp : NN_DiffOp<"gather_nd"> {
  let summary = "Gathers slices of data at index tuples (ONNX GatherND)";
  let description = [{
    ONNX `GatherND`: with `b = batch_dims` and `k` the indices' last dim,
    `result[i..., s...] = data[i_0..i_{b-1}, indices[i..., 0..k-1], s...]`,
    of shape `indices.shape[:-1] + data.shape[b + k:]`; the first `b` dims
    of data and indices are batch dims they share. Negative indices count
    from the end; indices out of range stop the program. The data dims the
    indices address must be static.

    ```mlir
    %y = nn.gather_nd %x, %i : (tensor<?x5x4xf32>, tensor<?x3x1xi64>) -> tensor<?x3x4xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$data, RankedTensorOf<[I64, I32]>:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_ScatterNDOp : NN_DiffOp<"scatter_nd"> {
  let summary = "Writes slices into a copy of data at index tuples (ONNX ScatterND)";
  let description = [{
    ONNX `ScatterND` on run-time values: a copy of `data` in which, with
    `k` the indices' last dim, `result[indices[i..., :], s...]` becomes
    `updates[i..., s...]` (`reduction = "none"`) or is combined with it
    (`"add"`, `"mul"`, `"max"`, `"min"`), index tuples in row-major order.
    `updates` has the shape `indices.shape[:-1] + data.shape[k:]`. Negative
    indices count from the end; out-of-range ones stop the program.
    Gradients (float32) for `"none"` (duplicate index tuples are undefined
    in ONNX; each position's last writer gets it) and `"add"`.

    ```mlir
    %y = nn.scatter_nd %x, %i, %u {reduction = "add"}
        : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$data, RankedTensorOf<[I64, I32]>:$indices,
                   NN_AnyTensor:$updates,
                   DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
}

def NN_EmbeddingBagOp : NN_DiffOp<"embedding_bag",
    [DeclareOpInterfaceMethods<SparseAccessOpInterface,
                               ["getBagOffsetsOperand",
                                "bagOffsetsIncludeEnd"]>]> {
  let summary = "Sums, averages or maxes the table rows of variable-size bags";
  let description = [{
    PyTorch's `nn.EmbeddingBag` with 1-D ids and per-bag offsets: bag `b`
    is `ids[offsets[b] : end_b]`, with `end_b = offsets[b + 1]`, or, for the
    last bag, the number of ids (or, with `include_last_offset`, the last
    offset, which then ends the bags rather than starting one: there are
    `size(offsets) - 1` bags). Row `b` of the result reduces the table rows
    of bag `b` by `mode`: `"sum"`, `"mean"` or `"max"` (per element). An
    empty bag gives zeros, as in PyTorch. Offsets must be non-decreasing
    within `[0, size(ids)]` and ids within the table (negative ids count
    from the end); both are checked at run time.

    The table is read sparsely (SparseAccessOpInterface); the ids are the
    runtime's ragged input whose per-sample starts are the offsets.

    ```mlir
    %e = nn.embedding_bag %table, %ids, %offsets {mode = "mean"}
        : (tensor<100x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$weight, RankedTensorOf<[I64, I32]>:$ids,
                   RankedTensorOf<[I64, I32]>:$offsets, StrAttr:$mode,
                   DefaultValuedAttr<BoolAttr, "false">:$include_last_offset);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_LayerNormOp : NN_DiffOp<"layer_norm"> {
  let summary = "Layer normalization over the trailing dims";
  let description = [{
    ONNX `LayerNormalization` (opset 17): normalizes over the dims
    `[axis, rank)` to zero mean and unit variance (`epsilon` added to the
    variance), then scales and shifts by `scale` and the optional `bias`,
    which broadcast to those dims.

    ```mlir
    %y = nn.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x8x16xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_F32Tensor:$scale,
                   Optional<NN_F32Tensor>:$bias,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def NN_SoftmaxCrossEntropyLossOp : NN_DiffOp<"softmax_cross_entropy_loss"> {
  let summary = "Mean softmax cross-entropy of logits against class labels";
  let description = [{
    Softmax cross-entropy with `reduction = "mean"`, classes on the last
    dim: for logits `[N..., C]` and integer labels `[N...]` in `[0, C)`, the
    mean over all positions `n` of `logsumexp(logits[n]) - logits[n,
    labels[n]]` (a batch of sequences `[B, T, V]` with labels `[B, T]` is
    the mean over tokens, as language models train).

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
  let summary = "Gradient of Relu / LeakyRelu: grad where input > 0, else alpha * grad";
  let description = [{
    `alpha` is 0 for Relu and LeakyRelu's slope otherwise (at `input = 0`
    the gradient is `alpha * grad`, as in PyTorch).

    ```mlir
    %dx = nn.relu_grad %dy, %x : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   DefaultValuedAttr<F32Attr, "0.0">:$alpha);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_GeluGradOp : NN_Op<"gelu_grad", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Gradient of Gelu: grad * gelu'(input)";
  let description = [{
    With `approximate = "none"`: `grad * (Phi(x) + x * phi(x))` (`Phi`,
    `phi` the standard normal CDF and density); with `"tanh"` the
    derivative of the tanh form.

    ```mlir
    %dx = nn.gelu_grad %dy, %x {approximate = "tanh"}
        : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_ClipGradOp : NN_Op<"clip_grad", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Gradient of Clip: grad where min < input < max, else 0";
  let description = [{
    Zero at the bounds themselves, as PyTorch's `hardtanh_backward` (ReLU6's
    gradient), not `clamp`'s (which passes at the bounds); a NaN input
    passes `grad`, as there. `min <= max`, neither NaN.

    ```mlir
    %dx = nn.clip_grad %dy, %x {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
        : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
      DefaultValuedAttr<F32Attr, "-std::numeric_limits<float>::infinity()">:$min,
      DefaultValuedAttr<F32Attr, "std::numeric_limits<float>::infinity()">:$max);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_HardSigmoidGradOp : NN_Op<"hard_sigmoid_grad",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "Gradient of HardSigmoid: alpha * grad where 0 < alpha * input + beta < 1, else 0";
  let description = [{
    Zero at both kinks, as PyTorch's `hardsigmoid_backward`.

    ```mlir
    %dx = nn.hard_sigmoid_grad %dy, %x {alpha = 0.166666672 : f32}
        : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input,
                   DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.5">:$beta);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_HardSwishGradOp : NN_Op<"hard_swish_grad",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "Gradient of HardSwish, as PyTorch's hardswish_backward";
  let description = [{
    0 where `input < -3`, `grad * (input / 3 + 0.5)` where
    `-3 <= input <= 3`, `grad` where `input > 3`.

    ```mlir
    %dx = nn.hard_swish_grad %dy, %x : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$input);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_SoftmaxGradOp : NN_Op<"softmax_grad",
    [AllTypesMatch<["output", "result"]>]> {
  let summary = "Gradient of Softmax / LogSoftmax from its output";
  let description = [{
    From the forward result `y` along `axis`: `y * (grad - sum(grad * y))`
    for Softmax, or with `log` (LogSoftmax) `grad - exp(y) * sum(grad)`.

    ```mlir
    %dx = nn.softmax_grad %dy, %y {axis = -1 : i64}
        : (tensor<?x10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, NN_F32Tensor:$output,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$log);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_BroadcastLikeOp : NN_Op<"broadcast_like"> {
  let summary = "Broadcasts a tensor to the shape of another";
  let description = [{
    `input` broadcast (numpy rules) to the shape of `like`, of which only
    the shape is read; with `mean`, divided by the number of copies of each
    element (`numel(like) / numel(input)`, at run time for dynamic dims).
    The gradient of ReduceSum (and, with `mean`, of ReduceMean).

    ```mlir
    %dx = nn.broadcast_like %dy, %x {mean = true}
        : (tensor<?x1xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$input, NN_AnyTensor:$like,
                   DefaultValuedAttr<BoolAttr, "false">:$mean);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_ConcatGradOp : NN_Op<"concat_grad"> {
  let summary = "Splits the gradient of a concat into its operands' gradients";
  let description = [{
    Result `i` is the slice of `grad` along `axis` that operand `i` of the
    concat (`inputs`, read only for their shapes) was copied to.

    ```mlir
    %da, %db = nn.concat_grad %dy, %a, %b {axis = 1 : i64}
        : (tensor<?x7xf32>, tensor<?x4xf32>, tensor<?x3xf32>) -> (tensor<?x4xf32>, tensor<?x3xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$grad, Variadic<NN_AnyTensor>:$inputs,
                   I64Attr:$axis);
  let results = (outs Variadic<NN_F32Tensor>:$results);
  let hasVerifier = 1;
}

def NN_SoftmaxCrossEntropyLossGradOp
    : NN_Op<"softmax_cross_entropy_loss_grad"> {
  let summary = "Gradient of the mean softmax cross-entropy w.r.t. logits";
  let description = [{
    `grad * (softmax(logits) - onehot(labels)) / N` for a scalar upstream
    gradient `grad`, `N` the number of positions (all dims but the last).

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
  let summary = "Plain SGD step: param - lr * (grad + weight_decay * param)";
  let description = [{
    With `hold` (a tensor<i1>) true, every result is its input unchanged
    (the parameter and its optimizer state): a step that changes nothing (a
    non-finite fp16 gradient, the staleness pipeline's step with nothing in
    flight) in the update's own loop, instead of a select over each result.

    ```mlir
    %p1 = nn.sgd_update %p, %g, %lr
        : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<f32>) -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$param, NN_F32Tensor:$grad,
                   NN_F32Scalar:$lr, Optional<NN_BoolScalar>:$hold,
                   DefaultValuedAttr<F32Attr, "0.0">:$weight_decay);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

include "nn/NNConvOps.td"
include "nn/NNShapeOps.td"
include "nn/NNDynamicShapeOps.td"
include "nn/NNTrainingOps.td"

def NN_MseLossOp : NN_DiffOp<"mse_loss"> {
  let summary = "Mean squared error";
  let description = [{
    `mean((prediction - target)^2)` over all elements.

    ```mlir
    %l = nn.mse_loss %y, %t : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins NN_F32Tensor:$prediction, NN_F32Tensor:$target);
  let results = (outs NN_F32Scalar:$result);
  let hasVerifier = 1;
}

def NN_MseLossGradOp : NN_Op<"mse_loss_grad"> {
  let summary = "Gradient of the mean squared error w.r.t. the prediction";
  let description = [{
    `grad * 2 * (prediction - target) / numel`.

    ```mlir
    %d = nn.mse_loss_grad %g, %y, %t
        : (tensor<f32>, tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    ```
  }];
  let arguments = (ins NN_F32Scalar:$grad, NN_F32Tensor:$prediction,
                   NN_F32Tensor:$target);
  let results = (outs NN_F32Tensor:$result);
  let hasVerifier = 1;
}

def NN_MomentumUpdateOp : NN_Op<"momentum_update",
    [AllTypesMatch<["param", "grad", "velocity", "new_param", "new_velocity"]>,
     DeclareOpInterfaceMethods<OptimizerUpdateOpInterface>]> {
  let summary = "SGD with momentum (optionally Nesterov), as torch.optim.SGD";
  let description = [{
    With `g = grad + weight_decay * param`:
    `v' = momentum * v + g`; the step is `g + momentum * v'` (Nesterov) or
    `v'`; `param' = param - lr * step`.
    With `hold` (a tensor<i1>) true, every result is its input unchanged
    (the parameter and its optimizer state): a step that changes nothing (a
    non-finite fp16 gradient, the staleness pipeline's step with nothing in
    flight) in the update's own loop, instead of a select over each result.

    ```mlir
    %p1, %v1 = nn.momentum_update %p, %g, %v, %lr {momentum = 0.9 : f32}
        : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>)
        -> (tensor<10xf32>, tensor<10xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$param, NN_F32Tensor:$grad,
                   NN_F32Tensor:$velocity, NN_F32Scalar:$lr,
                   Optional<NN_BoolScalar>:$hold,
                   DefaultValuedAttr<F32Attr, "0.9">:$momentum,
                   DefaultValuedAttr<BoolAttr, "false">:$nesterov,
                   DefaultValuedAttr<F32Attr, "0.0">:$weight_decay);
  let results = (outs NN_F32Tensor:$new_param, NN_F32Tensor:$new_velocity);
  let hasVerifier = 1;
}

def NN_AdamUpdateOp : NN_Op<"adam_update",
    [AllTypesMatch<["param", "grad", "m", "v", "new_param", "new_m", "new_v"]>,
     DeclareOpInterfaceMethods<OptimizerUpdateOpInterface>]> {
  let summary = "Adam / AdamW step, as torch.optim.Adam / AdamW";
  let description = [{
    At step `t` (1-based): with `decoupled` (AdamW) `param *= 1 - lr *
    weight_decay`, else `g = grad + weight_decay * param`;
    `m' = beta1 m + (1 - beta1) g`, `v' = beta2 v + (1 - beta2) g^2`,
    `param' = param - lr / (1 - beta1^t) * m' / (sqrt(v') / sqrt(1 - beta2^t)
    + epsilon)`.
    With `hold` (a tensor<i1>) true, every result is its input unchanged
    (the parameter and its optimizer state): a step that changes nothing (a
    non-finite fp16 gradient, the staleness pipeline's step with nothing in
    flight) in the update's own loop, instead of a select over each result.

    ```mlir
    %p1, %m1, %v1 = nn.adam_update %p, %g, %m, %v, %lr, %t
        : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>,
           tensor<f32>, tensor<f32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
    ```
  }];
  let arguments = (ins NN_F32Tensor:$param, NN_F32Tensor:$grad,
                   NN_F32Tensor:$m, NN_F32Tensor:$v, NN_F32Scalar:$lr,
                   NN_F32Scalar:$step, Optional<NN_BoolScalar>:$hold,
                   DefaultValuedAttr<F32Attr, "0.9">:$beta1,
                   DefaultValuedAttr<F32Attr, "0.999">:$beta2,
                   DefaultValuedAttr<F32Attr, "1.0e-08">:$epsilon,
                   DefaultValuedAttr<F32Attr, "0.0">:$weight_decay,
                   DefaultValuedAttr<BoolAttr, "false">:$decoupled);
  let results = (outs NN_F32Tensor:$new_param, NN_F32Tensor:$new_m,
                 NN_F32Tensor:$new_v);
  let hasVerifier = 1;
}

def NN_ClipByGlobalNormOp : NN_Op<"clip_by_global_norm",
    [DeclareOpInterfaceMethods<GradientTransformOpInterface>]> {
  let summary = "Scales gradients so that their global L2 norm is at most max_norm";
  let description = [{
    As torch.nn.utils.clip_grad_norm_: with `n` the L2 norm of all operands
    together, every operand is multiplied by `min(1, max_norm / (n + 1e-6))`.
    Synchronization reduces the operands (the raw gradients), not the
    results (GradientTransformOpInterface).

    ```mlir
    %a1, %b1 = nn.clip_by_global_norm %a, %b {max_norm = 1.0 : f32}
        : (tensor<4x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins Variadic<NN_F32Tensor>:$grads, F32Attr:$max_norm);
  let results = (outs Variadic<NN_F32Tensor>:$results);
  let hasVerifier = 1;
}

def NN_UnscaleGradientsOp : NN_Op<"unscale_gradients",
    [DeclareOpInterfaceMethods<GradientTransformOpInterface>]> {
  let summary = "Divides loss-scaled gradients by the scale and finds non-finite ones";
  let description = [{
    fp16 dynamic loss scaling (`--precision=fp16`), as PyTorch's
    `GradScaler.unscale_`: every gradient is multiplied by `1 / scale` (the
    reciprocal rounded to f32), and `found_inf` is true iff any element of
    any (scaled) gradient is infinite or NaN. Synchronization reduces the
    operands, the scaled gradients (GradientTransformOpInterface), so every
    rank reaches the same verdict.

    ```mlir
    %a1, %b1, %inf = nn.unscale_gradients %scale, %a, %b
        : (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>)
        -> (tensor<4x3xf32>, tensor<3xf32>, tensor<i1>)
    ```
  }];
  let arguments = (ins NN_F32Scalar:$scale, Variadic<NN_F32Tensor>:$grads);
  let results = (outs Variadic<NN_F32Tensor>:$results,
                 0DTensorOf<[I1]>:$found_inf);
  let hasVerifier = 1;
}

def NN_UpdateLossScaleOp : NN_Op<"update_loss_scale"> {
  let summary = "The next loss scale and growth tracker of dynamic loss scaling";
  let description = [{
    PyTorch's `GradScaler.update` (`torch._amp_update_scale_`): if
    `found_inf`, the scale is multiplied by `backoff_factor` and the tracker
    reset to 0; otherwise the tracker counts one more successful step and,
    when it reaches `growth_interval`, the scale is multiplied by
    `growth_factor` (unless that is not finite) and the tracker reset. The
    tracker is an f32 count (exact below 2^24).

    ```mlir
    %s1, %t1 = nn.update_loss_scale %s, %t, %inf {growth_interval = 2000 : i64}
        : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>)
    ```
  }];
  let arguments = (ins NN_F32Scalar:$scale, NN_F32Scalar:$growth_tracker,
                   0DTensorOf<[I1]>:$found_inf,
                   DefaultValuedAttr<F32Attr, "2.0">:$growth_factor,
                   DefaultValuedAttr<F32Attr, "0.5">:$backoff_factor,
                   DefaultValuedAttr<I64Attr, "2000">:$growth_interval);
  let results = (outs NN_F32Scalar:$new_scale,
                 NN_F32Scalar:$new_growth_tracker);
  let hasVerifier = 1;
}

#endif // AUTODIST_NN_OPS
