//===- Sgemm.h - Single-precision matrix multiply ---------------*- C++ -*-===//
//
// C = alpha * op(A) * op(B) + beta * C on strided 2-D memrefs, the kernel
// behind `_mlir_ciface_autodist_rt_sgemm`. Operands whose inner stride is 1
// (and whose row stride is a valid leading dimension) go to OpenBLAS; anything
// else takes a plain loop.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_SGEMM_H
#define AUTODIST_RUNTIME_SGEMM_H

#include "autodist/runtime/Memref.h"

namespace autodist::rt {

using Matrix = StridedMemref<float, 2>;

/// The (m, n, k) of C = op(A) * op(B); throws std::invalid_argument if the
/// shapes do not line up. Every device's sgemm checks with it.
struct GemmDims {
  int64_t m, n, k;
};
GemmDims gemmDims(const Matrix &a, const Matrix &b, const Matrix &c,
                  bool transA, bool transB);

/// Throws std::invalid_argument if the shapes do not line up.
void sgemm(const Matrix &a, const Matrix &b, const Matrix &c, bool transA,
           bool transB, float alpha, float beta);

/// Whether OPENBLAS_NUM_THREADS / OMP_NUM_THREADS fix the BLAS thread count.
bool blasThreadsFromEnv();

/// Sets the BLAS thread count to `threads` (at least 1) unless
/// blasThreadsFromEnv(); returns the count in effect.
int configureBlasThreads(int threads);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_SGEMM_H
