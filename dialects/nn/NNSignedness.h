//===- NNSignedness.h - unsigned integers through the lowering --*- C++ -*-===//
//
// nn tensors may hold unsigned integers (`ui8` .. `ui64`), as ONNX models
// do; arith, which the lowering builds, only knows signless integers. Before
// lowering, `eraseSignedness` marks every nn op with which of its values
// were unsigned and makes all types signless; the lowerings of the ops whose
// semantics differ (division, remainder, min/max, comparisons, casts, abs)
// ask the mark and choose the unsigned arith op.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_NN_NNSIGNEDNESS_H
#define AUTODIST_NN_NNSIGNEDNESS_H

#include "mlir/IR/Operation.h"

namespace autodist::nn {

/// The discardable attribute that records, per operand then per result,
/// whether the value was an unsigned integer tensor (a DenseBoolArrayAttr).
inline constexpr llvm::StringLiteral kUnsignedValuesAttr = "nn.unsigned";

/// Marks the nn ops under `root` that touch unsigned integer tensors and
/// replaces every unsigned integer type under it (values, block arguments,
/// function types, `nn.cast`'s `to`) with the signless type of its width.
void eraseSignedness(mlir::Operation *root);

/// Whether operand `i` of `op` was unsigned before eraseSignedness.
bool isUnsignedOperand(mlir::Operation *op, unsigned i);
/// Whether result `i` of `op` was unsigned before eraseSignedness.
bool isUnsignedResult(mlir::Operation *op, unsigned i);

} // namespace autodist::nn

#endif // AUTODIST_NN_NNSIGNEDNESS_H
