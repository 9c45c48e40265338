//===- CudaRuntimeTest.cpp - The CUDA runtime without a GPU ---------------===//
//
// What the CUDA part of the runtime must do on a machine without a GPU (or
// before select()): report the missing device in one line, serve memory from
// the host, check the gemms' arguments, let compiled code's module constructors
// run, and refuse kernels clearly. With a GPU present, the no-device test is
// skipped.
//
//===----------------------------------------------------------------------===//

#include "GpuPresent.h"
#include "autodist/runtime/cuda/CudaDevice.h"

#include "CudaContext.h"
#include "NcclCommunicator.h"

#include "autodist/runtime/Communicator.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Sgemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <unistd.h>

extern "C" {
void *mgpuModuleLoad(void *data, uint64_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *f, int64_t gx, int64_t gy, int64_t gz, int64_t bx,
                      int64_t by, int64_t bz, int32_t smem, void *stream,
                      void **params, void **extra, int64_t nparams);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void *mgpuStreamCreate();
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
}

using namespace autodist::rt;

namespace {

using test::gpuPresent;

StridedMemref<float, 2> matrix(float *data, int64_t rows, int64_t cols,
                               int64_t rowStride, int64_t innerStride) {
  return {data, data, 0, {rows, cols}, {rowStride, innerStride}};
}

TEST(CudaDeviceTest, Name) {
  EXPECT_STREQ(cudaDevice().name(), "cuda");
  EXPECT_EQ(cudaDevice().describe(), "cuda (no device selected)");
}

TEST(CudaDeviceTest, SelectWithoutDeviceIsOneLineError) {
  if (gpuPresent())
    GTEST_SKIP() << "a CUDA device is present";
  try {
    cudaDevice().select(0);
    FAIL() << "select() succeeded without a device";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind("no CUDA device: ", 0), 0u) << message;
    EXPECT_NE(message.find("(this executable was compiled with "
                           "--target=cuda)"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(e.exitCode(), ExitData);
  }
  EXPECT_FALSE(cuda::deviceSelected());
  EXPECT_EQ(cuda::computeStream(), nullptr);
}

TEST(CudaDeviceTest, SharedMemoryBeforeSelectIsZeroedHostMemory) {
  Device &d = cudaDevice();
  ASSERT_FALSE(cuda::deviceSelected());
  auto *p = static_cast<unsigned char *>(d.allocateShared(1000, 64));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(p[i], 0) << i;
  std::memset(p, 0xab, 1000);
  void *q = d.allocateShared(0, 16);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q, static_cast<void *>(p));
  d.freeShared(p);
  d.freeShared(q);
  d.freeShared(nullptr);
  // The host device's memory (before setDevice) is freed too.
  d.freeShared(std::aligned_alloc(64, 64));
}

TEST(CudaDeviceTest, DeviceMemoryBeforeSelectIsHostMemory) {
  Device &d = cudaDevice();
  void *p = d.allocateDevice(4096, 256);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  std::memset(p, 1, 4096);
  d.freeDevice(p);
  d.freeDevice(nullptr);
  EXPECT_NO_THROW(d.synchronize());
}

TEST(CudaDeviceTest, SgemmNeedsUnitInnerStride) {
  float a[16] = {}, b[16] = {}, c[16] = {};
  Device &d = cudaDevice();
  try {
    d.sgemm(matrix(a, 2, 2, 4, 2), matrix(b, 2, 2, 2, 1), matrix(c, 2, 2, 2, 1),
            false, false, 1, 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("inner stride 1"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("A (2x2"), std::string::npos)
        << e.what();
  }
  // A row stride shorter than the row.
  EXPECT_THROW(d.sgemm(matrix(a, 2, 2, 2, 1), matrix(b, 2, 2, 2, 1),
                       matrix(c, 2, 2, 1, 1), false, false, 1, 0),
               std::invalid_argument);
  // Shapes that do not line up.
  EXPECT_THROW(d.sgemm(matrix(a, 2, 3, 3, 1), matrix(b, 2, 2, 2, 1),
                       matrix(c, 2, 2, 2, 1), false, false, 1, 0),
               std::invalid_argument);
  // transB makes them line up: valid, but there is no device.
  EXPECT_THROW(d.sgemm(matrix(a, 2, 3, 3, 1), matrix(b, 2, 3, 3, 1),
                       matrix(c, 2, 2, 2, 1), false, true, 1, 0),
               std::logic_error);
  // A single column may have any inner stride, a single row any row stride.
  EXPECT_THROW(d.sgemm(matrix(a, 2, 1, 1, 7), matrix(b, 1, 2, 0, 1),
                       matrix(c, 2, 2, 2, 1), false, false, 1, 0),
               std::logic_error);
  // Empty: nothing to do, even without a device.
  EXPECT_NO_THROW(d.sgemm(matrix(a, 0, 2, 2, 1), matrix(b, 2, 2, 2, 1),
                          matrix(c, 0, 2, 2, 1), false, false, 1, 0));
}

TEST(CudaDeviceTest, GemmHalfChecksArguments) {
  uint16_t a[16] = {}, b[16] = {};
  float c[16] = {};
  auto half = [](uint16_t *data, int64_t rows, int64_t cols, int64_t rs,
                 int64_t cs) {
    return StridedMemref<uint16_t, 2>{data, data, 0, {rows, cols}, {rs, cs}};
  };
  Device &d = cudaDevice();
  try {
    d.gemmHalf(HalfType::BF16, half(a, 2, 2, 4, 2), half(b, 2, 2, 2, 1),
               matrix(c, 2, 2, 2, 1), false, false, 1, 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_EQ(std::string(e.what()).rfind("gemm_bf16 on CUDA: A (2x2", 0), 0u)
        << e.what();
  }
  try {
    d.gemmHalf(HalfType::F16, half(a, 2, 3, 3, 1), half(b, 2, 2, 2, 1),
               matrix(c, 2, 2, 2, 1), false, false, 1, 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_EQ(std::string(e.what()).rfind("gemm_f16: shape mismatch", 0), 0u)
        << e.what();
  }
  if (!cuda::deviceSelected()) { // valid, but there is no device yet
    try {
      d.gemmHalf(HalfType::BF16, half(a, 2, 3, 3, 1), half(b, 2, 3, 3, 1),
                 matrix(c, 2, 2, 2, 1), false, true, 1, 0);
      FAIL() << "no exception";
    } catch (const std::logic_error &e) {
      EXPECT_STREQ(e.what(), "gemm_bf16 on the CUDA device before select()");
    }
  }
  EXPECT_NO_THROW(d.gemmHalf(HalfType::F16, half(a, 0, 2, 2, 1),
                             half(b, 2, 2, 2, 1), matrix(c, 0, 2, 2, 1), false,
                             false, 1, 0));
}

// sgemm_bias checks its bias against C's columns before writing anything.
TEST(CudaDeviceTest, SgemmBiasChecksTheBias) {
  float a[6] = {}, b[6] = {}, c[4] = {1, 2, 3, 4}, bias[3] = {};
  StridedMemref<float, 2> ma{a, a, 0, {2, 3}, {3, 1}},
      mb{b, b, 0, {3, 2}, {2, 1}}, mc{c, c, 0, {2, 2}, {2, 1}};
  StridedMemref<float, 1> mbias{bias, bias, 0, {3}, {1}};
  try {
    cudaDevice().sgemmBias(ma, mb, mbias, mc, false, false, 1);
    FAIL() << "a 3-element bias for 2 columns was accepted";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "sgemm_bias: bias has 3 elements, C has 2 columns");
  }
  EXPECT_EQ(c[0], 1.0f);
}

TEST(MgpuTest, ModuleLoadBeforeSelectOnlyRecords) {
  static const char image[] = "not a cubin";
  void *module = mgpuModuleLoad(const_cast<char *>(image), sizeof image);
  EXPECT_NE(module, nullptr);
  EXPECT_FALSE(cuda::deviceSelected());
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  mgpuStreamSynchronize(nullptr);
  mgpuStreamDestroy(nullptr);
}

TEST(MgpuDeathTest, GetFunctionBeforeSelectFails) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  static const char image[] = "not a cubin";
  void *module = mgpuModuleLoad(const_cast<char *>(image), sizeof image);
  EXPECT_EXIT(mgpuModuleGetFunction(module, "main_kernel"),
              testing::ExitedWithCode(1),
              "error: the GPU kernel 'main_kernel' is used before the CUDA "
              "device is selected");
}

TEST(KernelsTest, PtxAssembles) {
  const char *ptxas = AUTODIST_PTXAS;
  if (access(ptxas, X_OK) != 0)
    GTEST_SKIP() << ptxas << " not found";
  std::string dir = testing::TempDir();
  std::string file = dir + "/autodist-kernels.ptx";
  FILE *f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(cuda::kernelsPtx(), f);
  std::fclose(f);
  for (const char *arch : {"sm_80", "sm_90"}) {
    std::string cmd =
        std::string(ptxas) + " -arch=" + arch + " " + file + " -o /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  std::remove(file.c_str());
}

TEST(NcclTest, IdWithoutMpiPeers) {
  // A job of one (MPI not launched): a local id, not all zero.
  ncclUniqueId id = exchangeNcclId(MPI_COMM_WORLD);
  bool nonzero = false;
  for (char c : id.internal)
    nonzero |= c != 0;
  EXPECT_TRUE(nonzero);
}

TEST(NcclTest, CommunicatorWithoutDeviceIsError) {
  if (gpuPresent())
    GTEST_SKIP() << "a CUDA device is present";
  try {
    NcclCommunicator c(nullptr);
    FAIL() << "NCCL started without a device";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("NCCL ncclCommInitRank failed: ", 0),
              0u)
        << e.what();
  }
}

//===----------------------------------------------------------------------===//
// With a GPU (skipped without one): select() once for the whole process.
//===----------------------------------------------------------------------===//

class CudaGpuTest : public testing::Test {
protected:
  void SetUp() override {
    if (!gpuPresent())
      GTEST_SKIP() << "no CUDA device";
    cudaDevice().select(0);
  }

  float *shared(size_t n) {
    return static_cast<float *>(cudaDevice().allocateShared(n * 4, 64));
  }
};

TEST_F(CudaGpuTest, DescribeAndCommunicator) {
  std::string d = cudaDevice().describe();
  EXPECT_EQ(d.rfind("cuda:0 ", 0), 0u) << d;
  EXPECT_NE(d.find("NCCL 2."), std::string::npos) << d;
  EXPECT_STREQ(communicator().name(), "nccl");
}

TEST_F(CudaGpuTest, SgemmMatchesHost) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  const int64_t m = 37, n = 53, k = 29, pad = 3, offset = 5;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (float beta : {0.0f, 0.5f}) {
        int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k,
                bc = tb ? k : n;
        float *a = shared(ar * (ac + pad) + offset);
        float *b = shared(br * (bc + pad));
        float *c = shared(m * (n + pad));
        std::vector<float> ha(ar * (ac + pad) + offset), hb(br * (bc + pad)),
            hc(m * (n + pad));
        for (size_t i = 0; i < ha.size(); ++i)
          a[i] = ha[i] = dist(rng);
        for (size_t i = 0; i < hb.size(); ++i)
          b[i] = hb[i] = dist(rng);
        for (size_t i = 0; i < hc.size(); ++i)
          c[i] = hc[i] =
              beta == 0 ? std::numeric_limits<float>::quiet_NaN() : dist(rng);
        StridedMemref<float, 2> da{a, a, offset, {ar, ac}, {ac + pad, 1}},
            db{b, b, 0, {br, bc}, {bc + pad, 1}},
            dc{c, c, 0, {m, n}, {n + pad, 1}};
        StridedMemref<float, 2> xa{
            ha.data(), ha.data(), offset, {ar, ac}, {ac + pad, 1}},
            xb{hb.data(), hb.data(), 0, {br, bc}, {bc + pad, 1}},
            xc{hc.data(), hc.data(), 0, {m, n}, {n + pad, 1}};
        cudaDevice().sgemm(da, db, dc, ta, tb, 1.5f, beta);
        // Twice: the second takes the cached plan.
        if (beta == 0)
          cudaDevice().sgemm(da, db, dc, ta, tb, 1.5f, beta);
        sgemm(xa, xb, xc, ta, tb, 1.5f, beta);
        cudaDevice().synchronize();
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            ASSERT_NEAR(c[i * (n + pad) + j], hc[i * (n + pad) + j], 1e-5)
                << "ta=" << ta << " tb=" << tb << " beta=" << beta << " (" << i
                << ", " << j << ")";
        cudaDevice().freeShared(a);
        cudaDevice().freeShared(b);
        cudaDevice().freeShared(c);
      }
}

TEST_F(CudaGpuTest, SgemmWithEmptyInnerDimensionScales) {
  float *a = shared(4), *b = shared(4), *c = shared(6);
  for (int i = 0; i < 6; ++i)
    c[i] = i;
  StridedMemref<float, 2> da{a, a, 0, {2, 0}, {1, 1}},
      db{b, b, 0, {0, 3}, {3, 1}}, dc{c, c, 0, {2, 3}, {3, 1}};
  cudaDevice().sgemm(da, db, dc, false, false, 1, 2);
  cudaDevice().synchronize();
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(c[i], 2.0f * i);
  c[0] = std::numeric_limits<float>::quiet_NaN();
  cudaDevice().sgemm(da, db, dc, false, false, 1, 0);
  cudaDevice().synchronize();
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(c[i], 0.0f);
  for (float *p : {a, b, c})
    cudaDevice().freeShared(p);
}

// --precision=tf32: with TF32 allowed the inputs lose their low mantissa
// bits (1 + 2^-12 is 1 in TF32's 10 bits), without it sgemm is exact f32.
// The same shape both ways: the cached plan must depend on the setting.
TEST_F(CudaGpuTest, SgemmTF32OnlyWhenAllowed) {
  const int64_t n = 64;
  float *a = shared(n * n), *b = shared(n * n), *c = shared(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = 1.0f + 1.0f / 4096;
    b[i] = 1.0f;
  }
  StridedMemref<float, 2> da{a, a, 0, {n, n}, {n, 1}},
      db{b, b, 0, {n, n}, {n, 1}}, dc{c, c, 0, {n, n}, {n, 1}};
  const float exact = n * (1.0f + 1.0f / 4096);
  for (bool tf32 : {false, true, false}) {
    cudaDevice().allowTF32(tf32);
    cudaDevice().sgemm(da, db, dc, false, false, 1, 0);
    cudaDevice().synchronize();
    if (tf32)
      EXPECT_LT(c[0], exact - 1e-3f) << "TF32 allowed but the sum is exact";
    else
      EXPECT_EQ(c[0], exact);
  }
  for (float *p : {a, b, c})
    cudaDevice().freeShared(p);
}

// cuBLASLt's bias epilogue against the host's broadcast + sgemm, for both
// transposes of B (a Linear layer's weight is read transposed) and a
// misaligned bias (the unfused path).
TEST_F(CudaGpuTest, SgemmBiasMatchesHost) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  const int64_t m = 33, n = 20, k = 17;
  for (bool tb : {false, true})
    for (int64_t biasOffset : {0, 1}) {
      float *a = shared(m * k), *b = shared(k * n), *c = shared(m * n);
      float *bias = shared(n + 1);
      std::vector<float> ha(m * k), hb(k * n), hc(m * n, 0.0f), hbias(n + 1);
      for (int64_t i = 0; i < m * k; ++i)
        a[i] = ha[i] = dist(rng);
      for (int64_t i = 0; i < k * n; ++i)
        b[i] = hb[i] = dist(rng);
      for (int64_t i = 0; i <= n; ++i)
        bias[i] = hbias[i] = dist(rng);
      for (int64_t i = 0; i < m * n; ++i)
        c[i] = std::numeric_limits<float>::quiet_NaN(); // overwritten
      int64_t br = tb ? n : k, bc = tb ? k : n;
      StridedMemref<float, 2> da{a, a, 0, {m, k}, {k, 1}},
          db{b, b, 0, {br, bc}, {bc, 1}}, dc{c, c, 0, {m, n}, {n, 1}};
      StridedMemref<float, 1> dbias{bias, bias, biasOffset, {n}, {1}};
      cudaDevice().sgemmBias(da, db, dbias, dc, false, tb, 1.0f);
      cudaDevice().synchronize();
      StridedMemref<float, 2> xa{ha.data(), ha.data(), 0, {m, k}, {k, 1}},
          xb{hb.data(), hb.data(), 0, {br, bc}, {bc, 1}},
          xc{hc.data(), hc.data(), 0, {m, n}, {n, 1}};
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          hc[i * n + j] = hbias[biasOffset + j];
      sgemm(xa, xb, xc, false, tb, 1.0f, 1.0f);
      for (int64_t i = 0; i < m * n; ++i)
        ASSERT_NEAR(c[i], hc[i], 1e-5)
            << "tb=" << tb << " biasOffset=" << biasOffset << " at " << i;
      for (float *p : {a, b, c, bias})
        cudaDevice().freeShared(p);
    }
}

