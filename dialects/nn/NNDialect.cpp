//===- NNDialect.cpp - the nn dialect -------------------------------------===//

#include "nn/NNDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "nn/NNOps.h"

using namespace mlir;
using namespace autodist::nn;

#include "nn/NNDialect.cpp.inc"

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nn/NNOps.cpp.inc"
      >();
}
