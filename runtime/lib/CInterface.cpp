//===- CInterface.cpp - Functions compiled code calls ---------------------===//
//
// The `_mlir_ciface_` entry points of docs/abi.md. MLIR passes memrefs to
// them by pointer to the descriptor (llvm.emit_c_interface).
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Communicator.h"
#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Convolution.h"
#include "autodist/runtime/Device.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/Placement.h"
#include "autodist/runtime/Sgemm.h"
#include "autodist/runtime/Trace.h"
#include "autodist/runtime/Traffic.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace autodist::rt;

namespace {
/// Compiled code cannot handle errors; a bad call is a compiler bug.
[[noreturn]] void fatal(const char *what) {
  std::fprintf(stderr, "error: internal: %s\n", what);
  comm::abort(1);
}

/// Ends the run for `e` thrown by a runtime call: a user error (Error, e.g.
/// a checkpoint of another program) as every runtime error is shown, any
/// other exception as a compiler bug.
[[noreturn]] void fatal(const std::exception &e) {
  if (auto *user = dynamic_cast<const Error *>(&e)) {
    std::fprintf(stderr, "error: %s\n", user->what());
    comm::abort(user->exitCode());
  }
  fatal(e.what());
}

/// Records the enclosing runtime call as a trace event when tracing is on;
/// `args` (a JSON object body) is only built then.
template <typename ArgsFn> class TraceCall {
public:
  TraceCall(const char *name, const char *category, ArgsFn args)
      : name_(name), category_(category), args_(std::move(args)),
        begin_(trace::enabled() ? trace::now() : 0),
        deviceBegin_(trace::deviceMark()) {}
  ~TraceCall() {
    if (trace::enabled())
      trace::call(name_, category_, begin_, args_(), deviceBegin_);
  }

private:
  const char *name_, *category_;
  ArgsFn args_;
  double begin_;
  int deviceBegin_;
};
} // namespace

namespace {
/// Runs `fn(data, n)` on the elements of `buf` as one contiguous array
/// (a packed copy for a strided view), counted as one collective of
/// `wireBytes` bytes per element and traced as `name`.
template <typename Fn>
void onContiguous(const char *name, StridedMemref<float, 1> *buf, Fn fn,
                  int64_t wireBytes = sizeof(float)) {
  int64_t bytes = buf->sizes[0] * wireBytes;
  traffic::record(bytes);
  TraceCall traced(name, "comm",
                   [&] { return "\"bytes\": " + std::to_string(bytes); });
  float *data = buf->aligned + buf->offset;
  int64_t n = buf->sizes[0], stride = buf->strides[0];
  try {
    if (stride == 1 || n <= 1) {
      fn(data, n);
      return;
    }
    // Packed where the data is (device memory on a GPU).
    Device &d = device();
    auto *packed =
        static_cast<float *>(d.allocateDevice(n * sizeof(float), 64));
    if (!packed)
      throw Error("out of memory packing a strided buffer of " +
                  std::to_string(n) + " floats");
    d.copyStrided(packed, 1, data, stride, n);
    fn(packed, n);
    d.copyStrided(data, stride, packed, 1, n);
    d.freeDevice(packed);
  } catch (const std::exception &e) {
    fatal(e); // a communication error (Error) ends the run on every rank
  }
}

ReduceOp reduceOp(int32_t op, const char *fn) {
  if (op != 0 && op != 1)
    fatal((std::string(fn) + ": op must be 0 (sum) or 1 (mean)").c_str());
  return static_cast<ReduceOp>(op);
}

/// The rank owning cluster device `device` (docs/abi.md).
int rootRank(int32_t device, const char *fn) {
  try {
    return placement().rankOfDevice(device);
  } catch (const std::exception &e) {
    fatal((std::string(fn) + ": " + e.what()).c_str());
  }
}
} // namespace

extern "C" void
_mlir_ciface_autodist_rt_allreduce_f32(StridedMemref<float, 1> *buf,
                                       int32_t op) {
  ReduceOp kind = reduceOp(op, "autodist_rt_allreduce_f32");
  onContiguous("allreduce", buf, [&](float *data, int64_t n) {
    communicator().allreduce(data, n, kind);
  });
}

