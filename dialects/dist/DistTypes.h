//===- DistTypes.h - dist dialect types -------------------------*- C++ -*-===//
#ifndef AUTODIST_DIST_DISTTYPES_H
#define AUTODIST_DIST_DISTTYPES_H

#include "dist/DistDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "dist/DistTypes.h.inc"

#endif // AUTODIST_DIST_DISTTYPES_H
