//===- CudnnConvTest.cpp - The cuDNN convolutions -------------------------===//
//
// CudnnConvolutions (runtime/cuda/CudnnConv.h). Without a GPU: the argument
// checks, which throw std::invalid_argument before any CUDA or cuDNN call,
// the empty batch, and the one-line Error of a valid call. With one (skipped
// otherwise): forward with and without bias, backward data and backward
// weights against a double-precision host reference, over strides,
// symmetric and asymmetric pads, dilations and groups, at a tolerance that
// TF32 would miss; and the plan cache.
//
//===----------------------------------------------------------------------===//

#include "CudnnConv.h"
#include "CudaContext.h"

#include "autodist/runtime/Error.h"
#include "autodist/runtime/cuda/CudaDevice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "GpuPresent.h"

using namespace autodist::rt;

namespace {

using test::gpuPresent;

using Dims = std::array<int64_t, 4>;

/// One convolution problem: x [n, c, h, w], w [m, c / group, kh, kw].
struct Case {
  const char *name;
  int64_t n, c, h, w, m, kh, kw;
  CudnnConvGeometry g;
  int64_t group;

  int64_t out(int i) const {
    int64_t in = i == 0 ? h : w, k = i == 0 ? kh : kw;
    return (in + g.pads[i] + g.pads[2 + i] - g.dilations[i] * (k - 1) - 1) /
               g.strides[i] +
           1;
  }
  Dims xDims() const { return {n, c, h, w}; }
  Dims wDims() const { return {m, c / group, kh, kw}; }
  Dims yDims() const { return {n, m, out(0), out(1)}; }
};

int64_t count(const Dims &d) { return d[0] * d[1] * d[2] * d[3]; }

const Case cases[] = {
    {"stride 2, pads 1",
     2,
     3,
     9,
     8,
     4,
     3,
     3,
     {{2, 2}, {1, 1, 1, 1}, {1, 1}},
     1},
    {"asymmetric pads", 2, 3, 7, 6, 5, 3, 2, {{1, 1}, {0, 1, 2, 0}, {1, 1}}, 1},
    {"dilation 2", 1, 4, 10, 9, 3, 3, 3, {{1, 2}, {2, 1, 2, 1}, {2, 2}}, 1},
    {"group 2", 2, 4, 8, 8, 6, 3, 3, {{2, 1}, {1, 1, 1, 1}, {1, 2}}, 2},
    {"group 2, asymmetric",
     1,
     6,
     7,
     9,
     4,
     2,
     3,
     {{1, 2}, {1, 0, 0, 2}, {2, 1}},
     2},
    {"depthwise", 2, 4, 6, 6, 4, 3, 3, {{1, 1}, {1, 1, 1, 1}, {1, 1}}, 4},
};

/// Calls f(xIndex, wIndex, yIndex) for every product of the convolution.
template <typename F> void forEachTap(const Case &k, F f) {
  Dims y = k.yDims();
  int64_t cg = k.c / k.group, mg = k.m / k.group;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t oh = 0; oh < y[2]; ++oh)
        for (int64_t ow = 0; ow < y[3]; ++ow)
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t ih =
                    oh * k.g.strides[0] - k.g.pads[0] + i * k.g.dilations[0];
                int64_t iw =
                    ow * k.g.strides[1] - k.g.pads[1] + j * k.g.dilations[1];
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w)
                  continue;
                int64_t ci = m / mg * cg + c;
                f(((n * k.c + ci) * k.h + ih) * k.w + iw,
                  ((m * cg + c) * k.kh + i) * k.kw + j,
                  ((n * k.m + m) * y[2] + oh) * y[3] + ow);
              }
}

/// got[i] within f32 summation error of ref[i], whose terms' magnitudes sum
/// to mag[i]; TF32 (10-bit mantissas) is well outside.
void expectNear(const float *got, const std::vector<double> &ref,
                const std::vector<double> &mag, const char *what) {
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(got[i], ref[i], 2e-5 * mag[i] + 1e-6)
        << what << " [" << i << "]";
}

//===----------------------------------------------------------------------===//
// Without a GPU: nothing below reaches CUDA or cuDNN.
//===----------------------------------------------------------------------===//

