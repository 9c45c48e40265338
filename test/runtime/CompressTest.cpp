//===- CompressTest.cpp - Compressed all-reduce in one process ------------===//
//
// With one rank the compressed all-reduce returns this rank's contribution
// as it travels: rounded to IEEE half. That is the whole error of fp16
// (docs/design.md, "Compression"): |fp16(g) - g| <= 2^-11 |g| for normal
// halves and <= 2^-25 below them; error feedback carries it to the next step.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Device.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/Traffic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace autodist::rt;

extern "C" void
_mlir_ciface_autodist_rt_allreduce_fp16_f32(StridedMemref<float, 1> *, int32_t);
extern "C" void _mlir_ciface_autodist_rt_allreduce_fp16_ef_f32(
    StridedMemref<float, 1> *, StridedMemref<float, 1> *, int32_t);
extern "C" void _mlir_ciface_autodist_rt_allreduce_powersgd_f32(
    StridedMemref<float, 1> *, StridedMemref<float, 1> *,
    StridedMemref<float, 1> *, int32_t, int32_t, int32_t, int32_t);

namespace {
/// Gradient-like values over many binades, including subnormal halves.
std::vector<float> samples() {
  std::mt19937 gen(7);
  std::normal_distribution<float> mantissa(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 10);
  std::vector<float> v = {0.0f, 1.0f, -2.5f, 65504.0f, 1e-8f};
  for (int i = 0; i < 1000; ++i)
    v.push_back(std::ldexp(mantissa(gen), exponent(gen)));
  return v;
}

StridedMemref<float, 1> view(std::vector<float> &v) {
  return {v.data(), v.data(), 0, {static_cast<int64_t>(v.size())}, {1}};
}
} // namespace

TEST(Compress, RoundToHalf) {
  EXPECT_EQ(compress::roundToHalf(1.0f), 1.0f);
  // Half's spacing at 1 is 2^-10; ties go to the even neighbour.
  EXPECT_EQ(compress::roundToHalf(1.0f + 1.0f / 2048), 1.0f);
  EXPECT_EQ(compress::roundToHalf(1.0f + 3.0f / 2048), 1.0f + 2.0f / 1024);
  EXPECT_EQ(compress::roundToHalf(1.0f + 3.0f / 4096), 1.0f + 1.0f / 1024);
  EXPECT_EQ(compress::roundToHalf(65504.0f), 65504.0f);
  EXPECT_TRUE(std::isinf(compress::roundToHalf(1e6f)));
}

TEST(Compress, Fp16IsHalfRoundingWithinTheBound) {
  std::vector<float> g = samples(), v = g;
  StridedMemref<float, 1> m = view(v);
  traffic::take();
  _mlir_ciface_autodist_rt_allreduce_fp16_f32(&m, 1);
  traffic::Counts c = traffic::take();
  EXPECT_EQ(c.collectives, 1);
  EXPECT_EQ(c.bytes, static_cast<int64_t>(2 * g.size())); // halves travel
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(v[i], compress::roundToHalf(g[i])) << "element " << i;
    EXPECT_LE(std::fabs(v[i] - g[i]),
              std::ldexp(std::fabs(g[i]), -11) + std::ldexp(1.0f, -25))
        << "element " << i << " = " << g[i];
  }
}

TEST(Compress, ErrorFeedbackCarriesTheRoundingError) {
  // Sending the same gradient for k steps: the sum of what was sent stays
  // within one rounding error of k * g (the residual), instead of drifting
  // by k rounding errors.
  std::vector<float> g = {1.0f + 1.0f / 4096 + 1.0f / 65536, 3e-3f, -7.1e-6f};
  std::vector<double> sent(g.size(), 0.0);
  constexpr int kSteps = 64;
  // The bucket's state, as the train step passes it (zero at first).
  std::vector<float> e(g.size(), 0.0f);
  StridedMemref<float, 1> residual = view(e);
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> v = g;
    StridedMemref<float, 1> m = view(v);
    _mlir_ciface_autodist_rt_allreduce_fp16_ef_f32(&m, &residual, 0);
    for (size_t i = 0; i < g.size(); ++i) {
      EXPECT_EQ(v[i], compress::roundToHalf(v[i])); // a half was sent
      sent[i] += v[i];
    }
  }
  for (size_t i = 0; i < g.size(); ++i) {
    double target = static_cast<double>(kSteps) * g[i];
    // sum sent + residual == k * g up to float additions.
    EXPECT_NEAR(sent[i] + e[i], target, 1e-5 * std::fabs(target));
    EXPECT_LE(std::fabs(e[i]),
              std::ldexp(std::fabs(g[i]), -10) + std::ldexp(1.0f, -25));
    // Plain fp16 would be off by k times the rounding error.
    double plain = kSteps * static_cast<double>(compress::roundToHalf(g[i]));
    EXPECT_LT(std::fabs(sent[i] - target), std::fabs(plain - target));
  }
}