namespace {
/// `n` floats at `data` where the host computes on them (the compressors,
/// runtime/lib/Compress.cpp): in place where the host can address them
/// (the CPU, managed memory), otherwise a host copy that commit() writes
/// back (the cuda target's device memory).
class HostStaging {
public:
  HostStaging(float *data, int64_t n) : data_(data), n_(n) {
    Device &d = device();
    if (d.hostAccessible(data)) {
      d.synchronize(); // what compiled code wrote there is done
      host_ = data;
      return;
    }
    copy_.resize(static_cast<size_t>(n));
    d.copyToHost(copy_.data(), data, bytes());
    host_ = copy_.data();
  }
  float *get() const { return host_; }
  void commit() {
    if (host_ != data_)
      device().copyFromHost(data_, host_, bytes());
  }

private:
  size_t bytes() const { return static_cast<size_t>(n_) * sizeof(float); }
  float *data_;
  int64_t n_;
  float *host_ = nullptr;
  std::vector<float> copy_;
};
} // namespace

/// The compressed all-reduces travel as halves (2 bytes per element).
extern "C" void
_mlir_ciface_autodist_rt_allreduce_fp16_f32(StridedMemref<float, 1> *buf,
                                            int32_t op) {
  ReduceOp kind = reduceOp(op, "autodist_rt_allreduce_fp16_f32");
  onContiguous(
      "allreduce_fp16", buf,
      [&](float *data, int64_t n) {
        HostStaging g(data, n);
        compress::allreduceFp16(g.get(), n, kind);
        g.commit();
      },
      2);
}

namespace {
/// The elements of a compressor's state buffer (the lowering allocates it
/// contiguous), which must hold `n`; otherwise a fatal error naming `fn`.
float *stateBuffer(StridedMemref<float, 1> *state, int64_t n, const char *fn,
                   const char *what) {
  if (state->sizes[0] != n || (state->strides[0] != 1 && n > 1))
    fatal((std::string(fn) + ": the " + what + " buffer has " +
           std::to_string(state->sizes[0]) + " elements (or is strided), " +
           "but the bucket needs " + std::to_string(n))
              .c_str());
  return state->aligned + state->offset;
}
} // namespace

extern "C" void _mlir_ciface_autodist_rt_allreduce_fp16_ef_f32(
    StridedMemref<float, 1> *buf, StridedMemref<float, 1> *residual,
    int32_t op) {
  const char *fn = "autodist_rt_allreduce_fp16_ef_f32";
  ReduceOp kind = reduceOp(op, fn);
  float *e = stateBuffer(residual, buf->sizes[0], fn, "residual");
  onContiguous(
      "allreduce_fp16_ef", buf,
      [&](float *data, int64_t n) {
        HostStaging g(data, n), r(e, n);
        compress::allreduceFp16EF(g.get(), n, kind, r.get());
        g.commit();
        r.commit();
      },
      2);
}

/// PowerSGD runs two f32 all-reduces (P and Q), counted as two collectives.
extern "C" void _mlir_ciface_autodist_rt_allreduce_powersgd_f32(
    StridedMemref<float, 1> *buf, StridedMemref<float, 1> *residual,
    StridedMemref<float, 1> *q, int32_t op, int32_t rows, int32_t cols,
    int32_t rank) {
  const char *fn = "autodist_rt_allreduce_powersgd_f32";
  ReduceOp kind = reduceOp(op, fn);
  if (rows < 1 || cols < 1 || rank < 1 ||
      buf->sizes[0] != static_cast<int64_t>(rows) * cols ||
      (buf->strides[0] != 1 && buf->sizes[0] > 1))
    fatal((std::string(fn) + ": bad shape or buffer").c_str());
  float *e = stateBuffer(residual, buf->sizes[0], fn, "residual");
  float *qs = stateBuffer(
      q, static_cast<int64_t>(cols) * compress::powerSGDRank(rows, cols, rank),
      fn, "Q");
  std::pair<int64_t, int64_t> bytes;
  {
    TraceCall traced("allreduce_powersgd", "comm", [&] {
      return "\"bytes\": " + std::to_string(bytes.first + bytes.second);
    });
    try {
      int64_t n = static_cast<int64_t>(rows) * cols;
      HostStaging g(buf->aligned + buf->offset, n), r(e, n),
          qh(qs, static_cast<int64_t>(cols) *
                     compress::powerSGDRank(rows, cols, rank));
      bytes = compress::allreducePowerSGD(g.get(), rows, cols, rank, kind,
                                          r.get(), qh.get());
      g.commit();
      r.commit();
      qh.commit();
    } catch (const std::exception &e) {
      fatal(e); // a device or communication error ends the run
    }
  }
  traffic::record(bytes.first);
  traffic::record(bytes.second);
}

