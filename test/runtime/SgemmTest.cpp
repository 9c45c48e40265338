//===- SgemmTest.cpp - The sgemm C-ABI entry point ------------------------===//

#include "autodist/runtime/Memref.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>

using namespace autodist::rt;
using Matrix = StridedMemref<float, 2>;

extern "C" void _mlir_ciface_autodist_rt_sgemm(Matrix *, Matrix *, Matrix *,
                                               int32_t, int32_t, float, float);

namespace {
/// A rows x cols view into `buf` at `offset` with the given strides.
Matrix view(std::vector<float> &buf, int64_t offset, int64_t rows, int64_t cols,
            int64_t rowStride, int64_t colStride) {
  return {buf.data(), buf.data(), offset, {rows, cols}, {rowStride, colStride}};
}

float &at(const Matrix &m, int64_t i, int64_t j) {
  return m.aligned[m.offset + i * m.strides[0] + j * m.strides[1]];
}

std::vector<float> randomBuffer(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// Checks sgemm against a double-precision loop for one layout choice.
/// `padding` widens row strides; `colMajor` transposes the storage of the
/// operands (inner stride != 1), which forces the fallback loop.
void check(int64_t m, int64_t n, int64_t k, bool ta, bool tb, int64_t padding,
           bool colMajor, float alpha, float beta) {
  auto make = [&](std::vector<float> &buf, int64_t rows, int64_t cols) {
    int64_t offset = 3;
    buf = randomBuffer(offset + (rows + padding) * (cols + padding), rows);
    return colMajor ? view(buf, offset, rows, cols, 1, rows + padding)
                    : view(buf, offset, rows, cols, cols + padding, 1);
  };
  std::vector<float> ab, bb, cb;
  Matrix a = ta ? make(ab, k, m) : make(ab, m, k);
  Matrix b = tb ? make(bb, n, k) : make(bb, k, n);
  Matrix c = make(cb, m, n);
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(ta ? at(a, p, i) : at(a, i, p)) *
               (tb ? at(b, j, p) : at(b, p, j));
      want[i * n + j] = alpha * sum + beta * at(c, i, j);
    }
  _mlir_ciface_autodist_rt_sgemm(&a, &b, &c, ta, tb, alpha, beta);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_NEAR(at(c, i, j), want[i * n + j], 1e-4)
          << "m=" << m << " n=" << n << " k=" << k << " ta=" << ta
          << " tb=" << tb << " padding=" << padding << " colMajor=" << colMajor
          << " at (" << i << ", " << j << ")";
}
} // namespace

TEST(Sgemm, MatchesNaiveForAllLayouts) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t padding : {0, 2})
        for (bool colMajor : {false, true}) {
          check(5, 7, 3, ta, tb, padding, colMajor, 1.0f, 0.0f);
          check(4, 2, 9, ta, tb, padding, colMajor, -0.5f, 2.0f);
          check(1, 1, 1, ta, tb, padding, colMajor, 2.0f, 1.0f);
        }
}

TEST(Sgemm, ZeroSizedDimensions) {
  for (bool colMajor : {false, true}) {
    check(0, 3, 2, false, false, 0, colMajor, 1, 1);
    check(3, 0, 2, false, true, 0, colMajor, 1, 1);
    check(3, 2, 0, true, false, 0, colMajor, 1, 0.5f); // C = beta * C
  }
}

TEST(Sgemm, BetaZeroIgnoresGarbageInC) {
  std::vector<float> a = {1, 2}, b = {3, 4}, c = {NAN};
  Matrix ma = view(a, 0, 1, 2, 2, 1), mb = view(b, 0, 2, 1, 1, 1),
         mc = view(c, 0, 1, 1, 1, 1);
  _mlir_ciface_autodist_rt_sgemm(&ma, &mb, &mc, 0, 0, 1, 0);
  EXPECT_EQ(c[0], 11);
  std::vector<float> z = {NAN};
  Matrix empty = view(a, 0, 1, 0, 1, 1), emptyB = view(b, 0, 0, 1, 1, 1),
         mz = view(z, 0, 1, 1, 1, 1);
  _mlir_ciface_autodist_rt_sgemm(&empty, &emptyB, &mz, 0, 0, 1, 0);
  EXPECT_EQ(z[0], 0);
}

// Single rows / columns have meaningless strides in MLIR layouts; BLAS must
// still get a valid leading dimension.
TEST(Sgemm, DegenerateStrides) {
  std::vector<float> a = {1, 2, 3}, b = {4, 0, 5, 0, 6}, c = {0.5f};
  Matrix ma = view(a, 0, 1, 3, 1, 1); // 1x3, row stride 1 < 3 columns
  Matrix mb = view(b, 0, 3, 1, 2, 7); // 3x1, column stride 7
  Matrix mc = view(c, 0, 1, 1, 0, 0); // 1x1, zero strides
  _mlir_ciface_autodist_rt_sgemm(&ma, &mb, &mc, 0, 0, 1, 2);
  EXPECT_EQ(c[0], 1 * 4 + 2 * 5 + 3 * 6 + 1);
}
