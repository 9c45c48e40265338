//===- DnnlConv.cpp - 2-D convolutions through oneDNN ---------------------===//

#include "autodist/runtime/DnnlConv.h"

#include <dnnl.hpp>

#include <cstdlib>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

// OpenMP runtime (oneDNN's Debian build threads with OpenMP).
extern "C" void omp_set_num_threads(int);

namespace autodist::rt {

namespace {

using dnnl::memory;
using Dims = memory::dims;

enum class ConvKind { Forward, ForwardBias, BackwardData, BackwardWeights };

/// The process's CPU engine and stream.
struct Device {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Device &device() {
  static Device d;
  return d;
}

/// One operand of a cached primitive: where the caller's plain tensor is
/// (`user`) and, when the primitive wants another layout, the reorder
/// between the two and the buffer in the primitive's layout.
struct Operand {
  int arg;
  bool output;
  memory::desc user;
  memory blocked; // empty when `user` is the primitive's layout
  dnnl::reorder reorder;
};

/// A cached convolution primitive and its operands.
struct Entry {
  dnnl::primitive primitive;
  std::vector<Operand> operands;
};

Dims dimsOf(const Tensor4 &t) {
  return {t.sizes[0], t.sizes[1], t.sizes[2], t.sizes[3]};
}

/// The data of `t`, which must be contiguous row-major.
float *dataOf(const Tensor4 &t, const char *what) {
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    if (t.sizes[i] != 1 && t.strides[i] != stride)
      throw std::invalid_argument(std::string("oneDNN convolution: ") + what +
                                  " is not contiguous");
    stride *= t.sizes[i];
  }
  return t.aligned + t.offset;
}

memory::desc anyDesc(const Dims &d) {
  return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
}

memory::desc plainDesc(const Dims &d, memory::format_tag tag) {
  return memory::desc(d, memory::data_type::f32, tag);
}

/// An operand whose plain layout is `user` and the primitive's `wanted`.
Operand makeOperand(int arg, bool output, const memory::desc &user,
                    const memory::desc &wanted) {
  Operand o{arg, output, user, {}, {}};
  if (wanted == user)
    return o;
  dnnl::engine &eng = device().engine;
  o.blocked = memory(wanted, eng);
  o.reorder = dnnl::reorder(dnnl::reorder::primitive_desc(
      eng, output ? wanted : user, eng, output ? user : wanted));
  return o;
}

/// Validates the shapes: x [N, C, H, W], w [M, C, kH, kW], y [N, M, OH, OW]
/// with OH, OW those of the geometry.
void checkShapes(const Dims &x, const Dims &w, const Dims &y,
                 const ConvGeometry &g) {
  bool ok = x[0] == y[0] && w[1] == x[1] && w[0] == y[1];
  for (int i = 0; i < 2 && ok; ++i) {
    int64_t span = g.dilations[i] * (w[2 + i] - 1) + 1;
    int64_t padded = x[2 + i] + g.pads[i] + g.pads[2 + i];
    ok = g.strides[i] > 0 && g.dilations[i] > 0 && padded >= span &&
         (padded - span) / g.strides[i] + 1 == y[2 + i];
  }
  if (!ok)
    throw std::invalid_argument(
        "oneDNN convolution: shapes do not line up: x " + std::to_string(x[0]) +
        "x" + std::to_string(x[1]) + "x" + std::to_string(x[2]) + "x" +
        std::to_string(x[3]) + ", w " + std::to_string(w[0]) + "x" +
        std::to_string(w[1]) + "x" + std::to_string(w[2]) + "x" +
        std::to_string(w[3]) + ", y " + std::to_string(y[0]) + "x" +
        std::to_string(y[1]) + "x" + std::to_string(y[2]) + "x" +
        std::to_string(y[3]));
}

/// An entry running the primitive of `pd` on `args` (each an argument
/// kind and the caller's plain layout of it; the last is the output).
template <typename Primitive, typename PrimitiveDesc>
Entry entryOf(const PrimitiveDesc &pd,
              std::initializer_list<std::pair<int, memory::desc>> args) {
  Entry e{Primitive(pd), {}};
  for (const auto &[arg, user] : args)
    e.operands.push_back(
        makeOperand(arg, e.operands.size() + 1 == args.size(), user,
                    pd.query_md(dnnl::query::exec_arg_md, arg)));
  return e;
}

/// Creates the primitive of `kind` for input x, weight w and output y.
Entry createEntry(ConvKind kind, const Dims &x, const Dims &w, const Dims &y,
                  const ConvGeometry &g) {
  using namespace dnnl;
  dnnl::engine &eng = device().engine;
  Dims strides = {g.strides[0], g.strides[1]};
  // oneDNN counts dilation from 0 (dense).
  Dims dil = {g.dilations[0] - 1, g.dilations[1] - 1};
  Dims padL = {g.pads[0], g.pads[1]}, padR = {g.pads[2], g.pads[3]};
  memory::desc xUser = plainDesc(x, memory::format_tag::nchw);
  memory::desc wUser = plainDesc(w, memory::format_tag::oihw);
  memory::desc yUser = plainDesc(y, memory::format_tag::nchw);
  memory::desc bias = plainDesc({w[0]}, memory::format_tag::a);
  convolution_forward::primitive_desc fwd(
      convolution_forward::desc(
          prop_kind::forward_training, algorithm::convolution_direct,
          anyDesc(x), anyDesc(w), anyDesc(y), strides, dil, padL, padR),
      eng);
  switch (kind) {
  case ConvKind::Forward:
    return entryOf<convolution_forward>(fwd, {{DNNL_ARG_SRC, xUser},
                                              {DNNL_ARG_WEIGHTS, wUser},
                                              {DNNL_ARG_DST, yUser}});
  case ConvKind::ForwardBias:
    return entryOf<convolution_forward>(
        convolution_forward::primitive_desc(
            convolution_forward::desc(prop_kind::forward_training,
                                      algorithm::convolution_direct, anyDesc(x),
                                      anyDesc(w), bias, anyDesc(y), strides,
                                      dil, padL, padR),
            eng),
        {{DNNL_ARG_SRC, xUser},
         {DNNL_ARG_WEIGHTS, wUser},
         {DNNL_ARG_BIAS, bias},
         {DNNL_ARG_DST, yUser}});
  case ConvKind::BackwardData:
    return entryOf<convolution_backward_data>(
        convolution_backward_data::primitive_desc(
            convolution_backward_data::desc(algorithm::convolution_direct,
                                            anyDesc(x), anyDesc(w), anyDesc(y),
                                            strides, dil, padL, padR),
            eng, fwd),
        {{DNNL_ARG_DIFF_DST, yUser},
         {DNNL_ARG_WEIGHTS, wUser},
         {DNNL_ARG_DIFF_SRC, xUser}});
  case ConvKind::BackwardWeights:
    return entryOf<convolution_backward_weights>(
        convolution_backward_weights::primitive_desc(
            convolution_backward_weights::desc(
                algorithm::convolution_direct, anyDesc(x), anyDesc(w),
                anyDesc(y), strides, dil, padL, padR),
            eng, fwd),
        {{DNNL_ARG_DIFF_DST, yUser},
         {DNNL_ARG_SRC, xUser},
         {DNNL_ARG_DIFF_WEIGHTS, wUser}});
  }
  throw std::logic_error("unknown convolution kind");
}

/// The cached primitive of `kind` for these shapes and geometry.
Entry &entryFor(ConvKind kind, const Dims &x, const Dims &w, const Dims &y,
                const ConvGeometry &g) {
  static std::map<std::vector<int64_t>, Entry> cache;
  std::vector<int64_t> key = {static_cast<int64_t>(kind)};
  for (const Dims *d : {&x, &w, &y})
    key.insert(key.end(), d->begin(), d->end());
  key.insert(key.end(), std::begin(g.strides), std::end(g.strides));
  key.insert(key.end(), std::begin(g.pads), std::end(g.pads));
  key.insert(key.end(), std::begin(g.dilations), std::end(g.dilations));
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, createEntry(kind, x, w, y, g)).first;
  return it->second;
}

/// Runs `e` on the caller's buffers `data` (in the order of e.operands):
/// inputs are reordered into the primitive's layout, the output back.
void execute(Entry &e, const std::vector<float *> &data) {
  Device &d = device();
  std::unordered_map<int, memory> args;
  std::vector<std::pair<Operand *, memory>> outputs;
  for (size_t i = 0; i < e.operands.size(); ++i) {
    Operand &o = e.operands[i];
    memory user(o.user, d.engine, data[i]);
    if (!o.blocked) {
      args.emplace(o.arg, user);
      continue;
    }
    args.emplace(o.arg, o.blocked);
    if (o.output)
      outputs.emplace_back(&o, user);
    else
      o.reorder.execute(d.stream, user, o.blocked);
  }
  e.primitive.execute(d.stream, args);
  for (auto &[o, user] : outputs)
    o->reorder.execute(d.stream, o->blocked, user);
  d.stream.wait();
}

} // namespace

