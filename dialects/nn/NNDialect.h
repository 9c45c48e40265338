//===- NNDialect.h - the nn dialect -----------------------------*- C++ -*-===//
#ifndef AUTODIST_NN_NNDIALECT_H
#define AUTODIST_NN_NNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "nn/NNDialect.h.inc"

#endif // AUTODIST_NN_NNDIALECT_H
