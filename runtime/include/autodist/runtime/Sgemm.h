//===- Sgemm.h - Single-precision matrix multiply ---------------*- C++ -*-===//
//
// C = alpha * op(A) * op(B) + beta * C on strided 2-D memrefs, the kernels
// behind `_mlir_ciface_autodist_rt_sgemm` and (A and B of 16-bit floats)
// `_mlir_ciface_autodist_rt_gemm_{bf16,f16}` on the host. Operands whose
// inner stride is 1 (and whose row stride is a valid leading dimension) go to
// OpenBLAS; anything else takes a plain loop.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_SGEMM_H
#define AUTODIST_RUNTIME_SGEMM_H

#include "autodist/runtime/HalfFloat.h"
#include "autodist/runtime/Memref.h"

namespace autodist::rt {

using Matrix = StridedMemref<float, 2>;
/// A matrix of bf16 or f16 elements (their bits; a HalfType says which).
using HalfMatrix = StridedMemref<uint16_t, 2>;

/// The (m, n, k) of C = op(A) * op(B); throws std::invalid_argument if the
/// shapes do not line up. Every device's sgemm checks with it.
struct GemmDims {
  int64_t m, n, k;
};
GemmDims gemmDims(const Matrix &a, const Matrix &b, const Matrix &c,
                  bool transA, bool transB);
/// The ABI's name of gemmHalf for `type`, without autodist_rt_: "gemm_bf16"
/// or "gemm_f16" (for messages and trace events).
inline const char *gemmHalfName(HalfType type) {
  return type == HalfType::BF16 ? "gemm_bf16" : "gemm_f16";
}
/// The same for gemmHalfBias: "gemm_bias_bf16" or "gemm_bias_f16".
inline const char *gemmHalfBiasName(HalfType type) {
  return type == HalfType::BF16 ? "gemm_bias_bf16" : "gemm_bias_f16";
}
/// The same for gemmHalf (the message names it by gemmHalfName).
GemmDims gemmDims(const HalfMatrix &a, const HalfMatrix &b, const Matrix &c,
                  bool transA, bool transB, HalfType type);

/// Throws std::invalid_argument if the shapes do not line up.
void sgemm(const Matrix &a, const Matrix &b, const Matrix &c, bool transA,
           bool transB, float alpha, float beta);

/// sgemm with A and B of 16-bit floats of `type`, any strides: both are
/// widened (exactly) into float32 scratch buffers of the calling thread,
/// kept from call to call, and multiplied by sgemm. Throws
/// std::invalid_argument if the shapes do not line up.
void gemmHalf(HalfType type, const HalfMatrix &a, const HalfMatrix &b,
              const Matrix &c, bool transA, bool transB, float alpha,
              float beta);

/// Whether OPENBLAS_NUM_THREADS / OMP_NUM_THREADS fix the BLAS thread count.
bool blasThreadsFromEnv();

/// Sets the BLAS thread count to `threads` (at least 1) unless
/// blasThreadsFromEnv(); returns the count in effect.
int configureBlasThreads(int threads);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_SGEMM_H