// bf16 and f16 with the same shapes and alignments: the plans differ only
// in the element type, so a cache keyed without it would give wrong results.
// The odd offset puts A at 2 bytes past a 4-byte boundary.
TEST_F(CudaGpuTest, GemmHalfMatchesHost) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  const int64_t m = 37, n = 53, k = 29, pad = 3, offset = 5;
  for (HalfType type : {HalfType::BF16, HalfType::F16})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float beta : {0.0f, 0.5f}) {
          int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k,
                  bc = tb ? k : n;
          size_t na = ar * (ac + pad) + offset, nb = br * (bc + pad),
                 nc = m * (n + pad);
          auto *a =
              static_cast<uint16_t *>(cudaDevice().allocateShared(na * 2, 64));
          auto *b =
              static_cast<uint16_t *>(cudaDevice().allocateShared(nb * 2, 64));
          float *c = shared(nc);
          std::vector<float> hc(nc);
          for (size_t i = 0; i < na; ++i)
            a[i] = type == HalfType::BF16 ? floatToBFloat16(dist(rng))
                                          : floatToHalf(dist(rng));
          for (size_t i = 0; i < nb; ++i)
            b[i] = type == HalfType::BF16 ? floatToBFloat16(dist(rng))
                                          : floatToHalf(dist(rng));
          for (size_t i = 0; i < nc; ++i)
            c[i] = hc[i] =
                beta == 0 ? std::numeric_limits<float>::quiet_NaN() : dist(rng);
          StridedMemref<uint16_t, 2> da{a, a, offset, {ar, ac}, {ac + pad, 1}},
              db{b, b, 0, {br, bc}, {bc + pad, 1}};
          StridedMemref<float, 2> dc{c, c, 0, {m, n}, {n + pad, 1}},
              xc{hc.data(), hc.data(), 0, {m, n}, {n + pad, 1}};
          cudaDevice().gemmHalf(type, da, db, dc, ta, tb, 1.5f, beta);
          // Twice: the second takes the cached plan.
          if (beta == 0)
            cudaDevice().gemmHalf(type, da, db, dc, ta, tb, 1.5f, beta);
          gemmHalf(type, da, db, xc, ta, tb, 1.5f, beta);
          cudaDevice().synchronize();
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
              ASSERT_NEAR(c[i * (n + pad) + j], hc[i * (n + pad) + j], 1e-5)
                  << halfTypeName(type) << " ta=" << ta << " tb=" << tb
                  << " beta=" << beta << " (" << i << ", " << j << ")";
          cudaDevice().freeShared(a);
          cudaDevice().freeShared(b);
          cudaDevice().freeShared(c);
        }
}