namespace {
/// The contiguous elements of an all-reduce bucket (the lowering allocates
/// it), or a fatal error naming `fn`.
float *contiguous(StridedMemref<float, 1> *buf, const char *fn) {
  if (buf->strides[0] != 1 && buf->sizes[0] > 1)
    fatal((std::string(fn) + ": the buffer must be contiguous").c_str());
  return buf->aligned + buf->offset;
}
} // namespace

extern "C" int32_t
_mlir_ciface_autodist_rt_allreduce_start_f32(StridedMemref<float, 1> *buf) {
  int64_t bytes = buf->sizes[0] * static_cast<int64_t>(sizeof(float));
  traffic::record(bytes);
  float *data = contiguous(buf, "autodist_rt_allreduce_start_f32");
  int32_t handle = -1;
  TraceCall traced("allreduce_start", "comm", [&] {
    return "\"bytes\": " + std::to_string(bytes) +
           ", \"handle\": " + std::to_string(handle);
  });
  // The compute stream: none on CPU.
  handle = communicator().allreduceStart(data, buf->sizes[0]).id;
  return handle;
}

extern "C" void
_mlir_ciface_autodist_rt_allreduce_wait_f32(StridedMemref<float, 1> *buf,
                                            int32_t handle, int32_t op) {
  ReduceOp kind = reduceOp(op, "autodist_rt_allreduce_wait_f32");
  float *data = contiguous(buf, "autodist_rt_allreduce_wait_f32");
  TraceCall traced("allreduce_wait", "comm", [&] {
    return "\"bytes\": " +
           std::to_string(buf->sizes[0] * static_cast<int64_t>(sizeof(float))) +
           ", \"handle\": " + std::to_string(handle);
  });
  try {
    communicator().wait({handle, Stream{}}, data, kind);
  } catch (const std::exception &e) {
    fatal((std::string("autodist_rt_allreduce_wait_f32: ") + e.what()).c_str());
  }
}

extern "C" void
_mlir_ciface_autodist_rt_reduce_f32(StridedMemref<float, 1> *buf, int32_t op,
                                    int32_t device, int32_t localReplication) {
  ReduceOp kind = reduceOp(op, "autodist_rt_reduce_f32");
  int root = rootRank(device, "autodist_rt_reduce_f32");
  onContiguous("reduce", buf, [&](float *data, int64_t n) {
    communicator().reduce(data, n, kind, root,
                          localReplication ? &placement() : nullptr);
  });
}

extern "C" void _mlir_ciface_autodist_rt_broadcast_f32(
    StridedMemref<float, 1> *buf, int32_t device, int32_t localReplication) {
  int root = rootRank(device, "autodist_rt_broadcast_f32");
  onContiguous("broadcast", buf, [&](float *data, int64_t n) {
    int64_t bytes = n * static_cast<int64_t>(sizeof(float));
    communicator().broadcast(data, bytes, root,
                             localReplication ? &placement() : nullptr);
  });
}

