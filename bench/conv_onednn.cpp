//===- conv_onednn.cpp - our im2col+sgemm convolutions vs oneDNN ----------===//
//
// Single-thread microbenchmark behind bench/README.md "Convolutions and sgemm:
// OpenBLAS vs oneDNN" (issue 7, item 3). Build and run with
// bench/conv_onednn.sh.
//
//   conv_onednn conv [seconds per op=0.3]
//     For the convolution layers of the bench's LeNet (B=64) and ResNet-18
//     (3x32x32, B=8) times forward, weight gradient and input gradient as
//       ours  - what dialects/nn/NNConvLowering.cpp lowers a group-1
//               convolution to, written out in C: pad, im2col over the whole
//               batch col[(c,kh,kw),(n,oh,ow)], one sgemm, NCHW transpose
//               (+bias); weight gradient dyT[m,(n,oh,ow)] (the transposed
//               output gradient) x col^T; input gradient W^T x dyT, col2im,
//               unpad; once with cblas_sgemm, once with dnnl_sgemm;
//       nchw  - oneDNN convolution primitives on nchw/oihw memory;
//       any   - oneDNN primitives with format_tag::any: the primitive alone,
//               with the reorders of activations from/to our NCHW tensors,
//               and with all reorders (weights too).
//     Arms are interleaved (order reversed every rep); medians in ms. Before
//     timing, every arm's outputs are compared with ours. Ends with the
//     per-model sums (count x ops).
//   conv_onednn sgemm [seconds per shape=0.3]
//     cblas_sgemm (OpenBLAS) vs dnnl_sgemm, interleaved, at n=1024 and the
//     bench MLP's shapes (784-1024-1024-1024-10, B=128 and 256), with the
//     per-step sums.
//   conv_onednn layers
//     The convolution layers as JSON lines (bench/conv_torch.py reads them).
//
// Prints a markdown table and one JSON line per row (prefix "JSON ").
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <array>
#include <cblas.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Columns of the convolution table: ours with OpenBLAS, ours with
/// dnnl_sgemm, oneDNN on nchw, oneDNN 'any' primitive alone, 'any' with the
/// activation reorders (weights kept in oneDNN's layout), 'any' with all
/// reorders.
constexpr int kArms = 6;
const char *kArmNames[kArms] = {"ours_openblas",  "ours_dnnl_sgemm",
                                "onednn_nchw",    "onednn_any_prim",
                                "onednn_any_act", "onednn_any_all"};

