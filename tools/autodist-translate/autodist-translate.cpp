//===- autodist-translate.cpp - translations into and out of MLIR ---------===//

#include "autodist/Driver/Pipeline.h"
#include "autodist/Import/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Shape of an input, NAME:D0xD1... (replaces symbolic dims; "
                   "a leading symbolic dim left out stays dynamic)"),
    llvm::cl::value_desc("NAME:D0xD1..."));
static llvm::cl::list<std::string> boundInputs(
    "bind-input",
    llvm::cl::desc("Bind an int64/bool graph input (shapes, axes) to "
                   "constant values"),
    llvm::cl::value_desc("NAME=V0,V1,..."));

int main(int argc, char **argv) {
  TranslateToMLIRRegistration importOnnx(
      "import-onnx", "Import an ONNX model into the nn dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        autodist::OnnxImportOptions options;
        std::string err = autodist::parseInputShapes(inputShapes, options);
        if (err.empty())
          err = autodist::parseBoundInputs(boundInputs, options);
        if (!err.empty()) {
          emitError(UnknownLoc::get(ctx)) << err;
          return nullptr;
        }
        const llvm::MemoryBuffer *buf =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        OwningOpRef<ModuleOp> module = autodist::importOnnxModel(
            ctx, buf->getBuffer(), buf->getBufferIdentifier(), options);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        autodist::registerAllDialects(registry);
      });
  return failed(
      mlirTranslateMain(argc, argv, "AutoDist-MLIR translation driver"));
}