namespace {
/// A row-major `rows` x `cols` matrix of rank `rank` (sum of outer products).
std::vector<float> lowRank(int64_t rows, int64_t cols, int rank, int seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> m(rows * cols, 0.0f);
  for (int k = 0; k < rank; ++k) {
    std::vector<float> u(rows), v(cols);
    for (float &x : u)
      x = dist(gen);
    for (float &x : v)
      x = dist(gen);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        m[i * cols + j] += u[i] * v[j];
  }
  return m;
}

float maxAbsDiff(const std::vector<float> &a, const std::vector<float> &b) {
  float d = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}
} // namespace

TEST(Compress, PowerSGDRecoversAMatrixOfItsRank) {
  // One rank: the mean is this rank's matrix; rank >= its rank (and a
  // full-rank request on a rank-deficient matrix) reproduce it, residual ~0.
  for (auto [rank, requested] : {std::pair{2, 2}, std::pair{3, 6}}) {
    std::vector<float> g = lowRank(6, 8, rank, rank), v = g;
    int64_t r = compress::powerSGDRank(6, 8, requested);
    EXPECT_EQ(r, std::min(requested, 6));
    std::vector<float> e(g.size(), 0.0f), q(8 * r);
    compress::initPowerSGDQ(q.data(), q.size(), 0x5eed0001);
    auto bytes = compress::allreducePowerSGD(
        v.data(), 6, 8, requested, ReduceOp::Mean, e.data(), q.data());
    EXPECT_EQ(bytes.first, 6 * r * 4);  // P
    EXPECT_EQ(bytes.second, 8 * r * 4); // Q
    EXPECT_LT(maxAbsDiff(v, g), 1e-4f) << "rank " << rank;
    for (float x : e)
      EXPECT_LT(std::fabs(x), 1e-4f);
  }
}

TEST(Compress, PowerSGDKeepsWhatItMissesAndWarmStarts) {
  // Rank 1 of a rank-3 matrix: approximation + residual == the matrix; the
  // next step sends part of the residual (error feedback), and Q persists.
  std::vector<float> g = lowRank(5, 7, 3, 11), v = g;
  // The matrix's state through the C interface, as the train step passes
  // it: the residual (zero) and Q (seeded).
  std::vector<float> e(g.size(), 0.0f), q(7);
  compress::initPowerSGDQ(q.data(), q.size(), 0x5eed0003);
  StridedMemref<float, 1> vm = view(v), em = view(e), qm = view(q);
  traffic::take();
  _mlir_ciface_autodist_rt_allreduce_powersgd_f32(&vm, &em, &qm, 1, 5, 7, 1);
  EXPECT_EQ(traffic::take().collectives, 2); // P and Q
  std::vector<float> sum(g.size());
  for (size_t i = 0; i < g.size(); ++i)
    sum[i] = v[i] + e[i];
  EXPECT_LT(maxAbsDiff(sum, g), 1e-5f);
  float firstError = maxAbsDiff(v, g);
  EXPECT_GT(firstError, 1e-2f); // rank 1 cannot be exact
  std::vector<float> firstQ = q;
  // Sending the same gradient again: over k steps the mean of the sent
  // approximations approaches g (the residual stays bounded), while without
  // error feedback every step would miss by `firstError`.
  std::vector<double> sent(v.begin(), v.end());
  constexpr int kSteps = 30;
  for (int step = 1; step < kSteps; ++step) {
    std::vector<float> w = g;
    compress::allreducePowerSGD(w.data(), 5, 7, 1, ReduceOp::Mean, e.data(),
                                q.data());
    for (size_t i = 0; i < g.size(); ++i)
      sent[i] += w[i];
  }
  EXPECT_NE(q, firstQ); // Q moved on
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i)
    worst = std::max(worst, std::fabs(sent[i] / kSteps - g[i]));
  EXPECT_LT(worst, firstError / 4) << "first step's error " << firstError;
}

TEST(Compress, PowerSGDFirstQIsSeeded) {
  // Uniform in [-1, 1), a function of the seed only: the same on every rank
  // and in a resumed run, another for another matrix.
  std::vector<float> a(1000), b(1000), c(1000);
  compress::initPowerSGDQ(a.data(), a.size(), 0x5eed0001);
  compress::initPowerSGDQ(b.data(), b.size(), 0x5eed0001);
  compress::initPowerSGDQ(c.data(), c.size(), 0x5eed0003);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double mean = 0;
  for (float x : a) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LT(x, 1.0f);
    mean += x / a.size();
  }
  EXPECT_LT(std::fabs(mean), 0.1);
}

