//===- CudnnConv.cpp - 2-D convolutions through cuDNN's graph API ---------===//
//
// The backend API by hand (there is no cudnn_frontend here): every descriptor
// is owned by a Desc, every cuDNN call is checked, and a plan keeps alive
// every descriptor it was built from. See CudnnConv.h for the choices
// (precision, bias, caching).
//
//===----------------------------------------------------------------------===//

#include "CudnnConv.h"

#include "CudaContext.h"

#include "autodist/runtime/Error.h"

#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// An enumerator and its name, for the messages.
#define AUTODIST_NAMED(e) e, #e

namespace autodist::rt {
namespace {

[[noreturn]] void throwDnn(cudnnStatus_t status, const std::string &call) {
  throw Error("cuDNN " + call + " failed: " + cudnnGetErrorString(status));
}

void checkDnn(cudnnStatus_t status, const char *call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throwDnn(status, call);
}

/// No engine config finalized for a graph (an Error, so that a caller that
/// does not fall back reports it as is).
struct NoEngine : Error {
  using Error::Error;
};

/// An owned backend descriptor.
class Desc {
public:
  Desc() = default;
  Desc(cudnnBackendDescriptorType_t type, const char *typeName)
      : typeName_(typeName) {
    cudnnStatus_t s = cudnnBackendCreateDescriptor(type, &d_);
    if (s != CUDNN_STATUS_SUCCESS)
      throwDnn(s,
               std::string("cudnnBackendCreateDescriptor(") + typeName + ")");
  }
  Desc(Desc &&o) noexcept
      : d_(std::exchange(o.d_, nullptr)), typeName_(o.typeName_) {}
  Desc &operator=(Desc &&o) noexcept {
    if (this != &o) {
      reset();
      d_ = std::exchange(o.d_, nullptr);
      typeName_ = o.typeName_;
    }
    return *this;
  }
  Desc(const Desc &) = delete;
  Desc &operator=(const Desc &) = delete;
  ~Desc() { reset(); }

  cudnnBackendDescriptor_t get() const { return d_; }
  explicit operator bool() const { return d_ != nullptr; }

