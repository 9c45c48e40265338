//===- GemmHalfTest.cpp - 16-bit floats and the gemm_bf16/f16 entry points ===//
//
// The conversions of HalfFloat.h against independent ones (the compiler's
// _Float16, the formats' definitions), and the C-ABI gemms with 16-bit A and
// B against a double-precision loop on the values they stand for.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Device.h"
#include "autodist/runtime/HalfFloat.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/Sgemm.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace autodist::rt;
using Half16 = StridedMemref<uint16_t, 2>;
using Floats = StridedMemref<float, 2>;

extern "C" void _mlir_ciface_autodist_rt_gemm_bf16(Half16 *, Half16 *, Floats *,
                                                   int32_t, int32_t, float,
                                                   float);
extern "C" void _mlir_ciface_autodist_rt_gemm_f16(Half16 *, Half16 *, Floats *,
                                                  int32_t, int32_t, float,
                                                  float);

namespace {
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// What the 16 bits `h` stand for, from the format's definition: 1 sign,
/// `expBits` exponent and `manBits` mantissa bits.
double definedValue(uint16_t h, int expBits, int manBits) {
  int bias = (1 << (expBits - 1)) - 1;
  int exp = (h >> manBits) & ((1 << expBits) - 1);
  int man = h & ((1 << manBits) - 1);
  double sign = h & 0x8000 ? -1 : 1;
  if (exp == (1 << expBits) - 1)
    return man ? std::numeric_limits<double>::quiet_NaN()
               : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) // subnormal
    return sign * std::ldexp(man, 1 - bias - manBits);
  return sign * std::ldexp(man + (1 << manBits), exp - bias - manBits);
}

double reference(HalfType type, uint16_t h) {
  return type == HalfType::BF16 ? definedValue(h, 8, 7)
                                : definedValue(h, 5, 10);
}

uint16_t toBits(HalfType type, float f) {
  return type == HalfType::BF16 ? floatToBFloat16(f) : floatToHalf(f);
}

void callGemm(HalfType type, Half16 &a, Half16 &b, Floats &c, bool ta, bool tb,
              float alpha, float beta) {
  if (type == HalfType::BF16)
    _mlir_ciface_autodist_rt_gemm_bf16(&a, &b, &c, ta, tb, alpha, beta);
  else
    _mlir_ciface_autodist_rt_gemm_f16(&a, &b, &c, ta, tb, alpha, beta);
}

uint16_t &at(const Half16 &m, int64_t i, int64_t j) {
  return m.aligned[m.offset + i * m.strides[0] + j * m.strides[1]];
}
float &at(const Floats &m, int64_t i, int64_t j) {
  return m.aligned[m.offset + i * m.strides[0] + j * m.strides[1]];
}

/// How an operand is stored.
enum class Layout {
  Contiguous,  // row-major, no gaps
  Padded,      // row-major, longer rows, an offset
  EveryOther,  // every other column of a wider matrix (inner stride 2)
  ColumnMajor, // inner stride = the row count (+ padding)
};
const Layout kLayouts[] = {Layout::Contiguous, Layout::Padded,
                           Layout::EveryOther, Layout::ColumnMajor};

/// A rows x cols matrix stored as `layout` in `buf` (sized here, filled
/// with `fill`: the unused slots too, so that reading one shows).
template <typename T>
StridedMemref<T, 2> make(std::vector<T> &buf, int64_t rows, int64_t cols,
                         Layout layout, T fill) {
  int64_t offset = 0, rs = cols, cs = 1;
  switch (layout) {
  case Layout::Contiguous:
    break;
  case Layout::Padded:
    offset = 3, rs = cols + 2;
    break;
  case Layout::EveryOther:
    offset = 1, rs = 2 * cols + 1, cs = 2;
    break;
  case Layout::ColumnMajor:
    offset = 2, rs = 1, cs = rows + 1;
    break;
  }
  buf.assign(offset + rows * rs + cols * cs + 1, fill);
  return {buf.data(), buf.data(), offset, {rows, cols}, {rs, cs}};
}

