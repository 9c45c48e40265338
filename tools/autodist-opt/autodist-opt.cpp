//===- autodist-opt.cpp - run AutoDist-MLIR passes (mlir-opt conventions) -===//
//
// MlirOptMain, with -o checked first and written through a temporary file:
// a failing run leaves an existing output as it was (OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/OutputFile.h"
#include "autodist/Driver/Pipeline.h"
#include "autodist/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  autodist::registerAllPassesAndPipelines();
  mlir::DialectRegistry registry;
  autodist::registerAllDialects(registry);
  std::pair<std::string, std::string> files = mlir::registerAndParseCLIOptions(
      argc, argv, "AutoDist-MLIR optimizer driver\n", registry);
  const std::string &inputFile = files.first;
  auto run = [&](llvm::StringRef path) {
    return mlir::MlirOptMain(argc, argv, inputFile, path, registry);
  };
  std::string error;
  mlir::FailureOr<autodist::OutputPath> output = autodist::checkOutputPath(
      "-o", files.second, {inputFile}, /*allowStreams=*/true, error);
  if (succeeded(output) &&
      succeeded(autodist::runWithOutput(*output, run, error)))
    return 0;
  if (!error.empty())
    llvm::errs() << "autodist-opt: error: " << error << "\n";
  return 1;
}