  Desc &set(cudnnBackendAttributeName_t name, const char *attrName,
            cudnnBackendAttributeType_t type, int64_t count,
            const void *values) {
    cudnnStatus_t s = cudnnBackendSetAttribute(d_, name, type, count, values);
    if (s != CUDNN_STATUS_SUCCESS)
      throwDnn(s, std::string("cudnnBackendSetAttribute(") + attrName + ")");
    return *this;
  }
  Desc &set(cudnnBackendAttributeName_t name, const char *attrName,
            const Desc &value) {
    cudnnBackendDescriptor_t d = value.get();
    return set(name, attrName, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
  }
  cudnnStatus_t tryFinalize() { return cudnnBackendFinalize(d_); }
  void finalize() {
    cudnnStatus_t s = tryFinalize();
    if (s != CUDNN_STATUS_SUCCESS)
      throwDnn(s, std::string("cudnnBackendFinalize(") + typeName_ + ")");
  }

private:
  void reset() {
    if (d_)
      cudnnBackendDestroyDescriptor(d_);
    d_ = nullptr;
  }

  cudnnBackendDescriptor_t d_ = nullptr;
  const char *typeName_ = "";
};

/// The variant pack's ids of the operands, by their role in the forward
/// convolution (the backward ones reuse them: dx is x, dw is w, dy is y).
enum : int64_t { UidX = 1, UidW, UidY, UidBias, UidConvOut };

/// The byte alignment cuDNN may assume of `p`: 16, 8, 4 (or less, which the
/// argument checks refuse for f32).
int64_t alignmentOf(const void *p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  int64_t alignment = 16;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}

/// A contiguous NCHW-ordered f32 tensor.
Desc tensor(int64_t uid, const int64_t dims[4], int64_t alignment,
            bool isVirtual) {
  int64_t strides[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3],
                        1};
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  Desc t(AUTODIST_NAMED(CUDNN_BACKEND_TENSOR_DESCRIPTOR));
  t.set(AUTODIST_NAMED(CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_TYPE_DATA_TYPE, 1,
        &type)
      .set(AUTODIST_NAMED(CUDNN_ATTR_TENSOR_DIMENSIONS), CUDNN_TYPE_INT64, 4,
           dims)
      .set(AUTODIST_NAMED(CUDNN_ATTR_TENSOR_STRIDES), CUDNN_TYPE_INT64, 4,
           strides)
      .set(AUTODIST_NAMED(CUDNN_ATTR_TENSOR_UNIQUE_ID), CUDNN_TYPE_INT64, 1,
           &uid)
      .set(AUTODIST_NAMED(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT), CUDNN_TYPE_INT64,
           1, &alignment);
  if (isVirtual) {
    bool yes = true;
    t.set(AUTODIST_NAMED(CUDNN_ATTR_TENSOR_IS_VIRTUAL), CUDNN_TYPE_BOOLEAN, 1,
          &yes);
  }
  t.finalize();
  return t;
}

uint32_t noteBit(cudnnBackendNumericalNote_t note) { return 1u << note; }

/// The numerical notes of the engine of `config`, as noteBit()s: how the
/// backend tells tensor cores (TF32 for f32 data), down-converted inputs,
/// reduced-precision reductions and nondeterminism apart.
uint32_t numericalNotes(cudnnBackendDescriptor_t config) {
  Desc engine(AUTODIST_NAMED(CUDNN_BACKEND_ENGINE_DESCRIPTOR));
  cudnnBackendDescriptor_t e = engine.get();
  int64_t count = 0;
  checkDnn(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count,
                                    &e),
           "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINECFG_ENGINE)");
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  checkDnn(cudnnBackendGetAttribute(
               e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, notes),
           "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE)");
  uint32_t bits = 0;
  for (int64_t i = 0;
       i < std::min<int64_t>(count, CUDNN_NUMERICAL_NOTE_TYPE_COUNT); ++i)
    if (notes[i] >= 0 && notes[i] < 32)
      bits |= noteBit(notes[i]);
  return bits;
}

std::string dimsText(const int64_t *dims, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// The number of elements, or -1 when it overflows int64_t.
int64_t elementCount(const int64_t dims[4]) {
  int64_t n = 1;
  for (int i = 0; i < 4; ++i)
    if (__builtin_mul_overflow(n, dims[i], &n))
      return -1;
  return n;
}

enum class ConvOp : int64_t { Forward, BackwardData, BackwardWeights };

} // namespace

struct CudnnConvolutions::Problem {
  ConvOp op;
  /// The forward convolution's input, filter and output dims (dx's, dw's
  /// and dy's for the backward ones).
  int64_t x[4], w[4], y[4];
  CudnnConvGeometry g;
  int64_t group;
  /// The device pointers by the same roles; pb is the bias or null.
  const void *px, *pw, *py, *pb;

  Problem(ConvOp op, const int64_t *xDims, const int64_t *wDims,
          const int64_t *yDims, const CudnnConvGeometry &g, int64_t group,
          const void *px, const void *pw, const void *py, const void *pb)
      : op(op), g(g), group(group), px(px), pw(pw), py(py), pb(pb) {
    if (!xDims || !wDims || !yDims)
      throw std::invalid_argument(std::string(name()) + ": null dims");
    std::copy(xDims, xDims + 4, x);
    std::copy(wDims, wDims + 4, w);
    std::copy(yDims, yDims + 4, y);
  }

  const char *name() const {
    switch (op) {
    case ConvOp::Forward:
      return "conv2d forward";
    case ConvOp::BackwardData:
      return "conv2d backward data";
    case ConvOp::BackwardWeights:
      return "conv2d backward weights";
    }
    return "conv2d";
  }
  const char *xName() const { return op == ConvOp::BackwardData ? "dx" : "x"; }
  const char *wName() const {
    return op == ConvOp::BackwardWeights ? "dw" : "w";
  }
  const char *yName() const { return op == ConvOp::Forward ? "y" : "dy"; }

