//===- autodist-translate.cpp - translations into and out of MLIR ---------===//
//
// mlirTranslateMain registers its -o inside itself, so main() finds -o on
// the command line, checks it, and hands mlirTranslateMain a temporary file
// beside the real target instead, renamed onto it on success only: a
// failing run leaves an existing output as it was (OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/OutputFile.h"
#include "autodist/Driver/Pipeline.h"
#include "autodist/Import/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

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

static llvm::cl::opt<bool> printOperators(
    "print-onnx-operators",
    llvm::cl::desc("Print the table of supported ONNX operators (markdown, "
                   "as in docs/operators.md) and exit"),
    llvm::cl::callback([](const bool &) {
      autodist::printOnnxOperatorTable(llvm::outs());
      llvm::outs().flush();
      std::exit(0);
    }));

static llvm::cl::opt<bool> printOperatorNames(
    "print-onnx-operator-names",
    llvm::cl::desc("Print the supported ONNX operators' names, one per line "
                   "(what the conformance runner selects tests by), and exit"),
    llvm::cl::callback([](const bool &) {
      for (const std::string &name : autodist::supportedOnnxOperators())
        llvm::outs() << name << "\n";
      llvm::outs().flush();
      std::exit(0);
    }));

/// The -o value as given, for the check against the input (known in the
/// translation only); empty without -o.
static std::string outputArgument;

int main(int argc, char **argv) {
  autodist::installSignalHandlers(); // before InitLLVM's handlers
  TranslateToMLIRRegistration importOnnx(
      "import-onnx", "Import an ONNX model into the nn dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        autodist::OnnxImportOptions options;
        llvm::Error err = autodist::parseInputShapes(inputShapes, options);
        if (!err)
          err = autodist::parseBoundInputs(boundInputs, options);
        if (err) {
          emitError(UnknownLoc::get(ctx)) << llvm::toString(std::move(err));
          return nullptr;
        }
        const llvm::MemoryBuffer *buf =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        if (!outputArgument.empty()) {
          if (auto checked = autodist::checkOutputPath(
                  "-o", outputArgument, {buf->getBufferIdentifier().str()},
                  /*allowStreams=*/true);
              !checked) {
            emitError(UnknownLoc::get(ctx))
                << llvm::toString(checked.takeError());
            return nullptr;
          }
        }
        if (!outputArgument.empty())
          options.outputs = {{"-o", outputArgument}};
        OwningOpRef<ModuleOp> module = autodist::importOnnxModel(
            ctx, buf->getBuffer(), buf->getBufferIdentifier(), options);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        autodist::registerAllDialects(registry);
      });
  // The arguments as llvm::cl will see them (response files expanded), with
  // the -o value replaced by the temporary file.
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *> args(argv, argv + argc);
  llvm::cl::ExpansionContext expansion(alloc, llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error e = expansion.expandResponseFiles(args)) {
    llvm::errs() << "autodist-translate: error: "
                 << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  auto run = [&](llvm::ArrayRef<const char *> runArgs) {
    std::vector<char *> ptrs;
    for (const char *a : runArgs)
      ptrs.push_back(const_cast<char *>(a));
    ptrs.push_back(nullptr);
    int n = runArgs.size();
    char **v = ptrs.data();
    return mlirTranslateMain(n, v, "AutoDist-MLIR translation driver");
  };
  size_t index;
  std::string prefix;
  if (!autodist::findOutputArgument(args, index, prefix))
    return failed(run(args));
  outputArgument = llvm::StringRef(args[index]).drop_front(prefix.size());
  // The input is known in the translation only: checked there.
  return autodist::runWithCheckedOutput(
      "autodist-translate", outputArgument, {}, [&](llvm::StringRef path) {
        args[index] = saver.save(prefix + path).data();
        return run(args);
      });
}