extern "C" int64_t
_mlir_ciface_autodist_rt_read_i64(StridedMemref<int64_t, 0> *value) {
  int64_t v = 0;
  try {
    device().copyToHost(&v, value->aligned + value->offset, sizeof v);
  } catch (const std::exception &e) {
    fatal(e); // a device error (Error) is the user's to see
  }
  return v;
}

extern "C" void _mlir_ciface_autodist_rt_sgemm(StridedMemref<float, 2> *a,
                                               StridedMemref<float, 2> *b,
                                               StridedMemref<float, 2> *c,
                                               int32_t transA, int32_t transB,
                                               float alpha, float beta) {
  comm::progressAtOpBoundary();
  TraceCall traced("sgemm", "blas", [&] {
    return "\"m\": " + std::to_string(c->sizes[0]) +
           ", \"n\": " + std::to_string(c->sizes[1]) +
           ", \"k\": " + std::to_string(transA ? a->sizes[0] : a->sizes[1]);
  });
  try {
    device().sgemm(*a, *b, *c, transA != 0, transB != 0, alpha, beta);
  } catch (const std::exception &e) {
    fatal(e); // a shape mismatch is a compiler bug; a device error is not
  }
}

namespace {
/// gemm_bf16 and gemm_f16: sgemm's call with A and B of 16-bit floats.
void gemmHalfCall(HalfType type, StridedMemref<uint16_t, 2> *a,
                  StridedMemref<uint16_t, 2> *b, StridedMemref<float, 2> *c,
                  int32_t transA, int32_t transB, float alpha, float beta) {
  comm::progressAtOpBoundary();
  TraceCall traced(gemmHalfName(type), "blas", [&] {
    return "\"m\": " + std::to_string(c->sizes[0]) +
           ", \"n\": " + std::to_string(c->sizes[1]) +
           ", \"k\": " + std::to_string(transA ? a->sizes[0] : a->sizes[1]);
  });
  try {
    device().gemmHalf(type, *a, *b, *c, transA != 0, transB != 0, alpha, beta);
  } catch (const std::exception &e) {
    fatal(e); // as sgemm's
  }
}
} // namespace

extern "C" void
_mlir_ciface_autodist_rt_gemm_bf16(StridedMemref<uint16_t, 2> *a,
                                   StridedMemref<uint16_t, 2> *b,
                                   StridedMemref<float, 2> *c, int32_t transA,
                                   int32_t transB, float alpha, float beta) {
  gemmHalfCall(HalfType::BF16, a, b, c, transA, transB, alpha, beta);
}

extern "C" void _mlir_ciface_autodist_rt_gemm_f16(StridedMemref<uint16_t, 2> *a,
                                                  StridedMemref<uint16_t, 2> *b,
                                                  StridedMemref<float, 2> *c,
                                                  int32_t transA,
                                                  int32_t transB, float alpha,
                                                  float beta) {
  gemmHalfCall(HalfType::F16, a, b, c, transA, transB, alpha, beta);
}

/// sgemm_bias, gemm_bias_bf16, gemm_bias_f16: C = alpha * op(A) * op(B) +
/// bias (a row vector); `half` null for f32 A and B.
namespace {
template <typename T>
void gemmBiasCall(const HalfType *half, StridedMemref<T, 2> *a,
                  StridedMemref<T, 2> *b, StridedMemref<float, 1> *bias,
                  StridedMemref<float, 2> *c, int32_t transA, int32_t transB,
                  float alpha) {
  comm::progressAtOpBoundary();
  TraceCall traced(half ? gemmHalfBiasName(*half) : "sgemm_bias", "blas", [&] {
    return "\"m\": " + std::to_string(c->sizes[0]) +
           ", \"n\": " + std::to_string(c->sizes[1]) +
           ", \"k\": " + std::to_string(transA ? a->sizes[0] : a->sizes[1]);
  });
  try {
    if constexpr (std::is_same_v<T, float>)
      device().sgemmBias(*a, *b, *bias, *c, transA != 0, transB != 0, alpha);
    else
      device().gemmHalfBias(*half, *a, *b, *bias, *c, transA != 0, transB != 0,
                            alpha);
  } catch (const std::exception &e) {
    fatal(e); // as sgemm's
  }
}

} // namespace