void dnnlConvForward(const Tensor4 &x, const Tensor4 &w, const Vector1 *bias,
                     const Tensor4 &y, const ConvGeometry &g) {
  Dims xd = dimsOf(x), wd = dimsOf(w), yd = dimsOf(y);
  checkShapes(xd, wd, yd, g);
  if (bias && (bias->sizes[0] != wd[0] || (wd[0] > 1 && bias->strides[0] != 1)))
    throw std::invalid_argument("oneDNN convolution: bias of size " +
                                std::to_string(bias->sizes[0]) + " for " +
                                std::to_string(wd[0]) + " output channels");
  std::vector<float *> data = {dataOf(x, "the input"), dataOf(w, "the weight")};
  if (bias)
    data.push_back(bias->aligned + bias->offset);
  data.push_back(dataOf(y, "the output"));
  execute(
      entryFor(bias ? ConvKind::ForwardBias : ConvKind::Forward, xd, wd, yd, g),
      data);
}

void dnnlConvBackwardData(const Tensor4 &dy, const Tensor4 &w,
                          const Tensor4 &dx, const ConvGeometry &g) {
  Dims xd = dimsOf(dx), wd = dimsOf(w), yd = dimsOf(dy);
  checkShapes(xd, wd, yd, g);
  execute(entryFor(ConvKind::BackwardData, xd, wd, yd, g),
          {dataOf(dy, "the output gradient"), dataOf(w, "the weight"),
           dataOf(dx, "the input gradient")});
}

void dnnlConvBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                             const Tensor4 &dw, const ConvGeometry &g) {
  Dims xd = dimsOf(x), wd = dimsOf(dw), yd = dimsOf(dy);
  checkShapes(xd, wd, yd, g);
  execute(entryFor(ConvKind::BackwardWeights, xd, wd, yd, g),
          {dataOf(dy, "the output gradient"), dataOf(x, "the input"),
           dataOf(dw, "the weight gradient")});
}

void configureDnnlThreads(int threads) {
  if (!std::getenv("OMP_NUM_THREADS"))
    omp_set_num_threads(threads < 1 ? 1 : threads);
}

} // namespace autodist::rt
