//===- NNShapeUtils.h - shape helpers shared by nn ops ----------*- C++ -*-===//
//
// Broadcasting and shape helpers used by the nn ops' type inference,
// gradients and lowerings.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_NN_NNSHAPEUTILS_H
#define AUTODIST_NN_NNSHAPEUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace autodist::nn {

/// Formats a shape as `2x?x3` for diagnostics.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// True when two dims may be equal at run time (either is dynamic).
bool dimsCompatible(int64_t a, int64_t b);

/// Numpy (ONNX multidirectional) broadcast of two shapes; failure when a
/// pair of static dims differs and neither is 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Reduces `grad` (the gradient of a broadcast result) back to the shape of
/// `target` by summing over broadcast dims: the reverse of broadcasting.
mlir::Value sumToShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value grad,
                       mlir::RankedTensorType target);

/// An empty tensor of `type` whose dynamic dims are read from `sources`:
/// result dim i (counted from the right) takes the dim of the first source
/// whose aligned dim is dynamic and not broadcast.
mlir::Value emptyLike(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::RankedTensorType type, mlir::ValueRange sources);

/// Builds `linalg.generic` over the iteration space of `resultType` whose
/// inputs broadcast (numpy rules, aligned right) into it, with `body` making
/// the scalar result from the scalar inputs. `init` is the destination
/// tensor; by default an empty one sized like the inputs (emptyLike).
mlir::Value buildElementwise(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    mlir::ValueRange inputs,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::ValueRange)>
        body,
    mlir::Value init = {});

/// buildElementwise with several results of `resultType`, computed in one
/// loop: `body` returns one scalar per result.
llvm::SmallVector<mlir::Value> buildElementwiseResults(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    mlir::ValueRange inputs, unsigned numResults,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>
        body);

/// Reshapes `input` to `resultType` through tensor.collapse_shape or
/// tensor.expand_shape when the reshape is one, else tensor.reshape (static
/// results only); failure when none applies.
mlir::FailureOr<mlir::Value> reshapeTensor(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value input,
                                           mlir::RankedTensorType resultType);

/// The indexing map reading `operand` (rank r) broadcast into an iteration
/// space of the shape of `result` (rank R): aligned right, static size-1
/// dims read index 0.
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx,
                             mlir::RankedTensorType operand,
                             mlir::RankedTensorType result);

/// A parallel linalg.generic over the iteration space of `type`, reading
/// `inputs` through `maps` and writing a new tensor whose dynamic dims come
/// from `like` (emptyLike), with `body` making each element.
mlir::Value buildMappedElementwise(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
    mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> maps,
    mlir::Value like,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::ValueRange)>
        body);

/// An i64 index into a dim of size `size` with ONNX's negative indices
/// (counting from the end) wrapped to non-negative ones.
mlir::Value wrapNegativeIndex(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value index, int64_t size);
/// The same with the size a run-time value (an `index` or the index's type).
mlir::Value wrapNegativeIndex(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value index, mlir::Value size);

/// `index` (i64 or i32) into a dim of size `size` as an `index`: negative
/// ones wrapped from the end, and checked to lie in [0, size) (a cf.assert
/// with `message`), so a bad index stops the program instead of reading or
/// writing out of bounds.
mlir::Value checkedIndex(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value index, int64_t size,
                         llvm::StringRef message);
/// The same with the size a run-time value (a dynamic dim).
mlir::Value checkedIndex(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value index, mlir::Value size,
                         llvm::StringRef message);

/// Dim `d` of the ranked tensor `v`: a constant index when static, else a
/// tensor.dim.
mlir::OpFoldResult tensorDim(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v, int64_t d);

/// A scalar f32 constant.
mlir::Value f32Const(mlir::OpBuilder &b, mlir::Location loc, float v);

/// Sums `input` over `dims` with `combine`, starting from `init`.
mlir::Value
buildReduction(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
               llvm::ArrayRef<int64_t> dims, float init,
               llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::Value, mlir::Value)>
                   combine);

} // namespace autodist::nn

#endif // AUTODIST_NN_NNSHAPEUTILS_H