  /// The operands in argument order and the geometry, for messages.
  std::string shapes() const {
    std::string xs = std::string(xName()) + " " + dimsText(x, 4),
                ws = std::string(wName()) + " " + dimsText(w, 4),
                ys = std::string(yName()) + " " + dimsText(y, 4);
    std::string s = op == ConvOp::Forward        ? xs + ", " + ws + ", " + ys
                    : op == ConvOp::BackwardData ? ys + ", " + ws + ", " + xs
                                                 : ys + ", " + xs + ", " + ws;
    if (pb)
      s += ", bias [" + std::to_string(y[1]) + "]";
    return s + ", strides " + dimsText(g.strides, 2) + ", pads " +
           dimsText(g.pads, 4) + ", dilations " + dimsText(g.dilations, 2) +
           ", group " + std::to_string(group);
  }
  std::string describe() const {
    return std::string(name()) + " (" + shapes() + ")";
  }

  /// Throws std::invalid_argument unless cuDNN can run this as given.
  void check() const {
    auto fail = [&](const std::string &why) {
      throw std::invalid_argument(std::string(name()) + ": " + why + " (" +
                                  shapes() + ")");
    };
    if (group < 1 || group > INT_MAX)
      fail("group must be at least 1");
    for (int i = 0; i < 2; ++i) {
      if (g.strides[i] < 1 || g.strides[i] > INT_MAX)
        fail("strides must be positive");
      if (g.dilations[i] < 1 || g.dilations[i] > INT_MAX)
        fail("dilations must be positive");
    }
    for (int64_t pad : g.pads)
      if (pad < 0 || pad > INT_MAX)
        fail("pads must not be negative");
    for (int i = 0; i < 4; ++i) {
      // Only the batch may be empty.
      int64_t least = i == 0 ? 0 : 1;
      if (x[i] < least || x[i] > INT_MAX || y[i] < least || y[i] > INT_MAX ||
          w[i] < 1 || w[i] > INT_MAX)
        fail("dims must be positive (the batch may be 0) and fit in int");
    }
    if (w[1] * group != x[1])
      fail(std::string(xName()) + " has " + std::to_string(x[1]) +
           " channels, " + wName() + " takes " + std::to_string(w[1]) +
           " per group");
    if (w[0] % group != 0)
      fail(std::to_string(w[0]) + " output channels do not split into " +
           std::to_string(group) + " groups");
    if (y[0] != x[0])
      fail(std::string(yName()) + "'s batch is not " + xName() + "'s");
    if (y[1] != w[0])
      fail(std::string(yName()) + " has " + std::to_string(y[1]) +
           " channels, " + wName() + " makes " + std::to_string(w[0]));
    for (int i = 0; i < 2; ++i) {
      int64_t padded = x[2 + i] + g.pads[i] + g.pads[2 + i];
      int64_t extent = g.dilations[i] * (w[2 + i] - 1) + 1;
      const char *axis = i == 0 ? "height" : "width";
      if (extent > padded)
        fail(std::string("the dilated kernel's ") + axis + " " +
             std::to_string(extent) + " exceeds the padded input's " +
             std::to_string(padded));
      int64_t out = (padded - extent) / g.strides[i] + 1;
      if (y[2 + i] != out)
        fail(std::string(yName()) + "'s " + axis + " is " +
             std::to_string(y[2 + i]) + ", the convolution makes " +
             std::to_string(out));
    }
    const void *pointers[] = {px, pw, py};
    const int64_t *dims[] = {x, w, y};
    const char *names[] = {xName(), wName(), yName()};
    for (int i = 0; i < 3; ++i) {
      int64_t n = elementCount(dims[i]);
      if (n < 0 || n > INT64_MAX / 4)
        fail(std::string(names[i]) + " has too many elements");
      if (n > 0 && !pointers[i])
        fail(std::string(names[i]) + " is null");
      if (alignmentOf(pointers[i]) < 4)
        fail(std::string(names[i]) + " is not 4-byte aligned");
    }
    if (pb && alignmentOf(pb) < 4)
      fail("bias is not 4-byte aligned");
  }