TEST_F(CudaGpuTest, DeviceMemoryAndFill) {
  void *p = cudaDevice().allocateDevice(1 << 20, 256);
  ASSERT_NE(p, nullptr);
  float *out = shared(1000);
  mgpuMemset32(p, 0x3f800000u, 1000, mgpuStreamCreate()); // 1.0f
  ASSERT_EQ(
      cudaMemcpyAsync(out, p, 4000, cudaMemcpyDefault, cuda::computeStream()),
      cudaSuccess);
  cudaDevice().freeDevice(p);
  cudaDevice().synchronize();
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(out[i], 1.0f) << i;
  cudaDevice().freeShared(out);
  // Over-aligned.
  void *q = cudaDevice().allocateDevice(100, 4096);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 4096, 0u);
  cudaDevice().freeDevice(q);
  cudaDevice().synchronize();
}

TEST_F(CudaGpuTest, MgpuLaunchFromPtx) {
  void *module =
      mgpuModuleLoadJIT(const_cast<char *>(cuda::kernelsPtx()), /*O=*/2);
  void *fill = mgpuModuleGetFunction(module, "autodist_fill_b32");
  EXPECT_EQ(mgpuModuleGetFunction(module, "autodist_fill_b32"), fill);
  float *out = shared(300);
  uint64_t n = 300;
  uint32_t value = 0x40000000u; // 2.0f
  void *params[] = {&out, &n, &value};
  mgpuLaunchKernel(fill, 2, 1, 1, 256, 1, 1, 0, mgpuStreamCreate(), params,
                   nullptr, 3);
  cudaDevice().synchronize();
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(out[i], 2.0f) << i;
  // A launch error is thrown by the next synchronize.
  mgpuLaunchKernel(fill, 1, 1, 1, 4096, 1, 1, 0, mgpuStreamCreate(), params,
                   nullptr, 3);
  EXPECT_THROW(cudaDevice().synchronize(), Error);
  EXPECT_NO_THROW(cudaDevice().synchronize());
  cudaDevice().freeShared(out);
}

TEST_F(CudaGpuTest, NcclCollectivesAtWorldSizeOne) {
  Communicator &c = communicator();
  float *x = shared(1000);
  for (int i = 0; i < 1000; ++i)
    x[i] = i;
  c.allreduce(x, 1000, ReduceOp::Mean);
  CommHandle h = c.allreduceStart(x, 1000);
  EXPECT_NE(h.id, 0);
  EXPECT_EQ(h.stream.handle, cuda::computeStream());
  c.wait(h, x, ReduceOp::Mean);
  c.reduce(x, 1000, ReduceOp::Sum, 0);
  c.broadcast(x, 4000, 0);
  float *all = shared(1000);
  c.allgather(x, all, 4000);
  // Host memory goes through MPI.
  std::vector<float> host(10, 3.0f);
  c.allreduce(host.data(), 10, ReduceOp::Sum);
  cudaDevice().synchronize();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(x[i], i);
    ASSERT_EQ(all[i], i);
  }
  EXPECT_EQ(host[0], 3.0f);
  cudaDevice().freeShared(x);
  cudaDevice().freeShared(all);
}

} // namespace
