//===- Partition.h - the shard tags dist-partition leaves -------*- C++ -*-===//
//
// dist-partition splits partitioned parameters into shards and tags what it
// made; dist-synchronize reads the tags, synchronizes each shard and removes
// them. Both sides use these names and helpers.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_TRANSFORMS_PARTITION_H
#define AUTODIST_TRANSFORMS_PARTITION_H

#include "dist/DistAttrs.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {

/// On the `tensor.concat` that reassembles a sliced gradient: the names of
/// its operands' shards, in order (an array of strings).
inline constexpr llvm::StringLiteral kShardsAttrName = "dist.shards";
/// On a shard's optimizer update: `{part, axis, offset, size}`.
inline constexpr llvm::StringLiteral kShardAttrName = "dist.shard";

/// The operand of `update` that receives the raw gradient: through every
/// gradient transform (e.g. clipping), whose input must be the synchronized
/// gradient.
mlir::OpOperand &rawGradientUse(nn::OptimizerUpdateOpInterface update);

/// `v` itself, or the source of the `tensor.extract_slice` that defines it
/// (a shard update's operands are slices of the whole values).
mlir::Value throughSlice(mlir::Value v);

/// The ONNX name of the parameter `update` updates, if it is (a slice of) a
/// tagged argument of `step`.
mlir::StringAttr updatedParamName(mlir::func::FuncOp step,
                                  nn::OptimizerUpdateOpInterface update);

/// The module's strategy and its `@train_step`, or an error naming what is
/// missing (`verb`: what the pass would do to the step).
struct StrategyAndStep {
  dist::StrategyAttr strategy;
  mlir::func::FuncOp step;
};
mlir::FailureOr<StrategyAndStep> strategyAndStep(mlir::ModuleOp module,
                                                 llvm::StringRef verb);

} // namespace autodist

#endif // AUTODIST_TRANSFORMS_PARTITION_H
