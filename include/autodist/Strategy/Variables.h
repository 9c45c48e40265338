//===- Variables.h - the trainable variables a strategy covers --*- C++ -*-===//
//
// The builders and dist-place see the program's parameters as variables:
// name, type, and whether their gradient is sparse.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_VARIABLES_H
#define AUTODIST_STRATEGY_VARIABLES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace autodist {

/// A trainable variable as the builders see it.
struct Variable {
  std::string name;
  mlir::RankedTensorType type;
  /// Its gradient is sparse (rows gathered by an embedding lookup).
  bool sparse = false;

  int64_t bytes() const;
};

/// The function whose parameters are distributed: @train_step, else
/// @forward; null when there is neither.
mlir::func::FuncOp distributedFunction(mlir::ModuleOp module);

/// The parameters (arguments tagged `nn.param`) of `func` in argument order.
llvm::SmallVector<Variable> variables(mlir::func::FuncOp func);

} // namespace autodist

#endif // AUTODIST_STRATEGY_VARIABLES_H
