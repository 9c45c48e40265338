//===- NNOps.h - nn dialect ops and interfaces ------------------*- C++ -*-===//
#ifndef AUTODIST_NN_NNOPS_H
#define AUTODIST_NN_NNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "nn/NNDialect.h"

#include "nn/NNInterfaces.h.inc"

#define GET_OP_CLASSES
#include "nn/NNOps.h.inc"

#endif // AUTODIST_NN_NNOPS_H