/// The message of the std::invalid_argument `call` throws ("" if none).
template <typename F> std::string invalidArgument(F call) {
  try {
    call();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}

TEST(CudnnConvTest, ArgumentChecksNeedNoDevice) {
  CudnnConvolutions convs(nullptr);
  alignas(16) float buf[8] = {};
  float *p = buf;
  const Case &k = cases[0];
  CudnnConvGeometry g = k.g;
  Dims x = k.xDims(), w = k.wDims(), y = k.yDims();
  auto forwardAt = [&](const float *px, const Dims &xd, const Dims &wd,
                       const Dims &yd, const CudnnConvGeometry &gg,
                       int64_t group) {
    return invalidArgument([&] {
      convs.forward(px, xd.data(), p, wd.data(), nullptr, p, yd.data(), gg,
                    group);
    });
  };
  auto forward = [&](const Dims &xd, const Dims &wd, const Dims &yd,
                     const CudnnConvGeometry &gg, int64_t group) {
    return forwardAt(p, xd, wd, yd, gg, group);
  };
  auto expectMessage = [](const std::string &message, const char *part) {
    EXPECT_EQ(message.rfind("conv2d ", 0), 0u) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  };

  // Channels: x has 3, w takes 2 per group.
  expectMessage(forward(x, {4, 2, 3, 3}, y, g, 1),
                "x has 3 channels, w takes 2 per group");
  // The operands are named in the message.
  expectMessage(forward(x, {4, 2, 3, 3}, y, g, 1),
                "(x [2,3,9,8], w [4,2,3,3], y [2,4,5,4], strides [2,2], pads "
                "[1,1,1,1], dilations [1,1], group 1)");
  expectMessage(forward(x, w, y, g, 3), "x has 3 channels, w takes 3");
  expectMessage(forward({2, 4, 9, 8}, {5, 2, 3, 3}, {2, 5, 5, 4}, g, 2),
                "5 output channels do not split into 2 groups");
  expectMessage(forward(x, w, {2, 4, 4, 4}, g, 1),
                "y's height is 4, the convolution makes 5");
  expectMessage(forward(x, w, {2, 4, 5, 5}, g, 1),
                "y's width is 5, the convolution makes 4");
  expectMessage(forward(x, w, {3, 4, 5, 4}, g, 1), "y's batch is not x's");
  expectMessage(forward(x, w, {2, 5, 5, 4}, g, 1), "y has 5 channels");
  expectMessage(forward({2, 3, 9, 0}, w, y, g, 1), "dims must be positive");
  expectMessage(forward(x, w, y, g, 0), "group must be at least 1");
  CudnnConvGeometry bad = g;
  bad.strides[1] = 0;
  expectMessage(forward(x, w, y, bad, 1), "strides must be positive");
  bad = g;
  bad.pads[3] = -1;
  expectMessage(forward(x, w, y, bad, 1), "pads must not be negative");
  bad = g;
  bad.dilations[0] = 0;
  expectMessage(forward(x, w, y, bad, 1), "dilations must be positive");
  bad = g;
  bad.dilations[0] = 6; // extent 13 > 9 + 2
  expectMessage(forward(x, w, y, bad, 1),
                "the dilated kernel's height 13 exceeds the padded input's 11");
  expectMessage(forwardAt(nullptr, x, w, y, g, 1), "x is null");
  expectMessage(forwardAt(reinterpret_cast<const float *>(
                              reinterpret_cast<const char *>(buf) + 2),
                          x, w, y, g, 1),
                "x is not 4-byte aligned");
  expectMessage(invalidArgument([&] {
                  convs.forward(p, nullptr, p, w.data(), nullptr, p, y.data(),
                                g, 1);
                }),
                "null dims");

  // The backward ones name their own operands.
  expectMessage(invalidArgument([&] {
                  Dims dx = {2, 3, 7, 8};
                  convs.backwardData(p, y.data(), p, w.data(), p, dx.data(), g,
                                     1);
                }),
                "conv2d backward data: dy's height is 5, the convolution "
                "makes 4 (dy [2,4,5,4], w [4,3,3,3], dx [2,3,7,8]");
  expectMessage(invalidArgument([&] {
                  Dims dw = {4, 3, 3, 2};
                  convs.backwardWeights(p, y.data(), p, x.data(), p, dw.data(),
                                        g, 1);
                }),
                "conv2d backward weights: dy's width is 4, the convolution "
                "makes 5 (dy [2,4,5,4], x [2,3,9,8], dw [4,3,3,2]");
  expectMessage(invalidArgument([&] {
                  convs.backwardWeights(p, y.data(), p, x.data(), nullptr,
                                        w.data(), g, 1);
                }),
                "dw is null");
  EXPECT_EQ(convs.plansBuilt(), 0);
  EXPECT_EQ(convs.workspaceBytes(), 0u);
}

TEST(CudnnConvTest, EmptyBatchDoesNothing) {
  CudnnConvolutions convs(nullptr);
  alignas(16) float w[108] = {}, bias[4] = {};
  const Case &k = cases[0];
  Dims x = k.xDims(), wd = k.wDims(), y = k.yDims();
  x[0] = y[0] = 0;
  EXPECT_NO_THROW(convs.forward(nullptr, x.data(), w, wd.data(), bias, nullptr,
                                y.data(), k.g, 1));
  EXPECT_NO_THROW(convs.backwardData(nullptr, y.data(), w, wd.data(), nullptr,
                                     x.data(), k.g, 1));
  EXPECT_EQ(convs.plansBuilt(), 0);
}

TEST(CudnnConvTest, WithoutDeviceIsOneLineError) {
  if (gpuPresent())
    GTEST_SKIP() << "a CUDA device is present";
  CudnnConvolutions convs(nullptr);
  std::vector<float> host(1000);
  const Case &k = cases[0];
  Dims x = k.xDims(), w = k.wDims(), y = k.yDims();
  try {
    convs.forward(host.data(), x.data(), host.data(), w.data(), nullptr,
                  host.data(), y.data(), k.g, 1);
    FAIL() << "a convolution ran without a device";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind("cuDNN cudnnCreate failed: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(convs.plansBuilt(), 0);
}

//===----------------------------------------------------------------------===//
// With a GPU (skipped without one).
//===----------------------------------------------------------------------===//

class CudnnConvGpuTest : public testing::Test {
protected:
  void SetUp() override {
    if (!gpuPresent())
      GTEST_SKIP() << "no CUDA device";
    cudaDevice().select(0);
    convs = std::make_unique<CudnnConvolutions>(cuda::computeStream());
  }
  void TearDown() override {
    if (!convs)
      return;
    cudaDevice().synchronize();
    convs.reset();
    for (float *p : buffers)
      cudaDevice().freeShared(p);
  }

  /// Managed memory (the host fills and reads it after synchronize()),
  /// NaN: outputs must be overwritten, not accumulated into.
  float *shared(int64_t n) {
    auto *p = static_cast<float *>(cudaDevice().allocateShared(
        static_cast<size_t>(std::max<int64_t>(n, 1)) * 4 + 16, 64));
    for (int64_t i = 0; i < n + 4; ++i)
      p[i] = std::numeric_limits<float>::quiet_NaN();
    buffers.push_back(p);
    return p;
  }
  float *random(int64_t n) {
    float *p = shared(n);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (int64_t i = 0; i < n; ++i)
      p[i] = dist(rng);
    return p;
  }

  std::unique_ptr<CudnnConvolutions> convs;
  std::vector<float *> buffers;
  std::mt19937 rng{11};
};

TEST_F(CudnnConvGpuTest, MatchesHostReference) {
  int64_t withBias = 0;
  for (const Case &k : cases) {
    SCOPED_TRACE(k.name);
    Dims xd = k.xDims(), wd = k.wDims(), yd = k.yDims();
    float *x = random(count(xd)), *w = random(count(wd)), *bias = random(k.m),
          *dy = random(count(yd));
    float *y = shared(count(yd)), *yb = shared(count(yd)),
          *dx = shared(count(xd)), *dw = shared(count(wd));
    convs->forward(x, xd.data(), w, wd.data(), nullptr, y, yd.data(), k.g,
                   k.group);
    convs->forward(x, xd.data(), w, wd.data(), bias, yb, yd.data(), k.g,
                   k.group);
    ++withBias;
    convs->backwardData(dy, yd.data(), w, wd.data(), dx, xd.data(), k.g,
                        k.group);
    convs->backwardWeights(dy, yd.data(), x, xd.data(), dw, wd.data(), k.g,
                           k.group);
    cudaDevice().synchronize();

    std::vector<double> ry(count(yd)), my(count(yd)), rdx(count(xd)),
        mdx(count(xd)), rdw(count(wd)), mdw(count(wd));
    forEachTap(k, [&](int64_t xi, int64_t wi, int64_t yi) {
      ry[yi] += double(x[xi]) * w[wi];
      my[yi] += std::fabs(double(x[xi]) * w[wi]);
      rdx[xi] += double(dy[yi]) * w[wi];
      mdx[xi] += std::fabs(double(dy[yi]) * w[wi]);
      rdw[wi] += double(dy[yi]) * x[xi];
      mdw[wi] += std::fabs(double(dy[yi]) * x[xi]);
    });
    expectNear(y, ry, my, "y");
    int64_t plane = yd[2] * yd[3];
    for (int64_t i = 0; i < count(yd); ++i) {
      double b = bias[i / plane % k.m];
      ry[i] += b;
      my[i] += std::fabs(b);
    }
    expectNear(yb, ry, my, "y with bias");
    expectNear(dx, rdx, mdx, "dx");
    expectNear(dw, rdw, mdw, "dw");
    // Nothing written past the outputs.
    for (float *out : {y, yb})
      EXPECT_TRUE(std::isnan(out[count(yd)]));
    EXPECT_TRUE(std::isnan(dx[count(xd)]));
    EXPECT_TRUE(std::isnan(dw[count(wd)]));
  }
  // Every problem once (4 per case): the plans the cache built.
  EXPECT_EQ(convs->plansBuilt(), 4 * int64_t(std::size(cases)));
  std::printf("cuDNN: %lld of %lld forward plans with bias fused the add\n",
              static_cast<long long>(convs->fusedBiasPlans()),
              static_cast<long long>(withBias));
}

TEST_F(CudnnConvGpuTest, SameProblemBuildsNoPlan) {
  const Case &k = cases[3]; // group 2
  Dims xd = k.xDims(), wd = k.wDims(), yd = k.yDims();
  float *x = random(count(xd) + 1), *w = random(count(wd)), *b = random(k.m);
  float *y = shared(count(yd)), *y2 = shared(count(yd));
  auto forward = [&](const float *in, float *out) {
    convs->forward(in, xd.data(), w, wd.data(), b, out, yd.data(), k.g,
                   k.group);
  };
  forward(x, y);
  EXPECT_EQ(convs->plansBuilt(), 1);
  size_t workspace = convs->workspaceBytes();
  forward(x, y);
  forward(x, y2); // another pointer, the same alignment
  EXPECT_EQ(convs->plansBuilt(), 1);
  EXPECT_EQ(convs->workspaceBytes(), workspace);
  // Another operation is another plan, and so is an alignment of 4.
  convs->backwardData(y, yd.data(), w, wd.data(), x, xd.data(), k.g, k.group);
  EXPECT_EQ(convs->plansBuilt(), 2);
  float *xOff = random(count(xd) + 1) + 1;
  forward(xOff, y2);
  EXPECT_EQ(convs->plansBuilt(), 3);
  forward(xOff, y2);
  EXPECT_EQ(convs->plansBuilt(), 3);
  cudaDevice().synchronize();

  // The offset input's result is right too.
  std::vector<double> ry(count(yd)), my(count(yd));
  forEachTap(k, [&](int64_t xi, int64_t wi, int64_t yi) {
    ry[yi] += double(xOff[xi]) * w[wi];
    my[yi] += std::fabs(double(xOff[xi]) * w[wi]);
  });
  int64_t plane = yd[2] * yd[3];
  for (int64_t i = 0; i < count(yd); ++i) {
    ry[i] += b[i / plane % k.m];
    my[i] += std::fabs(b[i / plane % k.m]);
  }
  expectNear(y2, ry, my, "y of x + 1");
}

TEST_F(CudnnConvGpuTest, EmptyBatchZeroesWeightGradient) {
  const Case &k = cases[0];
  Dims xd = k.xDims(), wd = k.wDims(), yd = k.yDims();
  xd[0] = yd[0] = 0;
  float *dw = shared(count(wd));
  convs->backwardWeights(nullptr, yd.data(), nullptr, xd.data(), dw, wd.data(),
                         k.g, 1);
  cudaDevice().synchronize();
  for (int64_t i = 0; i < count(wd); ++i)
    ASSERT_EQ(dw[i], 0.0f) << i;
  EXPECT_EQ(convs->plansBuilt(), 0);
}

} // namespace
