//===- SliceBounds.h - ONNX Slice index arithmetic --------------*- C++ -*-===//
//
// ONNX Slice's clamping rules, shared by nn.slice (type inference, lowering,
// gradient) and the importer's folding of slices of constants.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_NN_SLICEBOUNDS_H
#define AUTODIST_NN_SLICEBOUNDS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace autodist::nn {

/// What a slice takes along one dim: `size` entries `offset + step * i`.
struct DimSlice {
  int64_t offset = 0;
  int64_t size = 0;
  int64_t step = 1;
};

/// Resolves ONNX Slice's `starts`/`ends`/`axes`/`steps` against `shape`
/// (dims not in `axes` are taken whole; a dynamic one keeps offset 0, step
/// 1 and a dynamic size). Negative starts/ends count from the end and are
/// clamped as ONNX specifies. A dynamic dim can only be sliced whole (start
/// 0, end INT64_MAX, step 1). On malformed arguments (lengths differ, an
/// axis out of range or repeated, a zero step, any other slice of a dynamic
/// dim) returns failure with the reason in `error`.
mlir::FailureOr<llvm::SmallVector<DimSlice>>
resolveSlice(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> starts,
             llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> axes,
             llvm::ArrayRef<int64_t> steps, std::string &error);

} // namespace autodist::nn

#endif // AUTODIST_NN_SLICEBOUNDS_H
