//===- CollectiveAbi.h - the ABI's collectives, for the tests ---*- C++ -*-===//
//
// The C-interface entry points of the runtime's collectives (docs/abi.md),
// declared once for the tests that call them as compiled code would.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_TEST_RUNTIME_COLLECTIVEABI_H
#define AUTODIST_TEST_RUNTIME_COLLECTIVEABI_H

#include "autodist/runtime/Memref.h"

#include <cstdint>

using autodist::rt::StridedMemref;

extern "C" {
void _mlir_ciface_autodist_rt_allreduce_f32(StridedMemref<float, 1> *, int32_t);
void _mlir_ciface_autodist_rt_allreduce_fp16_f32(StridedMemref<float, 1> *,
                                                 int32_t);
int32_t _mlir_ciface_autodist_rt_allreduce_start_f32(StridedMemref<float, 1> *);
void _mlir_ciface_autodist_rt_allreduce_wait_f32(StridedMemref<float, 1> *,
                                                 int32_t, int32_t);
void _mlir_ciface_autodist_rt_reduce_f32(StridedMemref<float, 1> *, int32_t,
                                         int32_t, int32_t);
void _mlir_ciface_autodist_rt_broadcast_f32(StridedMemref<float, 1> *, int32_t,
                                            int32_t);
}

#endif // AUTODIST_TEST_RUNTIME_COLLECTIVEABI_H
