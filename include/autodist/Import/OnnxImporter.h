//===- OnnxImporter.h - ONNX model to nn dialect ----------------*- C++ -*-===//
#ifndef AUTODIST_IMPORT_ONNXIMPORTER_H
#define AUTODIST_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace autodist {

struct OnnxImportOptions {
  /// Shapes given on the command line (`--input-shape=NAME:D0xD1...`), by
  /// input name; they replace symbolic dims. A leading symbolic dim with no
  /// shape given stays dynamic: it is the batch, chosen at run time.
  llvm::StringMap<std::vector<int64_t>> inputShapes;
  /// Graph inputs bound to constant values (`--bind-input=NAME=V0,V1,...`):
  /// int64/bool inputs that carry shapes, axes or bounds become constants
  /// the importer folds, and are no longer inputs of the program.
  llvm::StringMap<std::vector<int64_t>> boundInputs;
  /// The files the caller writes, as (flag, path): an external data file of
  /// the model that is one of them is refused (the output would replace the
  /// weights the executable reads).
  std::vector<std::pair<std::string, std::string>> outputs;
};

/// Parses `--bind-input` values (`NAME=V0,V1,...`, integers) into
/// `options`; fails naming the value on bad syntax.
llvm::Error parseBoundInputs(llvm::ArrayRef<std::string> specs,
                             OnnxImportOptions &options);

/// Parses `--input-shape` values (`NAME:D0xD1...`, comma-separated lists
/// allowed) into `options`; fails naming the value on bad syntax.
llvm::Error parseInputShapes(llvm::ArrayRef<std::string> specs,
                             OnnxImportOptions &options);

/// Imports a serialized ONNX ModelProto into a module holding
/// `func.func @forward`. `bufferName` names the model in diagnostics.
/// Returns null after emitting a diagnostic on malformed or unsupported
/// input.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(mlir::MLIRContext *context, llvm::StringRef bytes,
                llvm::StringRef bufferName, const OnnxImportOptions &options);

/// Imports the ONNX model file `path`, streaming it: the data of large float
/// initializers (the parameters) is skipped, not read, so the import needs
/// little memory beyond the graph whatever the size of the weights. External
/// data is found relative to `path`'s directory (`bufferName`'s for
/// importOnnxModel).
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFile(mlir::MLIRContext *context, llvm::StringRef path,
               const OnnxImportOptions &options);

/// Prints the table of supported ONNX operators of docs/operators.md
/// (markdown): opsets, the nn op, the gradient and the limits of each.
void printOnnxOperatorTable(llvm::raw_ostream &os);

/// The names of the supported ONNX operators (the registry's entries, in
/// the order of the table).
std::vector<std::string> supportedOnnxOperators();

} // namespace autodist

#endif // AUTODIST_IMPORT_ONNXIMPORTER_H