std::string describe(HalfType type, int64_t m, int64_t n, int64_t k, bool ta,
                     bool tb, Layout layout, float alpha, float beta) {
  return std::string(halfTypeName(type)) + " m=" + std::to_string(m) +
         " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
         " layout=" + std::to_string(int(layout)) +
         " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

/// Checks one call against a double-precision loop on the values A's and
/// B's bits stand for. The products are exact in float32, so the only
/// difference is float32 summation: 1e-6 relative to the sum of the terms'
/// magnitudes.
void check(HalfType type, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
           Layout layout, float alpha, float beta, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  uint16_t garbage = toBits(type, 1e4f);
  std::vector<uint16_t> ab, bb;
  std::vector<float> cb;
  Half16 a =
      ta ? make(ab, k, m, layout, garbage) : make(ab, m, k, layout, garbage);
  Half16 b =
      tb ? make(bb, n, k, layout, garbage) : make(bb, k, n, layout, garbage);
  Floats c = make(cb, m, n, layout, std::numeric_limits<float>::quiet_NaN());
  for (Half16 *x : {&a, &b})
    for (int64_t i = 0; i < x->sizes[0]; ++i)
      for (int64_t j = 0; j < x->sizes[1]; ++j)
        at(*x, i, j) = toBits(type, dist(gen));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      at(c, i, j) =
          beta == 0 ? std::numeric_limits<float>::quiet_NaN() : dist(gen);
  std::vector<double> want(m * n), scale(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        double t = reference(type, ta ? at(a, p, i) : at(a, i, p)) *
                   reference(type, tb ? at(b, j, p) : at(b, p, j));
        sum += t;
        mag += std::fabs(t);
      }
      double old = beta == 0 ? 0 : beta * double(at(c, i, j));
      want[i * n + j] = alpha * sum + old;
      scale[i * n + j] = std::fabs(alpha) * mag + std::fabs(old);
    }
  callGemm(type, a, b, c, ta, tb, alpha, beta);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_NEAR(at(c, i, j), want[i * n + j], 1e-6 * scale[i * n + j])
          << describe(type, m, n, k, ta, tb, layout, alpha, beta) << " at ("
          << i << ", " << j << ")";
  // C's gaps are untouched.
  std::vector<bool> inC(cb.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      inC[&at(c, i, j) - cb.data()] = true;
  for (size_t i = 0; i < cb.size(); ++i)
    if (!inC[i]) {
      ASSERT_TRUE(std::isnan(cb[i]))
          << describe(type, m, n, k, ta, tb, layout, alpha, beta)
          << ": C's unused slot " << i << " written";
    }
}
} // namespace

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST(HalfFloat, HalfToFloatIsExactForEveryBitPattern) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float got = halfToFloat(uint16_t(h));
    _Float16 x;
    uint16_t bits = uint16_t(h);
    std::memcpy(&x, &bits, 2);
    float compiler = static_cast<float>(x);
    double defined = definedValue(uint16_t(h), 5, 10);
    if (std::isnan(defined)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
      ASSERT_EQ(std::signbit(got), bool(h & 0x8000)) << std::hex << h;
      continue;
    }
    ASSERT_EQ(double(got), defined) << std::hex << h;
    ASSERT_EQ(bitsOf(got), bitsOf(compiler)) << std::hex << h; // -0 too
  }
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14)); // smallest normal
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(HalfFloat, FloatToHalfRoundsToNearestEven) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    if (!std::isnan(halfToFloat(uint16_t(h)))) {
      ASSERT_EQ(floatToHalf(halfToFloat(uint16_t(h))), h) << std::hex << h;
    }
  }
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3c00);    // tie: even
  EXPECT_EQ(floatToHalf(1.0f + 3.0f / 2048), 0x3c02);    // tie: even
  EXPECT_EQ(floatToHalf(1.0f + 1.5f / 2048), 0x3c01);    // above the tie
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);              // overflow
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie to zero
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
}

TEST(HalfFloat, BFloat16IsTheUpperHalf) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = bfloat16ToFloat(uint16_t(h));
    ASSERT_EQ(bitsOf(f), h << 16);
    double defined = definedValue(uint16_t(h), 8, 7);
    if (!std::isnan(defined)) {
      ASSERT_EQ(double(f), defined) << std::hex << h;
      ASSERT_EQ(floatToBFloat16(f), h) << std::hex << h;
    } else {
      ASSERT_TRUE(std::isnan(bfloat16ToFloat(floatToBFloat16(f))));
    }
  }
  EXPECT_EQ(floatToBFloat16(1.0f + 1.0f / 256), 0x3f80); // tie: even
  EXPECT_EQ(floatToBFloat16(1.0f + 3.0f / 256), 0x3f82); // tie: even
}

