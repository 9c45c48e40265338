//===- QuietContext.h - A fresh MLIR context per fuzz input -----*- C++ -*-===//
//
// Compiler harnesses make a new context for every input, so that nothing
// (uniqued attributes, loaded dialects, diagnostics) carries over from one
// input to the next and memory does not grow with the number of inputs.
// Diagnostics are a clean rejection, not a finding: they are dropped.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_FUZZ_QUIETCONTEXT_H
#define AUTODIST_FUZZ_QUIETCONTEXT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace autodist::fuzz {

class QuietContext {
public:
  // One thread: deterministic, and no thread pool to start per input.
  QuietContext()
      : context(mlir::MLIRContext::Threading::DISABLED),
        drop(&context, [](mlir::Diagnostic &) { return mlir::success(); }) {}

  mlir::MLIRContext *get() { return &context; }

private:
  mlir::MLIRContext context;
  mlir::ScopedDiagnosticHandler drop;
};

} // namespace autodist::fuzz

#endif // AUTODIST_FUZZ_QUIETCONTEXT_H
