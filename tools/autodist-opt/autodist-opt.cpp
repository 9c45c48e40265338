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

int main(int argc, char **argv) {
  autodist::installSignalHandlers(); // before InitLLVM's handlers
  autodist::registerAllPassesAndPipelines();
  mlir::DialectRegistry registry;
  autodist::registerAllDialects(registry);
  std::pair<std::string, std::string> files = mlir::registerAndParseCLIOptions(
      argc, argv, "AutoDist-MLIR optimizer driver\n", registry);
  const std::string &inputFile = files.first;
  auto run = [&](llvm::StringRef path) {
    return mlir::MlirOptMain(argc, argv, inputFile, path, registry);
  };
  return autodist::runWithCheckedOutput("autodist-opt", files.second,
                                        {inputFile}, run);
}