//===----------------------------------------------------------------------===//
// gemm_bf16, gemm_f16
//===----------------------------------------------------------------------===//

TEST(GemmHalf, MatchesDoubleLoopForAllLayouts) {
  unsigned seed = 1;
  for (HalfType type : {HalfType::BF16, HalfType::F16})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (Layout layout : kLayouts) {
          check(type, 5, 7, 3, ta, tb, layout, 1.0f, 0.0f, seed++);
          check(type, 4, 2, 9, ta, tb, layout, -0.5f, 2.0f, seed++);
          check(type, 1, 1, 1, ta, tb, layout, 2.0f, 1.0f, seed++);
          check(type, 6, 1, 4, ta, tb, layout, 0.75f, -1.0f, seed++);
          check(type, 1, 5, 4, ta, tb, layout, 1.0f, 0.5f, seed++);
        }
}

// Large enough for OpenBLAS's blocked kernels, and twice per size: the
// second call reuses the scratch buffers the first grew.
TEST(GemmHalf, LargerMatricesAndRepeatedCalls) {
  unsigned seed = 100;
  for (HalfType type : {HalfType::BF16, HalfType::F16})
    for (Layout layout : {Layout::Padded, Layout::ColumnMajor})
      for (int repeat = 0; repeat < 2; ++repeat) {
        check(type, 37, 53, 29, false, true, layout, 1.5f, 0.0f, seed++);
        check(type, 37, 53, 29, true, false, layout, 1.0f, 1.0f, seed++);
      }
}

TEST(GemmHalf, ZeroSizedDimensions) {
  for (HalfType type : {HalfType::BF16, HalfType::F16}) {
    check(type, 0, 3, 2, false, false, Layout::Contiguous, 1, 1, 1);
    check(type, 3, 0, 2, false, true, Layout::Contiguous, 1, 1, 2);
    check(type, 3, 2, 0, true, false, Layout::Contiguous, 1, 0.5f, 3);
    check(type, 3, 2, 0, false, false, Layout::Contiguous, 1, 0, 4);
  }
}

// Values bf16 holds exactly (few mantissa bits): every product and sum is
// exact, so the result is too.
TEST(GemmHalf, ExactValuesGiveExactResults) {
  for (HalfType type : {HalfType::BF16, HalfType::F16}) {
    // A = [[1.5, -2], [0.25, 3]], B = [[0.5, 4], [-0.125, 1024]].
    const float as[] = {1.5f, -2.0f, 0.25f, 3.0f},
                bs[] = {0.5f, 4.0f, -0.125f, 1024.0f};
    std::vector<uint16_t> av, bv;
    for (int i = 0; i < 4; ++i) {
      av.push_back(toBits(type, as[i]));
      bv.push_back(toBits(type, bs[i]));
      ASSERT_EQ(reference(type, av[i]), as[i]); // the conversion is exact
      ASSERT_EQ(reference(type, bv[i]), bs[i]);
    }
    std::vector<float> cv = {NAN, NAN, NAN, NAN};
    Half16 a{av.data(), av.data(), 0, {2, 2}, {2, 1}};
    Half16 b{bv.data(), bv.data(), 0, {2, 2}, {2, 1}};
    Floats c{cv.data(), cv.data(), 0, {2, 2}, {2, 1}};
    // beta = 0: C's NaNs are not read.
    callGemm(type, a, b, c, false, false, 1, 0);
    EXPECT_EQ(cv, std::vector<float>({1.0f, -2042.0f, -0.25f, 3073.0f}))
        << halfTypeName(type);
    // beta = 1 accumulates, alpha scales.
    callGemm(type, a, b, c, false, false, 2, 1);
    EXPECT_EQ(cv, std::vector<float>({3.0f, -6126.0f, -0.75f, 9219.0f}))
        << halfTypeName(type);
    // op(A) = A^T, op(B) = B^T, beta = -1: A^T B^T = [[1.75, 255.8125],
    // [11, 3072.25]], so C = 0.5 * that - C.
    callGemm(type, a, b, c, true, true, 0.5f, -1);
    EXPECT_EQ(cv, std::vector<float>({-2.125f, 6253.90625f, 6.25f, -7682.875f}))
        << halfTypeName(type);
  }
}