  Key key() const {
    Key k{};
    size_t i = 0;
    k[i++] = static_cast<int64_t>(op);
    for (const int64_t *d : {x, w, y})
      for (int j = 0; j < 4; ++j)
        k[i++] = d[j];
    for (int64_t v : g.strides)
      k[i++] = v;
    for (int64_t v : g.pads)
      k[i++] = v;
    for (int64_t v : g.dilations)
      k[i++] = v;
    k[i++] = group;
    for (const void *p : {px, pw, py})
      k[i++] = alignmentOf(p);
    k[i++] = pb ? alignmentOf(pb) : 0;
    return k;
  }
};

struct CudnnConvolutions::Plan {
  /// What the plan was built from (tensors, operations, graph, heuristics,
  /// engine config), alive as long as it.
  std::vector<Desc> parts;
  Desc plan;
  size_t workspace = 0;
  /// The variant pack's ids, in the order run() is given the pointers.
  std::vector<int64_t> uids;
  bool fusedBias = false;
  /// For cudnnAddTensor when the bias is not fused: bias and y.
  cudnnTensorDescriptor_t biasDesc = nullptr, outDesc = nullptr;
  std::string what; // the problem, for messages
  /// The last variant pack and what it holds: the pointers, then the
  /// workspace.
  Desc pack;
  std::vector<void *> packPointers;

  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    // The users before what they use.
    pack = Desc();
    plan = Desc();
    while (!parts.empty())
      parts.pop_back();
    if (biasDesc)
      cudnnDestroyTensorDescriptor(biasDesc);
    if (outDesc)
      cudnnDestroyTensorDescriptor(outDesc);
  }
};

CudnnConvolutions::CudnnConvolutions(cudaStream_t stream, bool allowTF32)
    : stream_(stream), allowTF32_(allowTF32) {}

CudnnConvolutions::~CudnnConvolutions() {
  // Destructors do not throw: failures (CUDA already down) are ignored.
  plans_.clear();
  if (workspace_)
    cudaFreeAsync(workspace_, stream_);
  if (handle_)
    cudnnDestroy(handle_);
}

cudnnContext *CudnnConvolutions::handle() {
  if (!handle_) {
    cudnnHandle_t h = nullptr;
    checkDnn(cudnnCreate(&h), "cudnnCreate");
    cudnnStatus_t s = cudnnSetStream(h, stream_);
    if (s != CUDNN_STATUS_SUCCESS) {
      cudnnDestroy(h);
      throwDnn(s, "cudnnSetStream");
    }
    handle_ = h;
  }
  return handle_;
}

std::unique_ptr<CudnnConvolutions::Plan>
CudnnConvolutions::build(cudnnContext *handle, const Problem &p, bool fuseBias,
                         bool allowTF32) {
  auto plan = std::make_unique<Plan>();
  plan->what = p.describe();
  Desc x = tensor(UidX, p.x, alignmentOf(p.px), false);
  Desc w = tensor(UidW, p.w, alignmentOf(p.pw), false);
  // Fused, the convolution writes a virtual tensor that the add reads.
  Desc y = fuseBias ? tensor(UidConvOut, p.y, 16, true)
                    : tensor(UidY, p.y, alignmentOf(p.py), false);

  Desc conv(AUTODIST_NAMED(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
  cudnnDataType_t computeType = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int64_t spatialDims = 2;
  int64_t prePads[2] = {p.g.pads[0], p.g.pads[1]};
  int64_t postPads[2] = {p.g.pads[2], p.g.pads[3]};
  conv.set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_COMP_TYPE),
           CUDNN_TYPE_DATA_TYPE, 1, &computeType)
      .set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_CONV_MODE),
           CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode)
      .set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS),
           CUDNN_TYPE_INT64, 1, &spatialDims)
      .set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS),
           CUDNN_TYPE_INT64, 2, prePads)
      .set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS),
           CUDNN_TYPE_INT64, 2, postPads)
      .set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_DILATIONS), CUDNN_TYPE_INT64,
           2, p.g.dilations)
      .set(AUTODIST_NAMED(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES),
           CUDNN_TYPE_INT64, 2, p.g.strides);
  conv.finalize();

  // The group is implied by the dims: x's channels over w's.
  float alpha = 1.0f, beta = 0.0f;
  Desc op;
  switch (p.op) {
  case ConvOp::Forward:
    op = Desc(
        AUTODIST_NAMED(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR));
    op.set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X), x)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W), w)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y), y)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC),
             conv)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA),
             CUDNN_TYPE_FLOAT, 1, &alpha)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA),
             CUDNN_TYPE_FLOAT, 1, &beta);
    break;
  case ConvOp::BackwardData:
    op = Desc(AUTODIST_NAMED(
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR));
    op.set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX), x)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W), w)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY), y)
        .set(
            AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC),
            conv)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA),
             CUDNN_TYPE_FLOAT, 1, &alpha)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA),
             CUDNN_TYPE_FLOAT, 1, &beta);
    break;
  case ConvOp::BackwardWeights:
    op = Desc(AUTODIST_NAMED(
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR));
    op.set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X), x)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW), w)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY), y)
        .set(AUTODIST_NAMED(
                 CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC),
             conv)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA),
             CUDNN_TYPE_FLOAT, 1, &alpha)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA),
             CUDNN_TYPE_FLOAT, 1, &beta);
    break;
  }
  op.finalize();
  std::vector<cudnnBackendDescriptor_t> ops = {op.get()};
  plan->uids = {UidX, UidW, UidY};

  Desc bias, out, add, addOp;
  if (fuseBias) {
    int64_t biasDims[4] = {1, p.y[1], 1, 1};
    bias = tensor(UidBias, biasDims, alignmentOf(p.pb), false);
    out = tensor(UidY, p.y, alignmentOf(p.py), false);
    add = Desc(AUTODIST_NAMED(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
    cudnnPointwiseMode_t addMode = CUDNN_POINTWISE_ADD;
    add.set(AUTODIST_NAMED(CUDNN_ATTR_POINTWISE_MODE),
            CUDNN_TYPE_POINTWISE_MODE, 1, &addMode)
        .set(AUTODIST_NAMED(CUDNN_ATTR_POINTWISE_MATH_PREC),
             CUDNN_TYPE_DATA_TYPE, 1, &computeType);
    add.finalize();
    addOp = Desc(AUTODIST_NAMED(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
    addOp.set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR), add)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_POINTWISE_XDESC), y)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_POINTWISE_BDESC), bias)
        .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATION_POINTWISE_YDESC), out);
    addOp.finalize();
    ops.push_back(addOp.get());
    plan->uids.push_back(UidBias);
  }

  // The handle: required by cuDNN before 9.8, deprecated (not needed) since.
  cudnnHandle_t h = handle;
  Desc graph(AUTODIST_NAMED(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
  graph
      .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATIONGRAPH_OPS),
           CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops.size()),
           ops.data())
      .set(AUTODIST_NAMED(CUDNN_ATTR_OPERATIONGRAPH_HANDLE), CUDNN_TYPE_HANDLE,
           1, &h);
  graph.finalize();

  // Heuristics' configs, mode A's then FALLBACK's (whose generic engines
  // cover what A's do not), without those below f32; deterministic ones
  // first (reproducible gradients), each in the heuristics' order. The
  // first whose plan finalizes wins.
  std::vector<Desc> heuristics, candidates, nondeterministic;
  int64_t offered = 0, skipped = 0, failed = 0;
  std::string lastFailure;
  for (cudnnBackendHeurMode_t heurMode :
       {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    Desc heur(AUTODIST_NAMED(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR));
    heur.set(AUTODIST_NAMED(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH), graph)
        .set(AUTODIST_NAMED(CUDNN_ATTR_ENGINEHEUR_MODE), CUDNN_TYPE_HEUR_MODE,
             1, &heurMode);
    // A mode that does not support the graph has no configs for it.
    if (cudnnStatus_t s = heur.tryFinalize(); s != CUDNN_STATUS_SUCCESS) {
      lastFailure = std::string("cudnnBackendFinalize(heuristics) failed: ") +
                    cudnnGetErrorString(s);
      continue;
    }
    int64_t count = 0;
    checkDnn(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                      nullptr),
             "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS)");
    std::vector<Desc> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
      configs.emplace_back(AUTODIST_NAMED(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
      raw.push_back(configs.back().get());
    }
    int64_t returned = 0;
    if (count > 0)
      checkDnn(cudnnBackendGetAttribute(
                   heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                   CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()),
               "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS)");
    configs.resize(
        static_cast<size_t>(std::clamp<int64_t>(returned, 0, count)));
    for (Desc &config : configs) {
      ++offered;
      uint32_t notes = numericalNotes(config.get());
      // For f32 data a tensor-core engine is TF32: only where allowed.
      uint32_t refused =
          noteBit(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) |
          noteBit(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) |
          (allowTF32 ? 0u : noteBit(CUDNN_NUMERICAL_NOTE_TENSOR_CORE));
      if (notes & refused)
        ++skipped;
      else if (notes & noteBit(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC))
        nondeterministic.push_back(std::move(config));
      else
        candidates.push_back(std::move(config));
    }
    heuristics.push_back(std::move(heur));
  }
  for (Desc &config : nondeterministic)
    candidates.push_back(std::move(config));

  for (Desc &config : candidates) {
    Desc exec(AUTODIST_NAMED(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR));
    exec.set(AUTODIST_NAMED(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG), config)
        .set(AUTODIST_NAMED(CUDNN_ATTR_EXECUTION_PLAN_HANDLE),
             CUDNN_TYPE_HANDLE, 1, &h);
    if (cudnnStatus_t s = exec.tryFinalize(); s != CUDNN_STATUS_SUCCESS) {
      ++failed;
      lastFailure = std::string("cudnnBackendFinalize(plan) failed: ") +
                    cudnnGetErrorString(s);
      continue;
    }
    int64_t workspace = 0, n = 0;
    checkDnn(cudnnBackendGetAttribute(exec.get(),
                                      CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                      CUDNN_TYPE_INT64, 1, &n, &workspace),
             "cudnnBackendGetAttribute("
             "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)");
    plan->workspace = static_cast<size_t>(std::max<int64_t>(workspace, 0));
    plan->plan = std::move(exec);
    for (Desc *d :
         {&x, &w, &y, &conv, &op, &bias, &out, &add, &addOp, &graph, &config})
      if (*d)
        plan->parts.push_back(std::move(*d));
    for (Desc &heur : heuristics)
      plan->parts.push_back(std::move(heur));
    return plan;
  }
  throw NoEngine("cuDNN has no engine for " + plan->what +
                 (fuseBias ? " with the bias add fused" : "") +
                 (allowTF32 ? " in f32 or TF32" : " in f32 without TF32") +
                 ": heuristics offered " + std::to_string(offered) +
                 " engine configs, " + std::to_string(skipped) +
                 (allowTF32
                      ? " of them with reduced precision, "
                      : " of them with tensor cores or reduced precision, ") +
                 std::to_string(failed) + " failed to finalize" +
                 (lastFailure.empty() ? "" : "; last: " + lastFailure));
}

