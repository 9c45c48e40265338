//===- CodegenPartition.h - split a module for parallel codegen -*- C++ -*-===//
#ifndef AUTODIST_DRIVER_CODEGENPARTITION_H
#define AUTODIST_DRIVER_CODEGENPARTITION_H

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace autodist {

/// One self-contained piece of a module, as bitcode, so that it can be
/// parsed into its own LLVMContext and compiled on its own thread.
struct CodegenPartition {
  llvm::SmallVector<char, 0> bitcode;
  /// Holds only `optnone` functions (the entry points that sequence calls):
  /// compiled without the optimization pipeline, by the fast instruction
  /// selector and register allocator.
  bool sequencer = false;
  /// Holds the module's global variable definitions (among them the model
  /// bytes of docs/abi.md).
  bool holdsGlobals = false;
};

/// Splits `module` into an `optnone` partition and up to `kernelParts`
/// partitions of the other functions, balanced by instruction count. Every
/// symbol of local linkage becomes external and hidden first, so that the
/// partitions link into one executable. Empty partitions are left out.
std::vector<CodegenPartition> partitionForCodegen(llvm::Module &module,
                                                  unsigned kernelParts);

} // namespace autodist

#endif // AUTODIST_DRIVER_CODEGENPARTITION_H
