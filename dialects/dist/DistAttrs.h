//===- DistAttrs.h - dist strategy attributes -------------------*- C++ -*-===//
#ifndef AUTODIST_DIST_DISTATTRS_H
#define AUTODIST_DIST_DISTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dist/DistEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.h.inc"

#endif // AUTODIST_DIST_DISTATTRS_H
