//===- ValidateModel.h - ONNX checker rules, tensor sizes -------*- C++ -*-===//
//
// Models that onnxruntime refuses (and onnx.checker reports) were imported:
// a duplicated initializer compiled into an executable that could not start,
// an attribute of the wrong type was read as 0. These checks run on the
// whole model before any op is imported.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_VALIDATEMODEL_H
#define AUTODIST_LIB_IMPORT_VALIDATEMODEL_H

#include "autodist/Import/OnnxImporter.h"

#include "mlir/IR/Location.h"

namespace onnx {
class GraphProto;
class ModelProto;
} // namespace onnx

namespace autodist::detail {

/// The newest default-domain opset ONNX defines (ONNX 1.23).
constexpr int64_t kNewestOnnxOpset = 28;
/// The last TensorProto data type ONNX 1.23 defines (FLOAT6E3M2).
constexpr int64_t kNewestOnnxDataType = 28;

/// Whether a tensor of shape `dims` (dynamic dims left out) has no negative
/// dim and a size in bytes, at the largest element size, that fits int64
/// (MLIR's element counts, the runtime's byte counts): a crafted product of
/// dims overflowed, wrapping to a small count.
bool sizeFitsInt64(llvm::ArrayRef<int64_t> dims);

/// `dims` as "[2, 3, ?]".
std::string shapeString(llvm::ArrayRef<int64_t> dims);

/// Checks `model` as onnx.checker does where the importer relies on it: a
/// default-domain opset in [1, kNewestOnnxOpset]; every node's domain
/// imported; graph value names defined once (inputs, initializers and node
/// outputs; an initializer may also be listed as an input); tensor element
/// types that are TensorProto data types; attributes of the type the
/// operator's schema gives. Emits one error at `loc` and fails otherwise.
mlir::LogicalResult validateModel(const onnx::ModelProto &model,
                                  mlir::Location loc);

/// Checks that each `--input-shape` and `--bind-input` of `options` names
/// an input of `graph` (not an initializer), listing the inputs otherwise.
mlir::LogicalResult validateInputOptions(const onnx::GraphProto &graph,
                                         const OnnxImportOptions &options,
                                         mlir::Location loc);

/// Checks that no external data file of `graph` (relative to `dir`) is one
/// of `options.outputs`.
mlir::LogicalResult validateOutputs(const onnx::GraphProto &graph,
                                    llvm::StringRef dir,
                                    const OnnxImportOptions &options,
                                    mlir::Location loc);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_VALIDATEMODEL_H
