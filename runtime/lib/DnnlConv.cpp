//===- DnnlConv.cpp - 2-D convolutions through oneDNN ---------------------===//

#include "autodist/runtime/DnnlConv.h"

#include <dnnl.hpp>

#include <array>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
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

/// A cached convolution primitive and its operands, with everything a call
/// needs made once: the caller's buffers are memory objects whose handles
/// each call sets, and the argument lists are the C API's arrays, so that a
/// call allocates nothing (a steady-state step makes no heap allocation).
struct Entry {
  dnnl::primitive primitive;
  std::vector<Operand> operands;
  std::vector<memory> user;                 // per operand, the caller's data
  std::vector<dnnl_exec_arg_t> args;        // the primitive's arguments
  std::vector<dnnl_exec_arg_t> reorderArgs; // per operand: from, to
};

/// Fills `e`'s memory objects and argument arrays from its operands.
void bindArguments(Entry &e) {
  dnnl::engine &eng = device().engine;
  for (Operand &o : e.operands) {
    e.user.emplace_back(o.user, eng, static_cast<void *>(nullptr));
    memory &used = o.blocked ? o.blocked : e.user.back();
    e.args.push_back({o.arg, used.get()});
    memory &from = o.output ? o.blocked : e.user.back();
    memory &to = o.output ? e.user.back() : o.blocked;
    e.reorderArgs.push_back({DNNL_ARG_FROM, o.blocked ? from.get() : nullptr});
    e.reorderArgs.push_back({DNNL_ARG_TO, o.blocked ? to.get() : nullptr});
  }
}

/// Throws when a oneDNN C call failed.
void check(dnnl_status_t status, const char *what) {
  if (status != dnnl_success)
    throw std::runtime_error(std::string("oneDNN convolution: ") + what +
                             " failed (status " +
                             std::to_string(static_cast<int>(status)) + ")");
}

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
  Entry e{Primitive(pd), {}, {}, {}, {}};
  for (const auto &[arg, user] : args)
    e.operands.push_back(
        makeOperand(arg, e.operands.size() + 1 == args.size(), user,
                    pd.query_md(dnnl::query::exec_arg_md, arg)));
  bindArguments(e);
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

/// The cache key: the kind, the three shapes and the geometry.
using Key = std::array<int64_t, 21>;

/// The cached primitive of `kind` for input x, weight w and output y (in
/// the forward's roles), made and its shapes checked on the first call.
Entry &entryFor(ConvKind kind, const Tensor4 &x, const Tensor4 &w,
                const Tensor4 &y, const ConvGeometry &g) {
  static std::map<Key, Entry> cache;
  Key key{};
  size_t n = 0;
  key[n++] = static_cast<int64_t>(kind);
  for (const Tensor4 *t : {&x, &w, &y})
    for (int64_t d : t->sizes)
      key[n++] = d;
  for (int64_t v : g.strides)
    key[n++] = v;
  for (int64_t v : g.pads)
    key[n++] = v;
  for (int64_t v : g.dilations)
    key[n++] = v;
  auto it = cache.find(key);
  if (it == cache.end()) {
    Dims xd = dimsOf(x), wd = dimsOf(w), yd = dimsOf(y);
    checkShapes(xd, wd, yd, g);
    it = cache.emplace(key, createEntry(kind, xd, wd, yd, g)).first;
  }
  return it->second;
}

/// Runs `e` on the caller's buffers `data` (in the order of e.operands):
/// inputs are reordered into the primitive's layout, the output back.
void execute(Entry &e, std::initializer_list<float *> data) {
  Device &d = device();
  size_t i = 0;
  for (float *p : data)
    e.user[i++].set_data_handle(p);
  // The reorders into the primitive's layout (inputs) or out of it.
  auto reorder = [&](bool outputs) {
    for (size_t j = 0; j < e.operands.size(); ++j)
      if (e.operands[j].blocked && e.operands[j].output == outputs)
        check(dnnl_primitive_execute(e.operands[j].reorder.get(),
                                     d.stream.get(), 2, &e.reorderArgs[2 * j]),
              "a reorder");
  };
  reorder(/*outputs=*/false);
  check(dnnl_primitive_execute(e.primitive.get(), d.stream.get(),
                               static_cast<int>(e.args.size()), e.args.data()),
        "the primitive");
  reorder(/*outputs=*/true);
  check(dnnl_stream_wait(d.stream.get()), "waiting for the stream");
}

} // namespace

void dnnlConvForward(const Tensor4 &x, const Tensor4 &w, const Vector1 *bias,
                     const Tensor4 &y, const ConvGeometry &g) {
  if (bias && (bias->sizes[0] != w.sizes[0] ||
               (w.sizes[0] > 1 && bias->strides[0] != 1)))
    throw std::invalid_argument(
        "oneDNN convolution: bias of size " + std::to_string(bias->sizes[0]) +
        " for " + std::to_string(w.sizes[0]) + " output channels");
  float *in = dataOf(x, "the input"), *weight = dataOf(w, "the weight");
  float *out = dataOf(y, "the output");
  if (bias)
    execute(entryFor(ConvKind::ForwardBias, x, w, y, g),
            {in, weight, bias->aligned + bias->offset, out});
  else
    execute(entryFor(ConvKind::Forward, x, w, y, g), {in, weight, out});
}

void dnnlConvBackwardData(const Tensor4 &dy, const Tensor4 &w,
                          const Tensor4 &dx, const ConvGeometry &g) {
  execute(entryFor(ConvKind::BackwardData, dx, w, dy, g),
          {dataOf(dy, "the output gradient"), dataOf(w, "the weight"),
           dataOf(dx, "the input gradient")});
}

void dnnlConvBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                             const Tensor4 &dw, const ConvGeometry &g) {
  execute(entryFor(ConvKind::BackwardWeights, x, dw, dy, g),
          {dataOf(dy, "the output gradient"), dataOf(x, "the input"),
           dataOf(dw, "the weight gradient")});
}

void configureDnnlThreads(int threads) {
  if (!std::getenv("OMP_NUM_THREADS"))
    omp_set_num_threads(threads < 1 ? 1 : threads);
}

} // namespace autodist::rt
