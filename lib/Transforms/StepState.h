//===- StepState.h - state arguments and results of @train_step -*- C++ -*-===//
//
// State that crosses steps (optimizer state, the caches of compensation,
// the compressors' error feedback) is an argument of @train_step tagged
// `nn.state` and a result tagged `nn.state_out`, paired by position
// (docs/abi.md). Passes that add such state place it with these.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_TRANSFORMS_STEPSTATE_H
#define AUTODIST_TRANSFORMS_STEPSTATE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {

/// Inserts an argument of `type` with `attrs` (its `nn.state` name and any
/// others) after the last state argument, else after the last parameter;
/// returns it.
mlir::BlockArgument addStepStateArgument(mlir::func::FuncOp step,
                                         mlir::Type type,
                                         mlir::DictionaryAttr attrs);

/// Inserts `v` as a result tagged `nn.state_out = name` after the last
/// loss, parameter or state result (so that new state keeps the order of
/// its arguments when added in that order).
void addStepStateResult(mlir::func::FuncOp step, mlir::StringAttr name,
                        mlir::Value v);

} // namespace autodist

#endif // AUTODIST_TRANSFORMS_STEPSTATE_H
