//===- OnnxImporterFuzzer.cpp - Fuzz the ONNX importer --------------------===//
//
// The bytes are a serialized ONNX ModelProto, imported as autodist-translate
// --import-onnx does. A diagnostic is a clean rejection; an imported module
// must verify.
//
//===----------------------------------------------------------------------===//

#include "AcceptedInputs.h"
#include "FindingCheck.h"
#include "QuietContext.h"

#include "autodist/Import/OnnxImporter.h"

#include "mlir/IR/Verifier.h"

using namespace autodist;

// External data is looked up beside the model: a directory that does not
// exist keeps a fuzzed `location` from reading whatever files are around.
static constexpr const char *kModelPath =
    "/nonexistent-autodist-fuzz-dir/model.onnx";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::QuietContext context;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importOnnxModel(context.get(), bytes, kModelPath, OnnxImportOptions());
  if (!module)
    return 0;
  fuzz::check(mlir::succeeded(mlir::verify(*module)),
              "the importer returned a module that does not verify");
  fuzz::countAccepted();
  return 0;
}
