//===- AbiNames.h - The ABI's names as string constants ---------*- C++ -*-===//
//
// `autodist::abi::k<Id>` is the name of AbiNames.def's entry `Id`, e.g.
// abi::kAllReduce = "autodist_rt_allreduce_f32": what the compiler emits.
// Plain C++, no MLIR: the compiler includes it from the runtime's headers.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ABINAMES_H
#define AUTODIST_RUNTIME_ABINAMES_H

namespace autodist::abi {

#define AUTODIST_ABI_NAME(Id, name) inline constexpr char k##Id[] = #name;
#define AUTODIST_ABI_CIFACE(Id, name) AUTODIST_ABI_NAME(Id, name)
#define AUTODIST_ABI_PLAIN(Id, name) AUTODIST_ABI_NAME(Id, name)
#define AUTODIST_ABI_OBJECT(Id, name) AUTODIST_ABI_NAME(Id, name)
#include "autodist/runtime/AbiNames.def"
#undef AUTODIST_ABI_NAME

} // namespace autodist::abi

#endif // AUTODIST_RUNTIME_ABINAMES_H
