//===- NNInterfaces.td - what an op knows about itself -----*- tablegen -*-===//
//
// Op interfaces through which passes ask an op for its gradient and its
// lowering, so that this knowledge lives with the op (as a JAX primitive
// carries its rules) instead of in switch statements inside passes.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_NN_INTERFACES
#define AUTODIST_NN_INTERFACES

include "mlir/IR/OpBase.td"

def DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op that can build its vector-Jacobian product. Reverse-mode autodiff
    calls `buildVJP` with the gradient of each result (a null Value for a
    result with no gradient) and receives the gradient of each operand (a
    null Value for an operand that gets none, e.g. integer labels).
  }];
  let methods = [
    InterfaceMethod<
      "Build the gradients of the operands from those of the results.",
      "::mlir::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

def StatefulOpInterface : OpInterface<"StatefulOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op with a training form that updates state operands instead of
    training them (batch normalization's running mean and variance). The
    training-step builder keeps such parameters out of the optimizer,
    replaces the op by its training form and returns the new state values
    as the parameters' outputs. With `globalBatch`, the training form
    computes its statistics over the global batch (all ranks, through
    explicit `dist.all_reduce sum` ops) instead of the rank's own batch.
  }];
  let methods = [
    InterfaceMethod<
      "Indices of the operands that are running state (not trained).",
      "::llvm::SmallVector<unsigned>", "getStateOperandIndices">,
    InterfaceMethod<
      [{Build the training form of this op at the builder's insertion point:
        `results` receives the values that replace this op's results,
        `newStates` the new value of each state operand (in the order of
        getStateOperandIndices). The caller replaces and erases this op.}],
      "::mlir::LogicalResult", "buildTrainingForm",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$newStates,
           "bool":$globalBatch)>
  ];
}

def StochasticOpInterface : OpInterface<"StochasticOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op that is random in training and deterministic in inference
    (dropout). The training-step builder replaces it by its training form,
    which draws from a stateless counter-based generator keyed by the run's
    seed, the rank, the step number and the op's `stream` (its index among
    the stochastic ops of `@forward`), so a step's randomness is a function
    of those alone: no generator state, exact checkpoint resume.
  }];
  let methods = [
    InterfaceMethod<
      [{Build the training form of this op at the builder's insertion point
        from the key operands `seed` and `rank` (`tensor<i64>`) and `step`
        (`tensor<f32>`, 1-based); `results` receives the values that replace
        this op's results. The caller replaces and erases this op.}],
      "::mlir::LogicalResult", "buildTrainingForm",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Value":$seed,
           "::mlir::Value":$rank, "::mlir::Value":$step, "int64_t":$stream,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results)>
  ];
}

def LowerToLinalgOpInterface : OpInterface<"LowerToLinalgOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op that can rewrite itself into linalg/tensor/arith/math ops on
    tensors. The builder's insertion point is just before the op; the
    returned values replace the op's results.
  }];
  let methods = [
    InterfaceMethod<
      "Build the linalg form of this op and return its result values.",
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>",
      "lowerToLinalg", (ins "::mlir::OpBuilder &":$builder)>
  ];
}

def GlobalBatchSumOpInterface : OpInterface<"GlobalBatchSumOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op computing per-rank sums that synchronous batch normalization
    means over the global batch of a data-parallel step (its `global_batch`
    attribute). `dist-synchronize` asks this interface which ops to
    all-reduce, and clears the mark once it has; the lowering refuses an op
    still marked.
  }];
  let methods = [
    InterfaceMethod<"Whether the results are meant over the global batch.",
                    "bool", "isOverGlobalBatch", (ins), [{}],
                    [{ return $_op.getGlobalBatch(); }]>,
    InterfaceMethod<"Clears the mark (the results are now all-reduced).",
                    "void", "clearGlobalBatch", (ins), [{}],
                    [{ $_op.setGlobalBatch(false); }]>
  ];
}

def OptimizerUpdateOpInterface : OpInterface<"OptimizerUpdateOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An optimizer update of one parameter. Synchronization passes find the
    gradient each parameter is updated with through this interface.
  }];
  let methods = [
    InterfaceMethod<"The parameter being updated.", "::mlir::Value",
                    "getUpdatedParam">,
    InterfaceMethod<"The gradient operand (to synchronize).",
                    "::mlir::OpOperand &", "getGradOperand">,
    InterfaceMethod<[{The condition (tensor<i1>) under which every result is
                      its input unchanged; null when the update always
                      applies.}], "::mlir::Value", "getHoldCondition", (ins),
                    [{}], [{ return $_op.getHold(); }]>,
    InterfaceMethod<[{Sets that condition (null: always applies).}], "void",
                    "setHoldCondition", (ins "::mlir::Value":$cond), [{}],
                    [{
      if (cond)
        $_op.getHoldMutable().assign(cond);
      else
        $_op.getHoldMutable().clear();
    }]>
  ];
}

def GradientTransformOpInterface : OpInterface<"GradientTransformOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op that transforms gradients on their way to the optimizer (e.g.
    clipping by global norm). Synchronization must combine the ranks'
    gradients before the transform, so it asks which operand each result
    comes from.
  }];
  let methods = [
    InterfaceMethod<"The operand result `index` transforms.",
                    "::mlir::OpOperand &", "getSourceGradient",
                    (ins "unsigned":$index)>
  ];
}

def HalfOperandsOpInterface : OpInterface<"HalfOperandsOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op that multiplies its first two operands and sums the products
    (matrix products, convolutions): those operands may be bf16 or f16 with
    the sums in f32, which nn-mixed-precision (`--precision`) rounds them to.
  }];
  let methods = [
    InterfaceMethod<[{Whether this op takes its first two operands in 16
                      bits (a convolution only with group 1: its grouped
                      lowering is f32).}], "bool", "acceptsHalfOperands",
                    (ins), [{}], [{ return true; }]>
  ];
}

def SparseAccessOpInterface : OpInterface<"SparseAccessOpInterface"> {
  let cppNamespace = "::autodist::nn";
  let description = [{
    An op that reads some operand sparsely (an embedding lookup reads a few
    rows of its table), so that operand's gradient is sparse. Strategy
    builders (Parallax) treat such parameters differently.
  }];
  let methods = [
    InterfaceMethod<"Whether operand `index` is read sparsely.", "bool",
                    "isSparseOperand", (ins "unsigned":$index)>,
    InterfaceMethod<[{For an operand holding indices: the size of the
                      dimension they index (valid values are [-size, size)),
                      or nullopt.}], "std::optional<int64_t>",
                    "getIndexBound", (ins "unsigned":$index)>,
    InterfaceMethod<[{For an operand holding the ids of variable-size bags,
                      concatenated: the operand holding each bag's start
                      offset (the runtime batches the two as one ragged
                      input), or nullopt.}], "std::optional<unsigned>",
                    "getBagOffsetsOperand", (ins "unsigned":$index), [{}],
                    [{ return std::nullopt; }]>,
    InterfaceMethod<[{Whether the bag offsets hold one entry more, the end
                      of the last bag (PyTorch's include_last_offset).}],
                    "bool", "bagOffsetsIncludeEnd", (ins), [{}],
                    [{ return false; }]>
  ];
}

#endif // AUTODIST_NN_INTERFACES