CudnnConvolutions::Plan &CudnnConvolutions::plan(const Problem &p) {
  Key key = p.key();
  auto it = plans_.find(key);
  if (it != plans_.end())
    return *it->second;
  cudnnHandle_t h = handle();
  std::unique_ptr<Plan> built;
  if (p.pb) {
    try {
      built = build(h, p, /*fuseBias=*/true, allowTF32_);
      built->fusedBias = true;
    } catch (const Error &) {
      // Not fusable here (typically no non-TF32 engine for conv + add): the
      // plain convolution, then cudnnAddTensor.
    }
  }
  if (!built) {
    built = build(h, p, /*fuseBias=*/false, allowTF32_);
    if (p.pb) {
      checkDnn(cudnnCreateTensorDescriptor(&built->biasDesc),
               "cudnnCreateTensorDescriptor");
      checkDnn(cudnnCreateTensorDescriptor(&built->outDesc),
               "cudnnCreateTensorDescriptor");
      // check() bounded every dim by INT_MAX.
      checkDnn(cudnnSetTensor4dDescriptor(built->biasDesc, CUDNN_TENSOR_NCHW,
                                          CUDNN_DATA_FLOAT, 1,
                                          static_cast<int>(p.y[1]), 1, 1),
               "cudnnSetTensor4dDescriptor");
      checkDnn(cudnnSetTensor4dDescriptor(
                   built->outDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                   static_cast<int>(p.y[0]), static_cast<int>(p.y[1]),
                   static_cast<int>(p.y[2]), static_cast<int>(p.y[3])),
               "cudnnSetTensor4dDescriptor");
    }
  }
  ++plansBuilt_;
  if (built->fusedBias)
    ++fusedBiasPlans_;
  return *plans_.emplace(key, std::move(built)).first->second;
}