// Subnormal, largest and infinite halves reach the product as they are.
TEST(GemmHalf, F16SubnormalsAndInfinity) {
  // A = [2^-24 (subnormal), 1023 * 2^-24 (largest subnormal), 2^-14]
  // B = [2048, 65504, -0.5]^T
  std::vector<uint16_t> av = {0x0001, 0x03ff, 0x0400},
                        bv = {0x6800, 0x7bff, 0xb800};
  std::vector<float> cv = {NAN};
  Half16 a{av.data(), av.data(), 0, {1, 3}, {3, 1}};
  Half16 b{bv.data(), bv.data(), 0, {3, 1}, {1, 1}};
  Floats c{cv.data(), cv.data(), 0, {1, 1}, {1, 1}};
  _mlir_ciface_autodist_rt_gemm_f16(&a, &b, &c, 0, 0, 1, 0);
  double want = std::ldexp(2048.0, -24) + std::ldexp(1023.0 * 65504, -24) -
                std::ldexp(0.5, -14);
  EXPECT_EQ(double(cv[0]), want); // exact in float32
  av[2] = 0x7c00;                 // +inf
  _mlir_ciface_autodist_rt_gemm_f16(&a, &b, &c, 0, 0, 1, 0);
  EXPECT_EQ(cv[0], -std::numeric_limits<float>::infinity());
  av[2] = 0x7e00; // NaN
  _mlir_ciface_autodist_rt_gemm_f16(&a, &b, &c, 0, 0, 1, 0);
  EXPECT_TRUE(std::isnan(cv[0]));
}

// The same buffers as bf16 and as f16 mean different numbers.
TEST(GemmHalf, TypeSelectsTheConversion) {
  std::vector<uint16_t> av = {0x3c00}, bv = {0x4000}; // f16 1, 2
  std::vector<float> cv = {0};
  Half16 a{av.data(), av.data(), 0, {1, 1}, {1, 1}};
  Half16 b{bv.data(), bv.data(), 0, {1, 1}, {1, 1}};
  Floats c{cv.data(), cv.data(), 0, {1, 1}, {1, 1}};
  _mlir_ciface_autodist_rt_gemm_f16(&a, &b, &c, 0, 0, 1, 0);
  EXPECT_EQ(cv[0], 2.0f);
  _mlir_ciface_autodist_rt_gemm_bf16(&a, &b, &c, 0, 0, 1, 0);
  EXPECT_EQ(cv[0], float(reference(HalfType::BF16, 0x3c00) *
                         reference(HalfType::BF16, 0x4000)));
  EXPECT_EQ(cv[0], 2.0f * std::ldexp(1.0f, -7)); // bf16 0x3c00 = 2^-7
}

// The C interface ends the process on a mismatch (a compiler bug); the
// device call it makes throws.
TEST(GemmHalf, ShapeMismatchIsInvalidArgument) {
  std::vector<uint16_t> buf(64);
  std::vector<float> cbuf(64);
  Half16 a{buf.data(), buf.data(), 0, {2, 3}, {3, 1}};
  Half16 b{buf.data(), buf.data(), 0, {2, 2}, {2, 1}};
  Floats c{cbuf.data(), cbuf.data(), 0, {2, 2}, {2, 1}};
  for (HalfType type : {HalfType::BF16, HalfType::F16}) {
    try {
      device().gemmHalf(type, a, b, c, false, false, 1, 0);
      FAIL() << "no exception";
    } catch (const std::invalid_argument &e) {
      std::string want = std::string("gemm_") + halfTypeName(type) +
                         ": shape mismatch: A 2x3, B 2x2, C 2x2";
      EXPECT_EQ(e.what(), want);
    }
    // A^T is 3x2: k = 2 lines up with B, but m = 3 does not with C.
    EXPECT_THROW(device().gemmHalf(type, a, b, c, true, false, 1, 0),
                 std::invalid_argument);
    // B^T (2x2) after A (2x3): k = 3 against 2.
    EXPECT_THROW(device().gemmHalf(type, a, b, c, false, true, 1, 0),
                 std::invalid_argument);
    // A C of the wrong width.
    Floats wide{cbuf.data(), cbuf.data(), 0, {2, 3}, {3, 1}};
    Half16 b32{buf.data(), buf.data(), 0, {3, 2}, {2, 1}};
    EXPECT_THROW(device().gemmHalf(type, a, b32, wide, false, false, 1, 0),
                 std::invalid_argument);
    EXPECT_NO_THROW(device().gemmHalf(type, a, b32, c, false, false, 1, 0));
  }
}
