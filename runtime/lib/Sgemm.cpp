//===- Sgemm.cpp - Single-precision matrix multiply -----------------------===//

#include "autodist/runtime/Sgemm.h"
#ifdef AUTODIST_HAVE_ONEDNN
#include "autodist/runtime/DnnlConv.h"
#endif

#include <algorithm>
#include <cblas.h>
#include <cstdlib>
#include <stdexcept>
#include <string>

// OpenBLAS extensions; declared here because not every cblas.h has them.
extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads();

namespace autodist::rt {

namespace {
/// Element (i, j) of op(m).
inline float &at(const Matrix &m, bool trans, int64_t i, int64_t j) {
  if (trans)
    std::swap(i, j);
  return m.aligned[m.offset + i * m.strides[0] + j * m.strides[1]];
}

/// The leading dimension with which BLAS can address `m` as a row-major
/// matrix, or 0 if it cannot. The inner stride must be 1 unless there is a
/// single column; a single row may have any row stride.
int64_t leadingDim(const Matrix &m) {
  int64_t rows = m.sizes[0], cols = m.sizes[1],
          minLd = std::max<int64_t>(1, cols);
  if (cols > 1 && m.strides[1] != 1)
    return 0;
  int64_t ld = rows > 1 ? m.strides[0] : minLd;
  return ld >= minLd && ld <= 0x7fffffff ? ld : 0; // cblas takes int
}
} // namespace

GemmDims gemmDims(const Matrix &a, const Matrix &b, const Matrix &c,
                  bool transA, bool transB) {
  int64_t m = c.sizes[0], n = c.sizes[1];
  int64_t k = transA ? a.sizes[0] : a.sizes[1];
  if ((transA ? a.sizes[1] : a.sizes[0]) != m ||
      (transB ? b.sizes[1] : b.sizes[0]) != k ||
      (transB ? b.sizes[0] : b.sizes[1]) != n)
    throw std::invalid_argument(
        "sgemm: shape mismatch: A " + std::to_string(a.sizes[0]) + "x" +
        std::to_string(a.sizes[1]) + (transA ? "^T" : "") + ", B " +
        std::to_string(b.sizes[0]) + "x" + std::to_string(b.sizes[1]) +
        (transB ? "^T" : "") + ", C " + std::to_string(m) + "x" +
        std::to_string(n));
  return {m, n, k};
}

void sgemm(const Matrix &a, const Matrix &b, const Matrix &c, bool transA,
           bool transB, float alpha, float beta) {
  auto [m, n, k] = gemmDims(a, b, c, transA, transB);
  if (m == 0 || n == 0)
    return;

  constexpr int64_t intMax = 0x7fffffff; // cblas takes int dimensions
  int64_t lda = leadingDim(a), ldb = leadingDim(b), ldc = leadingDim(c);
  if (k > 0 && lda && ldb && ldc && std::max({m, n, k}) <= intMax) {
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                transB ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a.aligned + a.offset, lda, b.aligned + b.offset, ldb, beta,
                c.aligned + c.offset, ldc);
    return;
  }
  // BLAS semantics: with beta == 0, C is not read (it may hold NaNs).
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += at(a, transA, i, p) * at(b, transB, p, j);
      float &out = at(c, false, i, j);
      out = beta == 0 ? alpha * sum : alpha * sum + beta * out;
    }
}

bool blasThreadsFromEnv() {
  return std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("OMP_NUM_THREADS");
}

int configureBlasThreads(int threads) {
  if (!blasThreadsFromEnv())
    openblas_set_num_threads(std::max(1, threads));
  int inEffect = openblas_get_num_threads();
#ifdef AUTODIST_HAVE_ONEDNN
  // oneDNN's OpenMP threads: OMP_NUM_THREADS when set, else as OpenBLAS.
  configureDnnlThreads(inEffect);
#endif
  return inEffect;
}

} // namespace autodist::rt
