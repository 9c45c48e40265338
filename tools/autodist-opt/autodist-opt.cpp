//===- autodist-opt.cpp - run AutoDist-MLIR passes (mlir-opt conventions) -===//

#include "autodist/Driver/Pipeline.h"
#include "autodist/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  autodist::registerAllPassesAndPipelines();
  mlir::DialectRegistry registry;
  autodist::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "AutoDist-MLIR optimizer driver\n", registry));
}