extern "C" void _mlir_ciface_autodist_rt_sgemm_bias(
    StridedMemref<float, 2> *a, StridedMemref<float, 2> *b,
    StridedMemref<float, 1> *bias, StridedMemref<float, 2> *c, int32_t transA,
    int32_t transB, float alpha) {
  gemmBiasCall<float>(nullptr, a, b, bias, c, transA, transB, alpha);
}

extern "C" void _mlir_ciface_autodist_rt_gemm_bias_bf16(
    StridedMemref<uint16_t, 2> *a, StridedMemref<uint16_t, 2> *b,
    StridedMemref<float, 1> *bias, StridedMemref<float, 2> *c, int32_t transA,
    int32_t transB, float alpha) {
  const HalfType t = HalfType::BF16;
  gemmBiasCall(&t, a, b, bias, c, transA, transB, alpha);
}

extern "C" void _mlir_ciface_autodist_rt_gemm_bias_f16(
    StridedMemref<uint16_t, 2> *a, StridedMemref<uint16_t, 2> *b,
    StridedMemref<float, 1> *bias, StridedMemref<float, 2> *c, int32_t transA,
    int32_t transB, float alpha) {
  const HalfType t = HalfType::F16;
  gemmBiasCall(&t, a, b, bias, c, transA, transB, alpha);
}

namespace {
/// The geometry of a convolution call: strides [h, w], pads [top, left,
/// bottom, right], dilations [h, w].
ConvGeometry geometry(int32_t sh, int32_t sw, int32_t pt, int32_t pl,
                      int32_t pb, int32_t pr, int32_t dh, int32_t dw) {
  return ConvGeometry{{sh, sw}, {pt, pl, pb, pr}, {dh, dw}};
}

/// The trace arguments of a convolution with input x, weight w, output y.
std::string convArgs(const Tensor4 &x, const Tensor4 &w, const Tensor4 &y) {
  auto shape = [](const Tensor4 &t) {
    return "[" + std::to_string(t.sizes[0]) + ", " +
           std::to_string(t.sizes[1]) + ", " + std::to_string(t.sizes[2]) +
           ", " + std::to_string(t.sizes[3]) + "]";
  };
  return "\"x\": " + shape(x) + ", \"w\": " + shape(w) + ", \"y\": " + shape(y);
}

/// The trace category of the ABI's convolutions: their library's name.
const char *convolutionCategory() {
  const char *library = device().convolutionLibrary();
  return library ? library : "conv";
}
} // namespace

#define AUTODIST_CONV_GEOMETRY_PARAMS                                          \
  int32_t sh, int32_t sw, int32_t pt, int32_t pl, int32_t pb, int32_t pr,      \
      int32_t dlh, int32_t dlw

extern "C" void
_mlir_ciface_autodist_rt_conv2d_fwd_f32(Tensor4 *x, Tensor4 *w, Tensor4 *y,
                                        AUTODIST_CONV_GEOMETRY_PARAMS) {
  comm::progressAtOpBoundary();
  TraceCall traced("conv2d_fwd", convolutionCategory(),
                   [&] { return convArgs(*x, *w, *y); });
  try {
    device().conv2dForward(*x, *w, nullptr, *y,
                           geometry(sh, sw, pt, pl, pb, pr, dlh, dlw));
  } catch (const std::exception &e) {
    fatal(e.what());
  }
}

extern "C" void
_mlir_ciface_autodist_rt_conv2d_fwd_bias_f32(Tensor4 *x, Tensor4 *w,
                                             Vector1 *bias, Tensor4 *y,
                                             AUTODIST_CONV_GEOMETRY_PARAMS) {
  comm::progressAtOpBoundary();
  TraceCall traced("conv2d_fwd", convolutionCategory(),
                   [&] { return convArgs(*x, *w, *y); });
  try {
    device().conv2dForward(*x, *w, bias, *y,
                           geometry(sh, sw, pt, pl, pb, pr, dlh, dlw));
  } catch (const std::exception &e) {
    fatal(e.what());
  }
}