void fillRandom(std::vector<float> &v, unsigned seed) {
  unsigned s = seed * 2654435761u + 1;
  for (float &x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>((s >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

/// max |a - b| / max |a|.
double relErr(const std::vector<float> &a, const std::vector<float> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, (double)std::fabs(a[i] - b[i]));
    den = std::max(den, (double)std::fabs(a[i]));
  }
  return den > 0 ? num / den : num;
}

/// Times the arms interleaved (order reversed every rep) for about `budget`
/// seconds after 3 warm-up reps; each arm returns extra sub-timings through
/// `sub` (seconds), e.g. the primitive alone inside primitive+reorders.
/// Returns per arm the median of the total and of each sub-timing, in ms.
struct ArmResult {
  double total = 0, sub[2] = {-1, -1};
};
using Sub = std::array<double, 2>;
constexpr Sub kNoSub = {-1, -1};
std::vector<ArmResult>
timeInterleaved(const std::vector<std::function<Sub()>> &arms, double budget) {
  size_t k = arms.size();
  for (int w = 0; w < 3; ++w)
    for (auto &a : arms)
      a();
  std::vector<std::vector<double>> tot(k), sub0(k), sub1(k);
  double start = now();
  for (int rep = 0; rep < 20000; ++rep) {
    for (size_t j = 0; j < k; ++j) {
      size_t i = rep % 2 ? k - 1 - j : j;
      double t0 = now();
      Sub s = arms[i]();
      tot[i].push_back(now() - t0);
      if (s[0] >= 0) {
        sub0[i].push_back(s[0]);
        sub1[i].push_back(s[1]);
      }
    }
    if (rep >= 20 && now() - start > budget)
      break;
  }
  std::vector<ArmResult> r(k);
  for (size_t i = 0; i < k; ++i) {
    r[i].total = 1e3 * median(tot[i]);
    if (!sub0[i].empty()) {
      r[i].sub[0] = 1e3 * median(sub0[i]);
      r[i].sub[1] = 1e3 * median(sub1[i]);
    }
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

struct Layer {
  const char *model, *name;
  int count; // how many convolutions of the model have this shape
  int n, c, h, w, m, k, s, p;
  bool bias;  // forward adds a bias
  bool dgrad; // the step computes the input gradient (not for model inputs)
};

// LeNet: examples/models/make_models.py --kind cnn, per-rank batch 64.
// ResNet-18: torchvision resnet18(num_classes=10) at 3x32x32, batch 8 (the
// distinct shapes of its 20 convolutions; conv1 reads the model input).
const Layer kLayers[] = {
    {"lenet", "conv1 1->6 5x5 p2 @28", 1, 64, 1, 28, 28, 6, 5, 1, 2, true,
     false},
    {"lenet", "conv2 6->16 5x5 @14", 1, 64, 6, 14, 14, 16, 5, 1, 0, true, true},
    {"resnet18", "conv1 3->64 7x7 s2 p3 @32", 1, 8, 3, 32, 32, 64, 7, 2, 3,
     false, false},
    {"resnet18", "layer1 64->64 3x3 @8", 4, 8, 64, 8, 8, 64, 3, 1, 1, false,
     true},
    {"resnet18", "layer2.0 64->128 3x3 s2 @8", 1, 8, 64, 8, 8, 128, 3, 2, 1,
     false, true},
    {"resnet18", "layer2.0.ds 64->128 1x1 s2 @8", 1, 8, 64, 8, 8, 128, 1, 2, 0,
     false, true},
    {"resnet18", "layer2 128->128 3x3 @4", 3, 8, 128, 4, 4, 128, 3, 1, 1, false,
     true},
    {"resnet18", "layer3.0 128->256 3x3 s2 @4", 1, 8, 128, 4, 4, 256, 3, 2, 1,
     false, true},
    {"resnet18", "layer3.0.ds 128->256 1x1 s2 @4", 1, 8, 128, 4, 4, 256, 1, 2,
     0, false, true},
    {"resnet18", "layer3 256->256 3x3 @2", 3, 8, 256, 2, 2, 256, 3, 1, 1, false,
     true},
    {"resnet18", "layer4.0 256->512 3x3 s2 @2", 1, 8, 256, 2, 2, 512, 3, 2, 1,
     false, true},
    {"resnet18", "layer4.0.ds 256->512 1x1 s2 @2", 1, 8, 256, 2, 2, 512, 1, 2,
     0, false, true},
    {"resnet18", "layer4 512->512 3x3 @1", 3, 8, 512, 1, 1, 512, 3, 1, 1, false,
     true},
};

/// Our lowering of one group-1 convolution, in C (NCHW/OIHW, no dilation).
struct Ours {
  int n, c, h, w, m, k, s, p, hp, wp, oh, ow, kk, np;
  bool dnnlGemm;       // dnnl_sgemm instead of cblas_sgemm
  double gemmTime = 0; // seconds in sgemm since the last take()
  std::vector<float> xp, col, yT, dyT, dcol, dxp;
  Ours(const Layer &l, bool dnnlGemm)
      : n(l.n), c(l.c), h(l.h), w(l.w), m(l.m), k(l.k), s(l.s), p(l.p),
        dnnlGemm(dnnlGemm) {
    hp = h + 2 * p;
    wp = w + 2 * p;
    oh = (hp - k) / s + 1;
    ow = (wp - k) / s + 1;
    kk = c * k * k;
    np = n * oh * ow;
    xp.resize((size_t)n * c * hp * wp);
    col.resize((size_t)kk * np);
    yT.resize((size_t)m * np);
    dyT.resize((size_t)m * np);
    dcol.resize((size_t)kk * np);
    dxp.resize((size_t)n * c * hp * wp);
  }
  /// Row-major C[m, n] = op(A) op(B) (beta 0).
  void gemm(bool ta, bool tb, int gm, int gn, int gk, const float *a, int lda,
            const float *b, int ldb, float *cc, int ldc) {
    double t0 = now();
    if (dnnlGemm)
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', gm, gn, gk, 1.0f, a, lda, b,
                 ldb, 0.0f, cc, ldc);
    else
      cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                  tb ? CblasTrans : CblasNoTrans, gm, gn, gk, 1.0f, a, lda, b,
                  ldb, 0.0f, cc, ldc);
    gemmTime += now() - t0;
  }
  /// The sgemm time since the last call, as a sub-timing {sgemm, 0}.
  std::array<double, 2> take() {
    std::array<double, 2> r = {gemmTime, 0};
    gemmTime = 0;
    return r;
  }
  /// padSpatial (a copy into a zero-filled padded buffer; none without pads)
  /// and im2col; returns the padded input.
  const float *padded(const float *x) {
    if (p == 0)
      return x;
    std::fill(xp.begin(), xp.end(), 0.0f);
    for (int i = 0; i < n * c; ++i)
      for (int y = 0; y < h; ++y)
        std::memcpy(&xp[((size_t)i * hp + y + p) * wp + p],
                    &x[((size_t)i * h + y) * w], sizeof(float) * w);
    return xp.data();
  }
  void im2col(const float *x) {
    const float *src = padded(x);
    float *dst = col.data();
    for (int ci = 0; ci < c; ++ci)
      for (int kh = 0; kh < k; ++kh)
        for (int kw = 0; kw < k; ++kw)
          for (int ni = 0; ni < n; ++ni)
            for (int y = 0; y < oh; ++y) {
              const float *row =
                  src + (((size_t)ni * c + ci) * hp + y * s + kh) * wp + kw;
              for (int xo = 0; xo < ow; ++xo)
                *dst++ = row[xo * s];
            }
  }
  /// y[n, m, p] = (W x col)[m, (n, p)] + bias[m].
  void forward(const float *x, const float *wt, const float *bias, float *y) {
    im2col(x);
    gemm(false, false, m, np, kk, wt, kk, col.data(), np, yT.data(), np);
    int sp = oh * ow;
    for (int ni = 0; ni < n; ++ni)
      for (int mi = 0; mi < m; ++mi) {
        float b = bias ? bias[mi] : 0.0f;
        const float *src = &yT[(size_t)mi * np + (size_t)ni * sp];
        float *dst = &y[((size_t)ni * m + mi) * sp];
        for (int i = 0; i < sp; ++i)
          dst[i] = src[i] + b;
      }
  }
  /// dyT[m, (n, p)] = dy[n, m, p] (shared by both gradients).
  void transposeDy(const float *dy) {
    int sp = oh * ow;
    for (int ni = 0; ni < n; ++ni)
      for (int mi = 0; mi < m; ++mi)
        std::memcpy(&dyT[(size_t)mi * np + (size_t)ni * sp],
                    &dy[((size_t)ni * m + mi) * sp], sizeof(float) * sp);
  }
  /// dW = dyT x col^T (col from the forward).
  void weightGrad(const float *dy, float *dw) {
    transposeDy(dy);
    gemm(false, true, m, kk, np, dyT.data(), np, col.data(), np, dw, kk);
  }
  /// dcol = W^T x dyT (dyT from weightGrad), col2im, unpad.
  void inputGrad(const float *wt, float *dx) {
    gemm(true, false, kk, np, m, wt, kk, dyT.data(), np, dcol.data(), np);
    float *dst = p == 0 ? dx : dxp.data();
    std::fill(dst, dst + (size_t)n * c * hp * wp, 0.0f);
    for (int kh = 0; kh < k; ++kh)
      for (int kw = 0; kw < k; ++kw)
        for (int ni = 0; ni < n; ++ni)
          for (int ci = 0; ci < c; ++ci) {
            const float *src = &dcol[((size_t)(ci * k + kh) * k + kw) * np +
                                     (size_t)ni * oh * ow];
            for (int y = 0; y < oh; ++y) {
              float *row =
                  dst + (((size_t)ni * c + ci) * hp + y * s + kh) * wp + kw;
              for (int xo = 0; xo < ow; ++xo)
                row[xo * s] += src[y * ow + xo];
            }
          }
    if (p == 0)
      return;
    for (int i = 0; i < n * c; ++i)
      for (int y = 0; y < h; ++y)
        std::memcpy(&dx[((size_t)i * h + y) * w],
                    &dxp[((size_t)i * hp + y + p) * wp + p], sizeof(float) * w);
  }
};

/// Memory in the primitive's layout `want`, reordered from/to `user` when the
/// layouts differ.
struct Staged {
  memory user, prim;
  bool needed;
  Staged(const memory &u, const memory::desc &want, const engine &eng)
      : user(u), needed(u.get_desc() != want) {
    prim = needed ? memory(want, eng) : u;
  }
};

/// Cached reorder primitives: creating them is not what we time.
struct ReorderPair {
  reorder in, out;
  bool needed;
  Staged *m;
  ReorderPair(Staged &s) : needed(s.needed), m(&s) {
    if (needed) {
      in = reorder(s.user, s.prim);
      out = reorder(s.prim, s.user);
    }
  }
  void toPrim(stream &st) {
    if (needed)
      in.execute(st, m->user, m->prim);
  }
  void toUser(stream &st) {
    if (needed)
      out.execute(st, m->prim, m->user);
  }
};

std::string formatOf(const memory::desc &d) {
  // Blocked layouts show as inner block sizes, plain ones as strides.
  const dnnl_memory_desc_t &c = d.data;
  std::string s;
  if (c.format_kind != dnnl_blocked)
    return "?";
  for (int i = 0; i < c.format_desc.blocking.inner_nblks; ++i)
    s += std::to_string(c.format_desc.blocking.inner_blks[i]) +
         "abcdef"[c.format_desc.blocking.inner_idxs[i]];
  return s.empty() ? "plain" : s;
}

/// Per model, the summed step time of each arm (count x ops), in ms.
struct Sums {
  std::string model;
  double ms[kArms] = {};
};
std::vector<Sums> gSums;

/// Adds `t` (count times) to `model`'s sums.
void addSums(const char *model, int count, const double *t) {
  if (gSums.empty() || gSums.back().model != model)
    gSums.push_back({model, {}});
  for (int i = 0; i < kArms; ++i)
    gSums.back().ms[i] += count * t[i];
}

void benchLayer(const Layer &l, double budget, engine &eng, stream &st) {
  Ours ours(l, false), oursD(l, true);
  int oh = ours.oh, ow = ours.ow;
  std::vector<float> x((size_t)l.n * l.c * l.h * l.w),
      wt((size_t)l.m * l.c * l.k * l.k), bias(l.m),
      dy((size_t)l.n * l.m * oh * ow);
  fillRandom(x, 1);
  fillRandom(wt, 2);
  fillRandom(bias, 3);
  fillRandom(dy, 4);
  // Outputs of each arm: ours with OpenBLAS, with dnnl_sgemm, nchw, any.
  std::vector<float> y[4], dw[4], dx[4];
  for (int i = 0; i < 4; ++i) {
    y[i].assign(dy.size(), 0.0f);
    dw[i].assign(wt.size(), 0.0f);
    dx[i].assign(x.size(), 0.0f);
  }

  memory::dims src{l.n, l.c, l.h, l.w}, wei{l.m, l.c, l.k, l.k}, bia{l.m},
      dst{l.n, l.m, oh, ow}, str{l.s, l.s}, pad{l.p, l.p};
  auto md = [](const memory::dims &d, tag t) {
    return memory::desc(d, dt::f32, t);
  };
  // Per arm 1 (plain) and 2 (any): primitive descriptors.
  convolution_forward::primitive_desc fwd[3];
  convolution_backward_weights::primitive_desc bww[3];
  convolution_backward_data::primitive_desc bwd[3];
  for (int a = 1; a <= 2; ++a) {
    tag ts = a == 1 ? tag::nchw : tag::any, tw = a == 1 ? tag::oihw : tag::any;
    memory::desc bmd = l.bias ? md(bia, tag::x) : memory::desc();
    fwd[a] = convolution_forward::primitive_desc(
        convolution_forward::desc(prop_kind::forward_training,
                                  algorithm::convolution_direct, md(src, ts),
                                  md(wei, tw), bmd, md(dst, ts), str, pad, pad),
        eng);
    bww[a] = convolution_backward_weights::primitive_desc(
        convolution_backward_weights::desc(algorithm::convolution_direct,
                                           md(src, ts), md(wei, tw),
                                           md(dst, ts), str, pad, pad),
        eng, fwd[a]);
    bwd[a] = convolution_backward_data::primitive_desc(
        convolution_backward_data::desc(algorithm::convolution_direct,
                                        md(src, ts), md(wei, tw), md(dst, ts),
                                        str, pad, pad),
        eng, fwd[a]);
  }
  // User memories of arms 1 and 2 (our NCHW/OIHW tensors).
  auto um = [&](const memory::dims &d, tag t, float *p) {
    return memory(md(d, t), eng, p);
  };
  memory ux[3], uw[3], ub[3], uy[3], udy[3], udw[3], udx[3];
  for (int a = 1; a <= 2; ++a) {
    ux[a] = um(src, tag::nchw, x.data());
    uw[a] = um(wei, tag::oihw, wt.data());
    ub[a] = um(bia, tag::x, bias.data());
    uy[a] = um(dst, tag::nchw, y[a + 1].data());
    udy[a] = um(dst, tag::nchw, dy.data());
    udw[a] = um(wei, tag::oihw, dw[a + 1].data());
    udx[a] = um(src, tag::nchw, dx[a + 1].data());
  }
  // Arm 2: primitive-layout memories per use (the forward's src is reused by
  // the weight gradient with its own layout only if it matches).
  Staged fX(ux[2], fwd[2].src_desc(), eng),
      fW(uw[2], fwd[2].weights_desc(), eng), fY(uy[2], fwd[2].dst_desc(), eng);
  Staged wX(ux[2], bww[2].src_desc(), eng),
      wDy(udy[2], bww[2].diff_dst_desc(), eng),
      wDw(udw[2], bww[2].diff_weights_desc(), eng);
  Staged dW(uw[2], bwd[2].weights_desc(), eng),
      dDy(udy[2], bwd[2].diff_dst_desc(), eng),
      dDx(udx[2], bwd[2].diff_src_desc(), eng);
  ReorderPair rfX(fX), rfW(fW), rfY(fY), rwX(wX), rwDy(wDy), rwDw(wDw), rdW(dW),
      rdDy(dDy), rdDx(dDx);
  convolution_forward pf[3] = {
      {}, convolution_forward(fwd[1]), convolution_forward(fwd[2])};
  convolution_backward_weights pw[3] = {{},
                                        convolution_backward_weights(bww[1]),
                                        convolution_backward_weights(bww[2])};
  convolution_backward_data pd[3] = {
      {}, convolution_backward_data(bwd[1]), convolution_backward_data(bwd[2])};

  auto fwdArgs = [&](const memory &xs, const memory &ws, const memory &ys,
                     int a) {
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, ws}, {DNNL_ARG_DST, ys}};
    if (l.bias)
      args[DNNL_ARG_BIAS] = ub[a];
    return args;
  };
  auto fa1 = fwdArgs(ux[1], uw[1], uy[1], 1),
       fa2 = fwdArgs(fX.prim, fW.prim, fY.prim, 2);
  std::unordered_map<int, memory> wa1 = {{DNNL_ARG_SRC, ux[1]},
                                         {DNNL_ARG_DIFF_DST, udy[1]},
                                         {DNNL_ARG_DIFF_WEIGHTS, udw[1]}},
                                  wa2 = {{DNNL_ARG_SRC, wX.prim},
                                         {DNNL_ARG_DIFF_DST, wDy.prim},
                                         {DNNL_ARG_DIFF_WEIGHTS, wDw.prim}},
                                  da1 = {{DNNL_ARG_DIFF_SRC, udx[1]},
                                         {DNNL_ARG_WEIGHTS, uw[1]},
                                         {DNNL_ARG_DIFF_DST, udy[1]}},
                                  da2 = {{DNNL_ARG_DIFF_SRC, dDx.prim},
                                         {DNNL_ARG_WEIGHTS, dW.prim},
                                         {DNNL_ARG_DIFF_DST, dDy.prim}};
  const float *b = l.bias ? bias.data() : nullptr;
  // The arms. The "any" arms return {primitive alone, weight reorders}.
  auto oursFwd = [&](Ours &o, int i) {
    o.forward(x.data(), wt.data(), b, y[i].data());
    return o.take();
  };
  auto oursWgt = [&](Ours &o, int i) {
    o.weightGrad(dy.data(), dw[i].data());
    return o.take();
  };
  auto oursDat = [&](Ours &o, int i) {
    o.inputGrad(wt.data(), dx[i].data());
    return o.take();
  };
  auto run = [&](primitive &prim, std::unordered_map<int, memory> &args) {
    prim.execute(st, args);
    st.wait();
    return kNoSub;
  };
  // Runs `prim` between the reorders `in` (to its layouts) and `out` (back);
  // `win`/`wout` are the weight reorders among them.
  auto staged = [&](primitive &prim, std::unordered_map<int, memory> &args,
                    std::vector<ReorderPair *> in, ReorderPair *out,
                    ReorderPair *win, ReorderPair *wout) {
    double wr = 0;
    for (ReorderPair *r : in) {
      double t0 = now();
      r->toPrim(st);
      st.wait();
      if (r == win)
        wr += now() - t0;
    }
    double t0 = now();
    prim.execute(st, args);
    st.wait();
    double tp = now() - t0;
    t0 = now();
    out->toUser(st);
    st.wait();
    if (out == wout)
      wr += now() - t0;
    return Sub{tp, wr};
  };
  std::function<Sub()> arms[3][4] = {
      {[&] { return oursFwd(ours, 0); }, [&] { return oursFwd(oursD, 1); },
       [&] { return run(pf[1], fa1); },
       [&] {
         return staged(pf[2], fa2, {&rfX, &rfW}, &rfY, &rfW, nullptr);
       }},
      {[&] { return oursWgt(ours, 0); }, [&] { return oursWgt(oursD, 1); },
       [&] { return run(pw[1], wa1); },
       [&] {
         return staged(pw[2], wa2, {&rwX, &rwDy}, &rwDw, nullptr, &rwDw);
       }},
      {[&] { return oursDat(ours, 0); }, [&] { return oursDat(oursD, 1); },
       [&] { return run(pd[1], da1); },
       [&] {
         return staged(pd[2], da2, {&rdW, &rdDy}, &rdDx, nullptr, nullptr);
       }},
  };
  struct {
    const char *op;
    std::vector<float> *out;
    std::string implPlain, implAny, fmts;
    bool run;
  } ops[3] = {
      {"forward", y, fwd[1].impl_info_str(), fwd[2].impl_info_str(),
       "src " + formatOf(fwd[2].src_desc()) + ", wei " +
           formatOf(fwd[2].weights_desc()) + ", dst " +
           formatOf(fwd[2].dst_desc()),
       true},
      {"weight grad", dw, bww[1].impl_info_str(), bww[2].impl_info_str(),
       "src " + formatOf(bww[2].src_desc()) + ", dwei " +
           formatOf(bww[2].diff_weights_desc()) + ", ddst " +
           formatOf(bww[2].diff_dst_desc()),
       true},
      {"input grad", dx, bwd[1].impl_info_str(), bwd[2].impl_info_str(),
       "dsrc " + formatOf(bwd[2].diff_src_desc()) + ", wei " +
           formatOf(bwd[2].weights_desc()) + ", ddst " +
           formatOf(bwd[2].diff_dst_desc()),
       l.dgrad},
  };
  // Same computation: run every arm once (in step order: our input gradient
  // reads the dyT our weight gradient wrote; dy does not change between
  // reps) and compare with ours.
  for (int a = 0; a < 4; ++a)
    for (int o = 0; o < 3; ++o)
      arms[o][a]();
  for (int o = 0; o < 3; ++o) {
    if (!ops[o].run)
      continue;
    double err[4];
    for (int a = 1; a < 4; ++a) {
      err[a] = relErr(ops[o].out[0], ops[o].out[a]);
      if (err[a] > 1e-4) {
        std::fprintf(stderr,
                     "%s %s %s: arm %d differs from ours (rel err %.2e)\n",
                     l.model, l.name, ops[o].op, a, err[a]);
        std::exit(1);
      }
    }
    std::vector<ArmResult> r = timeInterleaved(
        {arms[o][0], arms[o][1], arms[o][2], arms[o][3]}, budget);
    double t[kArms] = {r[0].total,
                       r[1].total,
                       r[2].total,
                       r[3].sub[0],
                       r[3].total - r[3].sub[1],
                       r[3].total};
    addSums(l.model, l.count, t);
    std::printf("| %s | %s | %d | %s |", l.model, l.name, l.count, ops[o].op);
    for (double v : t)
      std::printf(" %.3f |", v);
    std::printf(" %s | %s | %s |\n", ops[o].implPlain.c_str(),
                ops[o].implAny.c_str(), ops[o].fmts.c_str());
    std::printf("JSON {\"model\": \"%s\", \"layer\": \"%s\", \"count\": %d, "
                "\"op\": \"%s\"",
                l.model, l.name, l.count, ops[o].op);
    for (int i = 0; i < kArms; ++i)
      std::printf(", \"%s_ms\": %.4f", kArmNames[i], t[i]);
    std::printf(", \"ours_openblas_sgemm_ms\": %.4f, "
                "\"ours_dnnl_sgemm_sgemm_ms\": %.4f",
                r[0].sub[0], r[1].sub[0]);
    std::printf(", \"impl_nchw\": \"%s\", \"impl_any\": \"%s\", "
                "\"layouts_any\": \"%s\", \"relerr\": [%.2e, %.2e, %.2e]}\n",
                ops[o].implPlain.c_str(), ops[o].implAny.c_str(),
                ops[o].fmts.c_str(), err[1], err[2], err[3]);
    std::fflush(stdout);
  }
}

