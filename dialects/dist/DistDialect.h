//===- DistDialect.h - the dist dialect -------------------------*- C++ -*-===//
#ifndef AUTODIST_DIST_DISTDIALECT_H
#define AUTODIST_DIST_DISTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dist/DistDialect.h.inc"

#endif // AUTODIST_DIST_DISTDIALECT_H