extern "C" void _mlir_ciface_autodist_rt_conv2d_bwd_data_f32(
    Tensor4 *dy, Tensor4 *w, Tensor4 *dx, AUTODIST_CONV_GEOMETRY_PARAMS) {
  comm::progressAtOpBoundary();
  TraceCall traced("conv2d_bwd_data", convolutionCategory(),
                   [&] { return convArgs(*dx, *w, *dy); });
  try {
    device().conv2dBackwardData(*dy, *w, *dx,
                                geometry(sh, sw, pt, pl, pb, pr, dlh, dlw));
  } catch (const std::exception &e) {
    fatal(e.what());
  }
}

extern "C" void _mlir_ciface_autodist_rt_conv2d_bwd_weights_f32(
    Tensor4 *dy, Tensor4 *x, Tensor4 *dw, AUTODIST_CONV_GEOMETRY_PARAMS) {
  comm::progressAtOpBoundary();
  TraceCall traced("conv2d_bwd_weights", convolutionCategory(),
                   [&] { return convArgs(*x, *dw, *dy); });
  try {
    device().conv2dBackwardWeights(*dy, *x, *dw,
                                   geometry(sh, sw, pt, pl, pb, pr, dlh, dlw));
  } catch (const std::exception &e) {
    fatal(e.what());
  }
}
#undef AUTODIST_CONV_GEOMETRY_PARAMS

namespace {
/// MLIR's unranked memref descriptor: the rank and a pointer to the ranked
/// descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct UnrankedMemref {
  int64_t rank;
  void *descriptor;
};

struct RankedView {
  char *base;
  const int64_t *sizes, *strides;

  RankedView(const UnrankedMemref &m, int64_t elemSize) {
    auto *words = static_cast<int64_t *>(m.descriptor);
    char *aligned = reinterpret_cast<char *>(words[1]);
    base = aligned + words[2] * elemSize;
    sizes = words + 3;
    strides = words + 3 + m.rank;
  }
};
} // namespace

/// `memref.copy` between non-contiguous memrefs (e.g. a shard copied into
/// a strided view) lowers to this MLIR runtime-utility call; the compiled
/// objects get it from here rather than from MLIR's runner libraries.
extern "C" void memrefCopy(int64_t elemSize, UnrankedMemref *src,
                           UnrankedMemref *dst) {
  int64_t rank = src->rank;
  RankedView s(*src, elemSize), d(*dst, elemSize);
  if (rank == 0) {
    std::memcpy(d.base, s.base, elemSize);
    return;
  }
  for (int64_t i = 0; i < rank; ++i)
    if (s.sizes[i] == 0)
      return;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t so = 0, dO = 0;
    for (int64_t i = 0; i < rank; ++i) {
      so += index[i] * s.strides[i];
      dO += index[i] * d.strides[i];
    }
    std::memcpy(d.base + dO * elemSize, s.base + so * elemSize, elemSize);
    int64_t i = rank - 1;
    while (i >= 0 && ++index[i] == s.sizes[i])
      index[i--] = 0;
    if (i < 0)
      return;
  }
}

extern "C" void autodist_rt_trace_op_begin(int32_t id) {
  // Every outlined loop nest is an operator boundary.
  autodist::rt::comm::progressAtOpBoundary();
  autodist::rt::trace::beginOp(id);
}

extern "C" void autodist_rt_trace_op_end() { autodist::rt::trace::endOp(); }

// Every runtime function of the shared ABI list (AbiNames.def) is defined
// above: a name the compiler would emit that the runtime lacks fails here,
// not when a compiled model is linked.
#define AUTODIST_ABI_CIFACE(Id, name)                                          \
  [[maybe_unused]] static constexpr auto kDefines##Id = &_mlir_ciface_##name;
#define AUTODIST_ABI_PLAIN(Id, name)                                           \
  [[maybe_unused]] static constexpr auto kDefines##Id = &name;
#include "autodist/runtime/AbiNames.def"
