//===- DistOps.h - dist dialect ops -----------------------------*- C++ -*-===//
#ifndef AUTODIST_DIST_DISTOPS_H
#define AUTODIST_DIST_DISTOPS_H

#include "dist/DistAttrs.h"
#include "dist/DistDialect.h"
#include "dist/DistTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dist/DistOps.h.inc"

#endif // AUTODIST_DIST_DISTOPS_H
