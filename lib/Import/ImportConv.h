//===- ImportConv.h - ONNX CNN ops to nn (importer hook) --------*- C++ -*-===//
//
// The CNN operators (Conv, MaxPool, AveragePool, GlobalAveragePool,
// BatchNormalization) are imported here; OnnxImporter.cpp's dispatch hands
// them over with what they need of the importer.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_IMPORTCONV_H
#define AUTODIST_LIB_IMPORT_IMPORTCONV_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace onnx {
class NodeProto;
} // namespace onnx

namespace autodist::detail {

/// What the CNN importer needs from the ONNX importer for one node.
struct NodeImportContext {
  /// Insertion point where the node's ops go.
  mlir::OpBuilder &builder;
  /// The node's location (its name).
  mlir::Location loc;
  /// Input `i` of the node as a value (errors reported by the importer).
  llvm::function_ref<mlir::FailureOr<mlir::Value>(int)> operand;
  /// Starts an error naming the node: `node 'n' (Conv, opset 17): `.
  llvm::function_ref<mlir::InFlightDiagnostic()> error;
  /// Names the value of a node output other than the first (the importer
  /// binds the first to the returned value).
  llvm::function_ref<void(const std::string &, mlir::Value)> defineOutput;
};

/// Whether `opType` is one of the ops importCnnNode handles.
bool isCnnOp(llvm::StringRef opType);

/// Imports a node whose op type isCnnOp: checks its attributes and builds
/// the nn op (output 0). Errors name the node.
mlir::FailureOr<mlir::Value> importCnnNode(const onnx::NodeProto &node,
                                           const NodeImportContext &ctx);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_IMPORTCONV_H
