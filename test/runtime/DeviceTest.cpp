//===- DeviceTest.cpp - The host device's defaults and refusals -----------===//

#include "autodist/runtime/Device.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/HalfFloat.h"
#include "autodist/runtime/Sgemm.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

using namespace autodist::rt;

// A model compiled with --precision=tf32 (only the cuda target builds one)
// started on the host: an error naming the flag, not silently f32.
TEST(HostDeviceTest, RefusesTF32) {
  EXPECT_STREQ(device().name(), "cpu");
  EXPECT_NO_THROW(device().allowTF32(false));
  try {
    device().allowTF32(true);
    FAIL() << "the host accepted TF32";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "this model was compiled with --precision=tf32, which needs "
                 "a device with TF32 tensor cores; the cpu device has none "
                 "(compile it with --target=cuda)");
  }
}

// The ABI's sgemm_bias on the host: the bias in every row of C, then sgemm
// with beta = 1, bit for bit (what the unfused IR computes, so the cuda
// target's bias-epilogue rewrite emulated on the host equals the CPU).
TEST(HostDeviceTest, SgemmBiasIsBroadcastThenSgemm) {
  const int64_t m = 3, n = 4, k = 5;
  std::vector<float> a(m * k), b(k * n), bias(n), fused(m * n, -7.0f),
      unfused(m * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = 0.1f * static_cast<float>(i) - 0.7f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = 0.3f - 0.05f * static_cast<float>(i);
  for (int64_t j = 0; j < n; ++j)
    bias[j] = 0.25f * static_cast<float>(j) - 0.4f;
  StridedMemref<float, 2> ma{a.data(), a.data(), 0, {m, k}, {k, 1}},
      mb{b.data(), b.data(), 0, {k, n}, {n, 1}},
      mf{fused.data(), fused.data(), 0, {m, n}, {n, 1}},
      mu{unfused.data(), unfused.data(), 0, {m, n}, {n, 1}};
  StridedMemref<float, 1> mbias{bias.data(), bias.data(), 0, {n}, {1}};
  device().sgemmBias(ma, mb, mbias, mf, false, false, 1.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      unfused[i * n + j] = bias[j];
  sgemm(ma, mb, mu, false, false, 1.0f, 1.0f);
  EXPECT_EQ(fused, unfused);

  // 16-bit operands: the same through gemmHalf.
  std::vector<uint16_t> ha(m * k), hb(k * n);
  for (size_t i = 0; i < ha.size(); ++i)
    ha[i] = floatToBFloat16(a[i]);
  for (size_t i = 0; i < hb.size(); ++i)
    hb[i] = floatToBFloat16(b[i]);
  StridedMemref<uint16_t, 2> mha{ha.data(), ha.data(), 0, {m, k}, {k, 1}},
      mhb{hb.data(), hb.data(), 0, {k, n}, {n, 1}};
  device().gemmHalfBias(HalfType::BF16, mha, mhb, mbias, mf, false, false,
                        1.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      unfused[i * n + j] = bias[j];
  device().gemmHalf(HalfType::BF16, mha, mhb, mu, false, false, 1.0f, 1.0f);
  EXPECT_EQ(fused, unfused);

  StridedMemref<float, 1> shortBias{bias.data(), bias.data(), 0, {n - 1}, {1}};
  EXPECT_THROW(device().sgemmBias(ma, mb, shortBias, mf, false, false, 1.0f),
               std::invalid_argument);
}
