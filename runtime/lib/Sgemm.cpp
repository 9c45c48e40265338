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
#include <utility>
#include <vector>

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

/// gemmDims on the sizes; `op` names the call in the message.
GemmDims dimsOf(const int64_t (&a)[2], const int64_t (&b)[2],
                const int64_t (&c)[2], bool transA, bool transB,
                const char *op) {
  int64_t m = c[0], n = c[1];
  int64_t k = transA ? a[0] : a[1];
  if ((transA ? a[1] : a[0]) != m || (transB ? b[1] : b[0]) != k ||
      (transB ? b[0] : b[1]) != n)
    throw std::invalid_argument(
        std::string(op) + ": shape mismatch: A " + std::to_string(a[0]) + "x" +
        std::to_string(a[1]) + (transA ? "^T" : "") + ", B " +
        std::to_string(b[0]) + "x" + std::to_string(b[1]) +
        (transB ? "^T" : "") + ", C " + std::to_string(m) + "x" +
        std::to_string(n));
  return {m, n, k};
}

/// The rows x cols matrix at `src` (strides rs, cs) widened into `dst`,
/// row-major; one instance per conversion, so that it inlines.
template <float (*Widen)(uint16_t)>
void widenRows(const uint16_t *src, int64_t rs, int64_t cs, int64_t rows,
               int64_t cols, float *dst) {
  for (int64_t i = 0; i < rows; ++i, dst += cols) {
    const uint16_t *row = src + i * rs;
    if (cs == 1) // the common case: a loop the compiler vectorizes
      for (int64_t j = 0; j < cols; ++j)
        dst[j] = Widen(row[j]);
    else
      for (int64_t j = 0; j < cols; ++j)
        dst[j] = Widen(row[j * cs]);
  }
}

/// `h` widened into `buf` as a contiguous float matrix with the same op():
/// read in its storage order, so a column-major `h` becomes the row-major
/// copy of its transpose and `trans` flips. `buf` only grows, so that
/// repeated calls of one size allocate nothing.
Matrix widen(HalfType type, const HalfMatrix &h, bool &trans,
             std::vector<float> &buf) {
  int64_t rows = h.sizes[0], cols = h.sizes[1];
  int64_t rs = h.strides[0], cs = h.strides[1];
  if (rows > 1 && cols > 1 && std::abs(cs) > std::abs(rs)) {
    std::swap(rows, cols);
    std::swap(rs, cs);
    trans = !trans;
  }
  size_t size = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (buf.size() < size)
    buf.resize(size);
  const uint16_t *src = h.aligned + h.offset;
  if (type == HalfType::BF16)
    widenRows<bfloat16ToFloat>(src, rs, cs, rows, cols, buf.data());
  else
    widenRows<halfToFloat>(src, rs, cs, rows, cols, buf.data());
  return {buf.data(), buf.data(), 0, {rows, cols}, {cols, 1}};
}
} // namespace

GemmDims gemmDims(const Matrix &a, const Matrix &b, const Matrix &c,
                  bool transA, bool transB) {
  return dimsOf(a.sizes, b.sizes, c.sizes, transA, transB, "sgemm");
}

GemmDims gemmDims(const HalfMatrix &a, const HalfMatrix &b, const Matrix &c,
                  bool transA, bool transB, HalfType type) {
  return dimsOf(a.sizes, b.sizes, c.sizes, transA, transB, gemmHalfName(type));
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

void gemmHalf(HalfType type, const HalfMatrix &a, const HalfMatrix &b,
              const Matrix &c, bool transA, bool transB, float alpha,
              float beta) {
  auto [m, n, k] = gemmDims(a, b, c, transA, transB, type);
  if (m == 0 || n == 0)
    return;
  // Products of two 16-bit floats are exact in float32, so this is sgemm on
  // the widened values; widening first lets OpenBLAS do the O(mnk) part.
  thread_local std::vector<float> bufA, bufB;
  Matrix wa = widen(type, a, transA, bufA);
  Matrix wb = widen(type, b, transB, bufB);
  sgemm(wa, wb, c, transA, transB, alpha, beta);
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
