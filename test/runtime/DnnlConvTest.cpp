//===- DnnlConvTest.cpp - oneDNN convolutions against plain loops ---------===//

#include "autodist/runtime/DnnlConv.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <stdexcept>
#include <vector>

using namespace autodist::rt;

namespace {

/// A contiguous NCHW (or OIHW) tensor owning its data.
struct Buffer {
  std::vector<float> data;
  int64_t dims[4];

  Buffer(int64_t a, int64_t b, int64_t c, int64_t d, unsigned seed)
      : data(a * b * c * d), dims{a, b, c, d} {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float &x : data)
      x = dist(gen);
  }
  Tensor4 view() {
    return {data.data(),
            data.data(),
            0,
            {dims[0], dims[1], dims[2], dims[3]},
            {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1}};
  }
  float &at(int64_t a, int64_t b, int64_t c, int64_t d) {
    return data[((a * dims[1] + b) * dims[2] + c) * dims[3] + d];
  }
};

/// Calls `f(n, m, c, oh, ow, kh, kw, ih, iw)` for every product of the
/// convolution of x [N, C, H, W] with w [M, C, kH, kW] into y that reads an
/// input position inside the (unpadded) input.
template <typename Fn>
void forEachProduct(const Buffer &x, const Buffer &w, const Buffer &y,
                    const ConvGeometry &g, Fn f) {
  for (int64_t n = 0; n < y.dims[0]; ++n)
    for (int64_t m = 0; m < y.dims[1]; ++m)
      for (int64_t oh = 0; oh < y.dims[2]; ++oh)
        for (int64_t ow = 0; ow < y.dims[3]; ++ow)
          for (int64_t c = 0; c < x.dims[1]; ++c)
            for (int64_t kh = 0; kh < w.dims[2]; ++kh)
              for (int64_t kw = 0; kw < w.dims[3]; ++kw) {
                int64_t ih =
                    oh * g.strides[0] + kh * g.dilations[0] - g.pads[0];
                int64_t iw =
                    ow * g.strides[1] + kw * g.dilations[1] - g.pads[1];
                if (ih >= 0 && ih < x.dims[2] && iw >= 0 && iw < x.dims[3])
                  f(n, m, c, oh, ow, kh, kw, ih, iw);
              }
}

float maxRelDiff(const std::vector<float> &a, const std::vector<float> &b) {
  float diff = 0, scale = 1e-30f;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return diff / scale;
}

// x [2, 3, 7, 9], w [4, 3, 3, 2], strides [2, 1], pads [1, 0, 2, 1],
// dilations [1, 2]: OH = (7 + 3 - 3) / 2 + 1 = 4, OW = (9 + 1 - 3) + 1 = 8.
class DnnlConv : public ::testing::Test {
protected:
  ConvGeometry g{{2, 1}, {1, 0, 2, 1}, {1, 2}};
  Buffer x{2, 3, 7, 9, 1}, w{4, 3, 3, 2, 2}, y{2, 4, 4, 8, 3};
};

TEST_F(DnnlConv, ForwardWithBiasMatchesLoops) {
  std::vector<float> bias = {0.5f, -1.0f, 0.25f, 2.0f};
  Vector1 b{bias.data(), bias.data(), 0, {4}, {1}};
  Tensor4 xv = x.view(), wv = w.view(), yv = y.view();
  dnnlConvForward(xv, wv, &b, yv, g);
  Buffer ref = y;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t m = 0; m < 4; ++m)
      for (int64_t i = 0; i < 4 * 8; ++i)
        ref.at(n, m, i / 8, i % 8) = bias[m];
  forEachProduct(x, w, y, g,
                 [&](auto n, auto m, auto c, auto oh, auto ow, auto kh, auto kw,
                     auto ih, auto iw) {
                   ref.at(n, m, oh, ow) +=
                       x.at(n, c, ih, iw) * w.at(m, c, kh, kw);
                 });
  EXPECT_LT(maxRelDiff(y.data, ref.data), 1e-5);
}

TEST_F(DnnlConv, BackwardDataMatchesLoops) {
  Buffer dx{2, 3, 7, 9, 4}; // overwritten, not accumulated into
  Tensor4 dyv = y.view(), wv = w.view(), dxv = dx.view();
  dnnlConvBackwardData(dyv, wv, dxv, g);
  std::vector<float> ref(dx.data.size(), 0.0f);
  forEachProduct(x, w, y, g,
                 [&](auto n, auto m, auto c, auto oh, auto ow, auto kh, auto kw,
                     auto ih, auto iw) {
                   ref[((n * 3 + c) * 7 + ih) * 9 + iw] +=
                       y.at(n, m, oh, ow) * w.at(m, c, kh, kw);
                 });
  EXPECT_LT(maxRelDiff(dx.data, ref), 1e-5);
}

TEST_F(DnnlConv, BackwardWeightsMatchesLoops) {
  Buffer dw{4, 3, 3, 2, 5};
  Tensor4 dyv = y.view(), xv = x.view(), dwv = dw.view();
  dnnlConvBackwardWeights(dyv, xv, dwv, g);
  std::vector<float> ref(dw.data.size(), 0.0f);
  forEachProduct(x, w, y, g,
                 [&](auto n, auto m, auto c, auto oh, auto ow, auto kh, auto kw,
                     auto ih, auto iw) {
                   ref[((m * 3 + c) * 3 + kh) * 2 + kw] +=
                       y.at(n, m, oh, ow) * x.at(n, c, ih, iw);
                 });
  EXPECT_LT(maxRelDiff(dw.data, ref), 1e-5);
}

TEST_F(DnnlConv, RejectsMismatchedShapes) {
  Buffer bad{2, 4, 4, 7, 6}; // OW 7, the geometry gives 8
  Tensor4 xv = x.view(), wv = w.view(), bv = bad.view();
  EXPECT_THROW(dnnlConvForward(xv, wv, nullptr, bv, g), std::invalid_argument);
}

} // namespace
