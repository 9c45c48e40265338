//===- NNDialect.td - the tensor compute dialect -----------*- tablegen -*-===//
//
// The `nn` dialect holds the tensor compute ops the ONNX importer produces,
// with ONNX semantics on ranked tensors, plus the few training ops autodiff
// and the optimizers need.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_DIALECT
#define AUTODIST_NN_DIALECT

include "mlir/IR/OpBase.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::autodist::nn";
  let summary = "Tensor compute ops with ONNX semantics";
  let description = [{
    Value-semantics ops on ranked tensors with ONNX semantics (Gemm, MatMul,
    elementwise arithmetic with broadcasting, activations, reshapes, losses).
    What an op knows lives with the op: its result type (InferTypeOpInterface),
    its gradient (`DifferentiableOpInterface`) and its lowering to linalg
    (`LowerToLinalgOpInterface`).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::linalg::LinalgDialect"
  ];
}

#endif // AUTODIST_NN_DIALECT