//===----------------------------------------------------------------------===//
// sgemm
//===----------------------------------------------------------------------===//

struct Gemm {
  std::string name;
  char ta, tb;
  int m, n, k;
};

void benchSgemm(double budget) {
  std::vector<Gemm> shapes = {{"square n=1024", 'N', 'N', 1024, 1024, 1024}};
  const int dims[] = {784, 1024, 1024, 1024, 10};
  for (int batch : {128, 256})
    for (int i = 0; i < 4; ++i) {
      int in = dims[i], out = dims[i + 1];
      std::string pre = "B=" + std::to_string(batch) + " fc" +
                        std::to_string(i + 1) + " " + std::to_string(in) +
                        "->" + std::to_string(out) + " ";
      // y[B,out] = x[B,in] W[out,in]^T; dW = dy^T x; dx = dy W.
      shapes.push_back({pre + "forward", 'N', 'T', batch, out, in});
      shapes.push_back({pre + "weight grad", 'T', 'N', out, in, batch});
      if (i > 0)
        shapes.push_back({pre + "input grad", 'N', 'N', batch, in, out});
    }
  std::printf("| shape | m n k | trans | OpenBLAS ms | dnnl_sgemm ms | "
              "OpenBLAS GFLOP/s | dnnl GFLOP/s | rel err |\n|---|---|---|---:|"
              "---:|---:|---:|---:|\n");
  // Per batch size, the summed ms of a training step's products.
  double sums[2][2] = {};
  for (const Gemm &g : shapes) {
    int ra = g.ta == 'N' ? g.m : g.k, ca = g.ta == 'N' ? g.k : g.m;
    int rb = g.tb == 'N' ? g.k : g.n, cb = g.tb == 'N' ? g.n : g.k;
    std::vector<float> a((size_t)ra * ca), b((size_t)rb * cb),
        c1((size_t)g.m * g.n), c2((size_t)g.m * g.n);
    fillRandom(a, 5);
    fillRandom(b, 6);
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, g.ta == 'N' ? CblasNoTrans : CblasTrans,
                  g.tb == 'N' ? CblasNoTrans : CblasTrans, g.m, g.n, g.k, 1.0f,
                  a.data(), ca, b.data(), cb, 0.0f, c1.data(), g.n);
      return kNoSub;
    };
    auto dnnlArm = [&] {
      dnnl_sgemm(g.ta, g.tb, g.m, g.n, g.k, 1.0f, a.data(), ca, b.data(), cb,
                 0.0f, c2.data(), g.n);
      return kNoSub;
    };
    blas();
    dnnlArm();
    double err = relErr(c1, c2);
    std::vector<ArmResult> r = timeInterleaved({blas, dnnlArm}, budget);
    double gf = 2.0 * g.m * g.n * g.k * 1e-6;
    std::printf("| %s | %d %d %d | %c%c | %.3f | %.3f | %.1f | %.1f | %.1e |\n",
                g.name.c_str(), g.m, g.n, g.k, g.ta, g.tb, r[0].total,
                r[1].total, gf / r[0].total, gf / r[1].total, err);
    std::printf("JSON {\"shape\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, "
                "\"trans\": \"%c%c\", \"openblas_ms\": %.4f, \"dnnl_ms\": "
                "%.4f, \"relerr\": %.1e}\n",
                g.name.c_str(), g.m, g.n, g.k, g.ta, g.tb, r[0].total,
                r[1].total, err);
    std::fflush(stdout);
    int bi = g.name.rfind("B=128", 0) == 0   ? 0
             : g.name.rfind("B=256", 0) == 0 ? 1
                                             : -1;
    if (bi >= 0)
      for (int a = 0; a < 2; ++a)
        sums[bi][a] += r[a].total;
  }
  std::printf(
      "\nPer MLP training step (all products above of one batch "
      "size), ms:\n\n| batch | OpenBLAS | dnnl_sgemm |\n|---|---:|---:|\n");
  for (int bi = 0; bi < 2; ++bi) {
    std::printf("| %d | %.2f | %.2f |\n", bi ? 256 : 128, sums[bi][0],
                sums[bi][1]);
    std::printf("JSON {\"mlp_step_batch\": %d, \"openblas_ms\": %.3f, "
                "\"dnnl_ms\": %.3f}\n",
                bi ? 256 : 128, sums[bi][0], sums[bi][1]);
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "conv";
  double budget = argc > 2 ? std::atof(argv[2]) : 0.3;
  if (mode == "layers") {
    for (const Layer &l : kLayers)
      std::printf("{\"model\": \"%s\", \"layer\": \"%s\", \"count\": %d, "
                  "\"n\": %d, \"c\": %d, \"h\": %d, \"w\": %d, \"m\": %d, "
                  "\"k\": %d, \"s\": %d, \"p\": %d, \"bias\": %s, "
                  "\"dgrad\": %s}\n",
                  l.model, l.name, l.count, l.n, l.c, l.h, l.w, l.m, l.k, l.s,
                  l.p, l.bias ? "true" : "false", l.dgrad ? "true" : "false");
    return 0;
  }
  const char *core = std::getenv("OPENBLAS_CORETYPE");
  std::printf("OPENBLAS_CORETYPE=%s, OpenBLAS core %s, oneDNN %d.%d.%d\n\n",
              core ? core : "(unset)", openblas_get_corename(),
              dnnl_version()->major, dnnl_version()->minor,
              dnnl_version()->patch);
  if (mode == "sgemm") {
    benchSgemm(budget);
    return 0;
  }
  if (mode != "conv") {
    std::fprintf(stderr, "usage: %s conv|sgemm [seconds] | layers\n", argv[0]);
    return 2;
  }
  engine eng(engine::kind::cpu, 0);
  stream st(eng);
  std::printf("| model | layer | count | op | ours (OpenBLAS) | ours "
              "(dnnl_sgemm) | oneDNN nchw | oneDNN any: primitive | any + "
              "activation reorders | any + all reorders | impl nchw | impl "
              "any | layouts any |\n"
              "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|\n");
  for (const Layer &l : kLayers)
    benchLayer(l, budget, eng, st);
  std::printf("\nPer model, one training step's convolutions (count x ops), "
              "ms:\n\n| model |");
  for (const char *n : kArmNames)
    std::printf(" %s |", n);
  std::printf("\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Sums &m : gSums) {
    std::printf("| %s |", m.model.c_str());
    for (double v : m.ms)
      std::printf(" %.2f |", v);
    std::printf("\n");
  }
  for (const Sums &m : gSums) {
    std::printf("JSON {\"model_sum\": \"%s\"", m.model.c_str());
    for (int i = 0; i < kArms; ++i)
      std::printf(", \"%s_ms\": %.3f", kArmNames[i], m.ms[i]);
    std::printf("}\n");
  }
  return 0;
}
