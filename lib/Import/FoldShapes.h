//===- FoldShapes.h - import-time folding of shape subgraphs ----*- C++ -*-===//
//
// Exporters compute shapes at run time (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, ConstantOfShape -> Equal -> Where -> Expand, Range).
// Once every input dim is known these subgraphs are constant: the importer
// evaluates them on int64/bool constants here, so the compute IR only sees
// static attributes.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_FOLDSHAPES_H
#define AUTODIST_LIB_IMPORT_FOLDSHAPES_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class NodeProto;
class TensorProto;
} // namespace onnx

namespace autodist::detail {

/// A constant integer (int64 or bool) tensor known at import time: the
/// importer folds it into attributes (Reshape's shape, reduction axes) and
/// materializes it as an arith.constant only where an op reads it as data.
/// Entries not known at import time. kUnknownDim is a dynamic dim read by
/// Shape or Size (the batch, when no --input-shape fixes it; a size, so
/// never negative); data movement (Gather, Slice, Concat, ...) carries it
/// along. kUnknownValue is anything computed from one: arithmetic on an
/// unknown gives kUnknownValue, except where the answer does not depend on
/// it (a dim is never equal to a negative constant; Where with a known
/// condition). An op that needs the value (a Range limit, an axis) reports
/// an error; Reshape takes one unknown entry as -1.
/// Both are values no exporter writes with a meaning of their own: far
/// below any dim, but unlike INT64_MIN and INT64_MIN + 1 (the "before the
/// start" ends of reversed slices) not used by them; readInts reads a
/// model constant that happens to equal one as INT64_MIN (the same bound
/// for a slice).
constexpr int64_t kUnknownDim = std::numeric_limits<int64_t>::min() + 0x5eed;
constexpr int64_t kUnknownValue = kUnknownDim + 1;

/// A dynamic dim times a known k, 1 <= k <= kMaxDimMultiple, is also
/// tracked (kUnknownDim is k = 1): `bsz * num_heads` in `x.view(bsz *
/// num_heads, -1, head_dim)` lets Reshape resolve its -1 (OPT). Encoded
/// below kUnknownDim, still far above the slice bounds.
constexpr int64_t kMaxDimMultiple = 4096;
constexpr int64_t dimMultiple(int64_t k) { return kUnknownDim - (k - 1); }
/// k when `v` is dimMultiple(k).
inline std::optional<int64_t> multipleOfDim(int64_t v) {
  if (v <= kUnknownDim && v > kUnknownDim - kMaxDimMultiple)
    return kUnknownDim - v + 1;
  return std::nullopt;
}

/// Whether `v` is unknown at import: a multiple of a dynamic dim, or
/// kUnknownValue.
inline bool isUnknown(int64_t v) {
  return v == kUnknownValue || multipleOfDim(v).has_value();
}

struct IntConstant {
  std::vector<int64_t> values;
  std::vector<int64_t> dims;
  bool isBool = false;
  /// An ONNX INT32 tensor: its values fit int32 and it materializes as i32
  /// (values are held as int64 like the others).
  bool isInt32 = false;

  /// Whether there are as many values as the dims say: a crafted tensor
  /// may hold fewer, which folds would read past. Its dims fit int64
  /// (checked before import).
  bool matchesDims() const {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n == (int64_t)values.size();
  }

  /// Whether some entry is unknown (isUnknown).
  bool hasUnknown() const {
    for (int64_t v : values)
      if (isUnknown(v))
        return true;
    return false;
  }
};

/// Reads an int64, int32 or bool TensorProto (raw_data, int64_data or
/// int32_data); int32 values are widened to int64 (isInt32 set).
IntConstant readInts(const onnx::TensorProto &t);

/// What folding needs from the importer.
struct FoldContext {
  /// The constant named `name`, or null when it is not one.
  llvm::function_ref<const IntConstant *(const std::string &)> constant;
  /// The shape (dynamic dims as ShapedType::kDynamic) of the non-constant
  /// value named `name`, or nullopt when there is no such value.
  llvm::function_ref<std::optional<std::vector<int64_t>>(const std::string &)>
      shapeOf;
  /// Starts an error naming the node.
  llvm::function_ref<mlir::InFlightDiagnostic()> error;
  /// The model's default-domain opset.
  int64_t opset;
};

class Folder;

/// Evaluates one operator on its constant inputs (Folder, FoldShapes.cpp):
/// true with `out` set, false when this node does not fold (e.g. a float
/// Cast), failure after an error.
using FoldFn = mlir::FailureOr<bool> (*)(Folder &, IntConstant &out);

/// How an operator folds (OpSpec::fold in OpRegistry.h).
struct FoldRule {
  /// Null: the operator never folds.
  FoldFn fn = nullptr;
  /// With fewer inputs the node is not folded (the import handler reports
  /// what is missing).
  size_t minInputs = 1;
  /// Inputs from this one on give indices, shapes or bounds and must be
  /// known entirely (no unknown dim); -1: none do.
  int paramsFrom = -1;
  /// Input 0 need not be constant: its shape is what is read (Shape, Size).
  bool readsShape = false;
  /// The import handler reads the inputs from paramsFrom at run time when
  /// they have unknown entries (Expand to the batch): such a node is left
  /// to it instead of being an error here.
  bool paramsAtRunTime = false;
};

/// The folds the registry entries name.
namespace fold {
mlir::FailureOr<bool> identity(Folder &, IntConstant &);
/// Cast to INT64, INT32 (wrapping) or BOOL.
mlir::FailureOr<bool> cast(Folder &, IntConstant &);
/// Shape and Size (of a constant or of a value's static dims).
mlir::FailureOr<bool> shape(Folder &, IntConstant &);
mlir::FailureOr<bool> gather(Folder &, IntConstant &);
mlir::FailureOr<bool> slice(Folder &, IntConstant &);
mlir::FailureOr<bool> squeeze(Folder &, IntConstant &);
mlir::FailureOr<bool> unsqueeze(Folder &, IntConstant &);
mlir::FailureOr<bool> concat(Folder &, IntConstant &);
/// Reshape and Flatten.
mlir::FailureOr<bool> reshape(Folder &, IntConstant &);
mlir::FailureOr<bool> expand(Folder &, IntConstant &);
mlir::FailureOr<bool> range(Folder &, IntConstant &);
/// ConstantOfShape with an int64/bool value.
mlir::FailureOr<bool> constantOfShape(Folder &, IntConstant &);
mlir::FailureOr<bool> tile(Folder &, IntConstant &);
mlir::FailureOr<bool> trilu(Folder &, IntConstant &);
mlir::FailureOr<bool> transpose(Folder &, IntConstant &);
/// Add/Sub/Mul/Div (truncating)/Mod, Neg, Abs, Min/Max, Equal/Less/Greater/
/// LessOrEqual/GreaterOrEqual, Not/And/Or, Where, by the node's op type.
mlir::FailureOr<bool> elementwise(Folder &, IntConstant &);
} // namespace fold

/// Evaluates `node` by `rule` when its inputs are int64/bool constants.
/// Returns true with `outputs` set when folded, false when the node is not
/// foldable (some input is not constant, a float Cast, no rule), failure
/// after reporting an error (e.g. a Range over a dynamic dim).
mlir::FailureOr<bool> foldIntNode(const onnx::NodeProto &node,
                                  const FoldRule &rule, const FoldContext &ctx,
                                  std::vector<IntConstant> &outputs);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_FOLDSHAPES_H