void CudnnConvolutions::ensureWorkspace(size_t bytes) {
  if (bytes <= workspaceBytes_)
    return;
  // Stream-ordered: work already issued with the old one finishes first.
  if (workspace_) {
    void *old = std::exchange(workspace_, nullptr);
    workspaceBytes_ = 0;
    cuda::check(cudaFreeAsync(old, stream_), "cudaFreeAsync");
  }
  void *p = nullptr;
  cuda::check(cudaMallocAsync(&p, bytes, stream_), "cudaMallocAsync");
  workspace_ = p;
  workspaceBytes_ = bytes;
}

void CudnnConvolutions::run(Plan &plan, const void *const *pointers,
                            size_t count) {
  ensureWorkspace(plan.workspace);
  // A finalized pack cannot be changed: a new one when a pointer moved.
  bool same = plan.pack && plan.packPointers.size() == count + 1 &&
              plan.packPointers[count] == workspace_ &&
              std::equal(pointers, pointers + count, plan.packPointers.begin());
  if (!same) {
    plan.pack = Desc();
    plan.packPointers.clear();
    for (size_t i = 0; i < count; ++i)
      plan.packPointers.push_back(const_cast<void *>(pointers[i]));
    Desc pack(AUTODIST_NAMED(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
    pack.set(AUTODIST_NAMED(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS),
             CUDNN_TYPE_INT64, static_cast<int64_t>(count), plan.uids.data())
        .set(AUTODIST_NAMED(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS),
             CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(count),
             plan.packPointers.data())
        .set(AUTODIST_NAMED(CUDNN_ATTR_VARIANT_PACK_WORKSPACE),
             CUDNN_TYPE_VOID_PTR, 1, &workspace_);
    pack.finalize();
    plan.packPointers.push_back(workspace_);
    plan.pack = std::move(pack);
  }
  cudnnStatus_t s =
      cudnnBackendExecute(handle_, plan.plan.get(), plan.pack.get());
  if (s != CUDNN_STATUS_SUCCESS)
    throw Error(std::string("cuDNN cudnnBackendExecute failed: ") +
                cudnnGetErrorString(s) + " (" + plan.what + ")");
}

void CudnnConvolutions::forward(const float *x, const int64_t xDims[4],
                                const float *w, const int64_t wDims[4],
                                const float *bias, float *y,
                                const int64_t yDims[4],
                                const CudnnConvGeometry &g, int64_t group) {
  Problem p(ConvOp::Forward, xDims, wDims, yDims, g, group, x, w, y, bias);
  p.check();
  if (p.y[0] == 0)
    return;
  Plan &pl = plan(p);
  const void *pointers[] = {x, w, y, bias};
  run(pl, pointers, pl.uids.size());
  if (bias && !pl.fusedBias) {
    float one = 1.0f;
    checkDnn(
        cudnnAddTensor(handle_, &one, pl.biasDesc, bias, &one, pl.outDesc, y),
        "cudnnAddTensor");
  }
}

void CudnnConvolutions::backwardData(const float *dy, const int64_t dyDims[4],
                                     const float *w, const int64_t wDims[4],
                                     float *dx, const int64_t dxDims[4],
                                     const CudnnConvGeometry &g,
                                     int64_t group) {
  Problem p(ConvOp::BackwardData, dxDims, wDims, dyDims, g, group, dx, w, dy,
            nullptr);
  p.check();
  if (p.x[0] == 0)
    return;
  Plan &pl = plan(p);
  const void *pointers[] = {dx, w, dy};
  run(pl, pointers, 3);
}

void CudnnConvolutions::backwardWeights(const float *dy,
                                        const int64_t dyDims[4], const float *x,
                                        const int64_t xDims[4], float *dw,
                                        const int64_t dwDims[4],
                                        const CudnnConvGeometry &g,
                                        int64_t group) {
  Problem p(ConvOp::BackwardWeights, xDims, dwDims, dyDims, g, group, x, dw, dy,
            nullptr);
  p.check();
  if (p.x[0] == 0) { // no samples: no gradient
    cuda::check(
        cudaMemsetAsync(dw, 0, elementCount(p.w) * sizeof(float), stream_),
        "cudaMemsetAsync");
    return;
  }
  Plan &pl = plan(p);
  const void *pointers[] = {x, dw, dy};
  run(pl, pointers, 3);
}

} // namespace autodist::rt

#undef AUTODIST_NAMED