namespace {
/// The host device, except that memory it hands out from allocateDevice()
/// is "device memory" the host may not address (as the cuda target's): the
/// compressors must stage it through host copies, which this counts.
class FakeGpu final : public Device {
public:
  explicit FakeGpu(Device &host) : host_(host) {}
  const char *name() const override { return "fake-gpu"; }
  void select(int r) override { host_.select(r); }
  std::string describe() const override { return "fake-gpu"; }
  void *allocateShared(size_t b, size_t a) override {
    return host_.allocateShared(b, a);
  }
  void freeShared(void *p) override { host_.freeShared(p); }
  void *allocateDevice(size_t b, size_t a) override {
    void *p = host_.allocateDevice(b, a);
    deviceBlocks_.push_back({static_cast<char *>(p), b});
    return p;
  }
  void freeDevice(void *p) override { host_.freeDevice(p); }
  void synchronize() override { ++synchronizes; }
  void copyToHost(void *d, const void *s, size_t b) override {
    ++toHost;
    host_.copyToHost(d, s, b);
  }
  void copyFromHost(void *d, const void *s, size_t b) override {
    ++fromHost;
    host_.copyFromHost(d, s, b);
  }
  void prefetch(const void *p, size_t b) override { host_.prefetch(p, b); }
  bool hostAccessible(const void *p) const override {
    for (auto [base, size] : deviceBlocks_)
      if (p >= base && p < base + size)
        return false;
    return true;
  }
  void copyStrided(float *d, int64_t ds, const float *s, int64_t ss,
                   int64_t n) override {
    host_.copyStrided(d, ds, s, ss, n);
  }
  void sgemm(const StridedMemref<float, 2> &a, const StridedMemref<float, 2> &b,
             const StridedMemref<float, 2> &c, bool ta, bool tb, float alpha,
             float beta) override {
    host_.sgemm(a, b, c, ta, tb, alpha, beta);
  }
  const char *convolutionLibrary() const override {
    return host_.convolutionLibrary();
  }
  void conv2dForward(const Tensor4 &x, const Tensor4 &w, const Vector1 *bias,
                     const Tensor4 &y, const ConvGeometry &g) override {
    host_.conv2dForward(x, w, bias, y, g);
  }
  void conv2dBackwardData(const Tensor4 &dy, const Tensor4 &w,
                          const Tensor4 &dx, const ConvGeometry &g) override {
    host_.conv2dBackwardData(dy, w, dx, g);
  }
  void conv2dBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                             const Tensor4 &dw,
                             const ConvGeometry &g) override {
    host_.conv2dBackwardWeights(dy, x, dw, g);
  }
  void gemmHalf(HalfType t, const StridedMemref<uint16_t, 2> &a,
                const StridedMemref<uint16_t, 2> &b,
                const StridedMemref<float, 2> &c, bool ta, bool tb, float alpha,
                float beta) override {
    host_.gemmHalf(t, a, b, c, ta, tb, alpha, beta);
  }
  int toHost = 0, fromHost = 0, synchronizes = 0;

private:
  Device &host_;
  std::vector<std::pair<char *, size_t>> deviceBlocks_;
};

/// Installs a FakeGpu for the scope of a test.
struct WithFakeGpu {
  WithFakeGpu() : gpu(device()) { previous = setDevice(&gpu); }
  ~WithFakeGpu() { setDevice(previous); }
  FakeGpu gpu;
  Device *previous = nullptr;
};
} // namespace

// A compressed bucket in device memory (the cuda target's) is compressed
// through a host copy and written back: the same values as in host memory,
// with one copy each way; the residual in device memory too.
TEST(Compress, DeviceBuffersAreStagedThroughTheHost) {
  std::vector<float> values = samples();
  size_t n = values.size();
  std::vector<float> expected = values, expectedResidual(n, 0.0f);
  StridedMemref<float, 1> m = view(expected), r = view(expectedResidual);
  _mlir_ciface_autodist_rt_allreduce_fp16_ef_f32(&m, &r, 0);

  WithFakeGpu fake;
  auto *buf =
      static_cast<float *>(fake.gpu.allocateDevice(n * sizeof(float), 64));
  auto *res =
      static_cast<float *>(fake.gpu.allocateDevice(n * sizeof(float), 64));
  std::copy(values.begin(), values.end(), buf);
  std::fill(res, res + n, 0.0f);
  StridedMemref<float, 1> dm{buf, buf, 0, {static_cast<int64_t>(n)}, {1}};
  StridedMemref<float, 1> dr{res, res, 0, {static_cast<int64_t>(n)}, {1}};
  _mlir_ciface_autodist_rt_allreduce_fp16_ef_f32(&dm, &dr, 0);
  EXPECT_EQ(fake.gpu.toHost, 2);   // the bucket and the residual
  EXPECT_EQ(fake.gpu.fromHost, 2); // both written back
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(buf[i], expected[i]) << i;
    EXPECT_EQ(res[i], expectedResidual[i]) << i;
  }

  // Plain fp16 on a host-addressable buffer: in place, after a synchronize.
  std::vector<float> host = values;
  StridedMemref<float, 1> hm = view(host);
  int before = fake.gpu.toHost;
  _mlir_ciface_autodist_rt_allreduce_fp16_f32(&hm, 0);
  EXPECT_EQ(fake.gpu.toHost, before);
  EXPECT_GE(fake.gpu.synchronizes, 1);
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(host[i], compress::roundToHalf(values[i])) << i;
  fake.gpu.freeDevice(buf);
  fake.gpu.freeDevice(res);
}
