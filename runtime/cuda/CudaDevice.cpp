//===- CudaDevice.cpp - The CUDA GPU as the runtime's device --------------===//
//
// One GPU per rank, one compute stream: compiled code's kernels (through the
// mgpu* ABI, MgpuRuntime.cpp), the gemms (cuBLASLt) and the collectives (NCCL)
// are all ordered on it, so the host only waits in synchronize(). Tensors
// are managed memory the host reads after synchronize(); compiled code's
// temporaries come from the device's stream-ordered pool, which is told to
// keep what is freed, so that a steady-state step never reaches cudaMalloc.
// sgemm and the 16-bit gemms cache their cuBLASLt descriptors and algorithm
// per shape and element type: a steady-state call is one cublasLtMatmul.
//
// Nothing touches CUDA before select(): a unit test, or an executable run on
// a machine without a GPU, gets host memory or a one-line Error.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/cuda/CudaDevice.h"

#include "CudaContext.h"
#include "CudnnConv.h"
#include "NcclCommunicator.h"

#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Communicator.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Sgemm.h"
#include "autodist/runtime/Trace.h"

#include <cublasLt.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace autodist::rt {
namespace cuda {
namespace {
struct State {
  bool selected = false;
  int device = -1;
  cudaStream_t stream = nullptr;
  std::mutex errorMutex;
  std::string asyncError; // the first one not yet thrown
};

State &state() {
  static State s;
  return s;
}

/// The recorded error, cleared.
std::string takeAsyncError() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  std::string e;
  e.swap(s.asyncError);
  return e;
}
} // namespace

bool deviceSelected() { return state().selected; }
int deviceOrdinal() { return state().device; }
cudaStream_t computeStream() { return state().stream; }

void throwCuda(cudaError_t err, const char *call) {
  throw Error(std::string("CUDA ") + call +
              " failed: " + cudaGetErrorString(err));
}

void recordAsyncError(const std::string &message) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  if (s.asyncError.empty())
    s.asyncError = message;
}

void fatal(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::fflush(stderr);
  comm::abort(1);
}
} // namespace cuda

namespace {
using Matrix = StridedMemref<float, 2>;
using HalfMatrix = StridedMemref<uint16_t, 2>;

void checkLt(cublasStatus_t status, const char *call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLASLt ") + call +
                " failed: " + cublasLtGetStatusString(status));
}

/// The leading dimension of `m` as a row-major matrix (as Sgemm.cpp's): the
/// inner stride must be 1 unless there is a single column; a single row may
/// have any row stride. Throws std::invalid_argument otherwise: unlike the
/// host, the GPU has no plain-loop fallback. `op` names the call.
template <typename T>
int64_t leadingDim(const StridedMemref<T, 2> &m, const char *which,
                   const char *op) {
  int64_t rows = m.sizes[0], cols = m.sizes[1],
          minLd = std::max<int64_t>(1, cols);
  int64_t ld = rows > 1 ? m.strides[0] : minLd;
  if ((cols > 1 && m.strides[1] != 1) || ld < minLd)
    throw std::invalid_argument(
        std::string(op) + " on CUDA: " + which + " (" + std::to_string(rows) +
        "x" + std::to_string(cols) + ", strides " +
        std::to_string(m.strides[0]) + ", " + std::to_string(m.strides[1]) +
        ") must have inner stride 1 and a row stride of at least its row "
        "length");
  return ld;
}

/// The largest power of two (at most 256) dividing the address, for
/// cuBLASLt's alignment preferences; at least the element size
/// `elemBytes`, which every element address is a multiple of.
uint32_t alignmentOf(const void *p, uint32_t elemBytes) {
  auto a = reinterpret_cast<uintptr_t>(p);
  uint32_t align = 256;
  while (align > elemBytes && a % align)
    align /= 2;
  return align;
}

/// What a cached gemm plan depends on; `abType` is A's and B's element type
/// (C's is always float).
struct GemmKey {
  int64_t m, n, k, lda, ldb, ldc;
  bool transA, transB;
  uint32_t alignA, alignB, alignC;
  cudaDataType_t abType;
  cublasComputeType_t compute;
  bool bias = false; // CUBLASLT_EPILOGUE_BIAS
  bool operator==(const GemmKey &o) const {
    return m == o.m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb &&
           ldc == o.ldc && transA == o.transA && transB == o.transB &&
           alignA == o.alignA && alignB == o.alignB && alignC == o.alignC &&
           abType == o.abType && compute == o.compute && bias == o.bias;
  }
};

struct GemmKeyHash {
  size_t operator()(const GemmKey &k) const {
    size_t h = 0;
    for (int64_t v :
         {k.m, k.n, k.k, k.lda, k.ldb, k.ldc,
          int64_t(k.transA) | int64_t(k.transB) << 1 | int64_t(k.abType) << 2 |
              int64_t(k.compute) << 12 | int64_t(k.bias) << 20,
          int64_t(k.alignA) | int64_t(k.alignB) << 16 |
              int64_t(k.alignC) << 32})
      h = h * 0x9e3779b97f4a7c15ull + std::hash<int64_t>()(v);
    return h;
  }
};

/// cuBLASLt's descriptors and algorithm for one GemmKey.
struct GemmPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  cublasLtMatmulAlgo_t algo{};

  void destroy() {
    if (desc)
      cublasLtMatmulDescDestroy(desc);
    for (cublasLtMatrixLayout_t l : {first, second, out})
      if (l)
        cublasLtMatrixLayoutDestroy(l);
    desc = nullptr;
    first = second = out = nullptr;
  }
};

/// A shared block, or a device block that is not a plain cudaMallocAsync:
/// where it starts and what frees it.
struct Block {
  void *base;
  enum Kind { Host, Managed, Pool } kind;
};

constexpr size_t workspaceBytes = 32u << 20; // what NVIDIA suggests on Hopper
constexpr size_t cudaAlignment = 256;        // of cudaMalloc* results

void *hostAlloc(size_t bytes, size_t alignment) {
  alignment = std::max<size_t>(alignment, alignof(std::max_align_t));
  size_t size =
      (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, size);
}

void *alignUp(void *p, size_t alignment) {
  auto a = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<void *>((a + alignment - 1) / alignment * alignment);
}

class CudaDevice final : public Device {
public:
  ~CudaDevice() override = default; // shutdown() ran at exit, if selected
  const char *name() const override { return "cuda"; }
  void select(int localRank) override;
  std::string describe() const override;
  void *allocateShared(size_t bytes, size_t alignment) override;
  void freeShared(void *p) override;
  void *allocateDevice(size_t bytes, size_t alignment) override;
  void freeDevice(void *p) override;
  void synchronize() override;
  void copyToHost(void *dst, const void *src, size_t bytes) override;
  void copyFromHost(void *dst, const void *src, size_t bytes) override;
  bool hostAccessible(const void *p) const override;
  void allowTF32(bool allow) override;
  void prefetch(const void *p, size_t bytes) override;
  const char *convolutionLibrary() const override { return "cudnn"; }
  void conv2dForward(const Tensor4 &x, const Tensor4 &w, const Vector1 *bias,
                     const Tensor4 &y, const ConvGeometry &g) override;
  void conv2dBackwardData(const Tensor4 &dy, const Tensor4 &w,
                          const Tensor4 &dx, const ConvGeometry &g) override;
  void conv2dBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                             const Tensor4 &dw, const ConvGeometry &g) override;
  void copyStrided(float *dst, int64_t dstStride, const float *src,
                   int64_t srcStride, int64_t n) override;
  void sgemm(const Matrix &a, const Matrix &b, const Matrix &c, bool transA,
             bool transB, float alpha, float beta) override;
  void gemmHalf(HalfType type, const HalfMatrix &a, const HalfMatrix &b,
                const Matrix &c, bool transA, bool transB, float alpha,
                float beta) override;
  void sgemmBias(const Matrix &a, const Matrix &b, const Vector1 &bias,
                 const Matrix &c, bool transA, bool transB,
                 float alpha) override;
  void gemmHalfBias(HalfType type, const HalfMatrix &a, const HalfMatrix &b,
                    const Vector1 &bias, const Matrix &c, bool transA,
                    bool transB, float alpha) override;

  /// Everything select() made, in reverse; at exit, while CUDA is still up.
  void shutdown();

private:
  /// The plan of `key`; for a bias epilogue cuBLASLt has no algorithm for,
  /// a plan without `desc` (the caller falls back to the unfused calls).
  GemmPlan &plan(const GemmKey &key);
  /// The matmul of sgemm and gemmHalf once the shapes are checked: A and B
  /// of `abType` (`elemBytes` each) at `pa`, `pb`; `op` names the call.
  /// With `bias` (16-byte aligned, C's columns long; k > 0) D = alpha
  /// op(A) op(B) + bias through CUBLASLT_EPILOGUE_BIAS (beta 0): false
  /// when cuBLASLt cannot fuse it, and nothing was issued.
  bool matmul(const char *op, cudaDataType_t abType, uint32_t elemBytes,
              const void *pa, const void *pb, float *pc, GemmDims dims,
              int64_t lda, int64_t ldb, int64_t ldc, bool transA, bool transB,
              float alpha, float beta, const float *bias = nullptr);
  /// sgemmBias and gemmHalfBias through CUBLASLT_EPILOGUE_BIAS: false,
  /// with nothing issued, when it cannot be fused (a bias that is not
  /// contiguous and 16-byte aligned or not C's columns long, an empty
  /// product, no cuBLASLt algorithm): the caller runs the unfused default.
  template <typename T>
  bool matmulBias(const char *op, cudaDataType_t abType,
                  const StridedMemref<T, 2> &a, const StridedMemref<T, 2> &b,
                  const Vector1 &bias, const Matrix &c, GemmDims dims,
                  bool transA, bool transB, float alpha);

  std::string gpuName_;
  int major_ = 0, minor_ = 0;
  bool tf32_ = false; // --precision=tf32
  /// prefetch()'s transfers, beside the compute stream's work, and the
  /// event that orders the compute stream's later work after them.
  cudaStream_t copyStream_ = nullptr;
  cudaEvent_t copied_ = nullptr;
  size_t totalMemory_ = 0;
  cublasLtHandle_t lt_ = nullptr;
  void *workspace_ = nullptr;
  std::mutex gemmMutex_;
  std::unordered_map<GemmKey, GemmPlan, GemmKeyHash> plans_;
  std::unique_ptr<NcclCommunicator> nccl_;
  /// The ABI's convolutions, on the compute stream (made at the first).
  std::unique_ptr<CudnnConvolutions> cudnn_;
  CudnnConvolutions &convolutions();
  Communicator *previousCommunicator_ = nullptr;
  std::mutex blockMutex_;
  std::unordered_map<void *, Block> shared_; // every shared block
  std::unordered_map<void *, Block> device_; // the unusual device blocks
};

/// The compute stream's timeline for --trace: timing events recorded on it,
/// reused from step to step.
class CudaClock final : public trace::DeviceClock {
public:
  ~CudaClock() override { release(); }
  int mark() override {
    if (used_ == events_.size()) {
      cudaEvent_t e = nullptr;
      cuda::check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
    cuda::check(cudaEventRecord(events_[used_], cuda::computeStream()),
                "cudaEventRecord");
    return static_cast<int>(used_++);
  }
  std::vector<double> resolve() override {
    std::vector<double> ms;
    if (used_ == 0)
      return ms;
    cuda::check(cudaEventSynchronize(events_[used_ - 1]),
                "cudaEventSynchronize");
    for (size_t i = 0; i < used_; ++i) {
      float t = 0;
      cuda::check(cudaEventElapsedTime(&t, events_[0], events_[i]),
                  "cudaEventElapsedTime");
      ms.push_back(t);
    }
    used_ = 0;
    return ms;
  }
  void release() noexcept {
    for (cudaEvent_t e : events_)
      (void)cudaEventDestroy(e);
    events_.clear();
    used_ = 0;
  }

private:
  std::vector<cudaEvent_t> events_;
  size_t used_ = 0;
};

CudaClock &theClock() {
  static CudaClock c;
  return c;
}

CudaDevice &theDevice() {
  static CudaDevice d;
  return d;
}

void shutdownAtExit() { theDevice().shutdown(); }

void CudaDevice::select(int localRank) {
  if (cuda::deviceSelected())
    return;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count == 0)
    err = cudaErrorNoDevice;
  if (err != cudaSuccess)
    throw Error(std::string("no CUDA device: ") + cudaGetErrorString(err) +
                " (this executable was compiled with --target=cuda)");
  // Local rank i takes GPU i; modulo the count so that a launcher which
  // shows each rank only its own GPU (CUDA_VISIBLE_DEVICES) works too. Two
  // ranks of one communicator on one GPU are not supported by NCCL, which
  // says so in ncclCommInitRank.
  int device = std::max(localRank, 0) % count;
  cuda::check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp props{};
  cuda::check(cudaGetDeviceProperties(&props, device),
              "cudaGetDeviceProperties");
  gpuName_ = props.name;
  major_ = props.major;
  minor_ = props.minor;
  totalMemory_ = props.totalGlobalMem;

  cuda::State &s = cuda::state();
  cuda::check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags");
  // --trace times the device's work with events on this stream.
  trace::setDeviceClock(&theClock());
  // The pool keeps freed memory for the next cudaMallocAsync instead of
  // returning it at every synchronization.
  cudaMemPool_t pool;
  cuda::check(cudaDeviceGetDefaultMemPool(&pool, device),
              "cudaDeviceGetDefaultMemPool");
  uint64_t threshold = UINT64_MAX;
  cuda::check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                      &threshold),
              "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
  checkLt(cublasLtCreate(&lt_), "cublasLtCreate");
  cuda::check(cudaMalloc(&workspace_, workspaceBytes), "cudaMalloc");
  cuda::check(cudaStreamCreateWithFlags(&copyStream_, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags");
  cuda::check(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming),
              "cudaEventCreateWithFlags");
  s.device = device;
  s.selected = true;
  std::atexit(shutdownAtExit); // after cudart's own: runs before it

  // The collectives on the device buffers, at any world size (NCCL with one
  // rank is legal, and keeps the data where it is).
  nccl_ = std::make_unique<NcclCommunicator>(s.stream);
  previousCommunicator_ = setCommunicator(nccl_.get());
}

std::string CudaDevice::describe() const {
  if (!cuda::deviceSelected())
    return "cuda (no device selected)";
  int runtime = 0, driver = 0, nccl = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  ncclGetVersion(&nccl);
  auto cudaVersion = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  double gib = static_cast<double>(totalMemory_) / (1ull << 30);
  return "cuda:" + std::to_string(cuda::deviceOrdinal()) + " " + gpuName_ +
         " (sm_" + std::to_string(major_) + std::to_string(minor_) + ", " +
         std::to_string(static_cast<long long>(gib + 0.5)) +
         " GiB), CUDA runtime " + cudaVersion(runtime) + ", driver " +
         cudaVersion(driver) + ", NCCL " + std::to_string(nccl / 10000) + "." +
         std::to_string(nccl % 10000 / 100) + "." + std::to_string(nccl % 100);
}

void *CudaDevice::allocateShared(size_t bytes, size_t alignment) {
  if (!cuda::deviceSelected()) {
    // Before select() (unit tests): host memory.
    void *p = hostAlloc(bytes, alignment);
    if (!p)
      throw std::bad_alloc();
    std::memset(p, 0, std::max<size_t>(bytes, 1));
    std::lock_guard<std::mutex> lock(blockMutex_);
    shared_[p] = {p, Block::Host};
    return p;
  }
  size_t extra = alignment > cudaAlignment ? alignment : 0;
  size_t size = std::max<size_t>(bytes, 1) + extra;
  void *base = nullptr;
  cudaError_t err = cudaMallocManaged(&base, size, cudaMemAttachGlobal);
  if (err == cudaErrorMemoryAllocation)
    throw std::bad_alloc();
  cuda::check(err, "cudaMallocManaged");
  std::memset(base, 0, size);
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = cuda::deviceOrdinal();
  // Only a hint: where it is not supported, the memory still works.
  if (cudaMemAdvise(base, size, cudaMemAdviseSetPreferredLocation, gpu) !=
      cudaSuccess)
    cudaGetLastError();
  void *p = extra ? alignUp(base, alignment) : base;
  std::lock_guard<std::mutex> lock(blockMutex_);
  shared_[p] = {base, Block::Managed};
  return p;
}

void CudaDevice::freeShared(void *p) {
  if (!p)
    return;
  Block block{p, Block::Host};
  {
    std::lock_guard<std::mutex> lock(blockMutex_);
    auto it = shared_.find(p);
    // Not ours: the host device's (aligned_alloc), from before setDevice().
    if (it != shared_.end()) {
      block = it->second;
      shared_.erase(it);
    }
  }
  if (block.kind == Block::Host)
    std::free(block.base);
  else if (cuda::deviceSelected()) // after shutdown: freed with the process
    cudaFree(block.base);
}

void *CudaDevice::allocateDevice(size_t bytes, size_t alignment) {
  if (!cuda::deviceSelected()) {
    void *p = hostAlloc(bytes, alignment);
    if (p) {
      std::lock_guard<std::mutex> lock(blockMutex_);
      device_[p] = {p, Block::Host};
    }
    return p;
  }
  size_t extra = alignment > cudaAlignment ? alignment : 0;
  void *base = nullptr;
  cudaError_t err = cudaMallocAsync(&base, std::max<size_t>(bytes, 1) + extra,
                                    cuda::computeStream());
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  cuda::check(err, "cudaMallocAsync");
  if (!extra)
    return base;
  void *p = alignUp(base, alignment);
  std::lock_guard<std::mutex> lock(blockMutex_);
  device_[p] = {base, Block::Pool};
  return p;
}

void CudaDevice::freeDevice(void *p) {
  if (!p)
    return;
  Block block{p, Block::Pool};
  {
    std::lock_guard<std::mutex> lock(blockMutex_);
    if (!device_.empty()) {
      auto it = device_.find(p);
      if (it != device_.end()) {
        block = it->second;
        device_.erase(it);
      }
    }
  }
  if (block.kind == Block::Host)
    std::free(block.base);
  else if (cuda::deviceSelected())
    cuda::check(cudaFreeAsync(block.base, cuda::computeStream()),
                "cudaFreeAsync");
}

void CudaDevice::synchronize() {
  std::string pending = cuda::takeAsyncError();
  if (pending.empty() && cuda::deviceSelected()) {
    cuda::check(cudaStreamSynchronize(cuda::computeStream()),
                "cudaStreamSynchronize");
    pending = cuda::takeAsyncError();
  }
  if (!pending.empty())
    throw Error(pending);
}

/// Either direction (cudaMemcpyDefault).
void CudaDevice::copyToHost(void *dst, const void *src, size_t bytes) {
  if (!cuda::deviceSelected()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  // Ordered after the kernels that wrote `src`, then waited for.
  cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                              cuda::computeStream()),
              "cudaMemcpyAsync");
  synchronize();
}

void CudaDevice::copyFromHost(void *dst, const void *src, size_t bytes) {
  // The same ordered, waited-for copy: after the kernels issued so far, and
  // done when it returns (so `src` may be reused).
  copyToHost(dst, src, bytes);
}

CudnnConvolutions &CudaDevice::convolutions() {
  if (!cuda::deviceSelected())
    throw std::logic_error("a convolution on the CUDA device before select()");
  if (!cudnn_)
    cudnn_ = std::make_unique<CudnnConvolutions>(cuda::computeStream(), tf32_);
  return *cudnn_;
}

namespace {
/// The contiguous NCHW/OIHW data of an ABI convolution operand, and its
/// dims; std::invalid_argument for a strided one (the ABI passes buffers
/// the compiler allocated contiguous).
const float *convData(const Tensor4 &t, int64_t dims[4], const char *what) {
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    dims[i] = t.sizes[i];
    if (t.sizes[i] > 1 && t.strides[i] != stride)
      throw std::invalid_argument(std::string("cuDNN convolution: ") + what +
                                  " is not contiguous NCHW");
    stride *= t.sizes[i];
  }
  return t.aligned + t.offset;
}

} // namespace

void CudaDevice::conv2dForward(const Tensor4 &x, const Tensor4 &w,
                               const Vector1 *bias, const Tensor4 &y,
                               const ConvGeometry &g) {
  int64_t xd[4], wd[4], yd[4];
  const float *px = convData(x, xd, "x"), *pw = convData(w, wd, "w");
  auto *py = const_cast<float *>(convData(y, yd, "y"));
  const float *pb = bias ? bias->aligned + bias->offset : nullptr;
  if (bias && bias->sizes[0] > 1 && bias->strides[0] != 1)
    throw std::invalid_argument("cuDNN convolution: the bias is strided");
  convolutions().forward(px, xd, pw, wd, pb, py, yd, g);
}

void CudaDevice::conv2dBackwardData(const Tensor4 &dy, const Tensor4 &w,
                                    const Tensor4 &dx, const ConvGeometry &g) {
  int64_t dyd[4], wd[4], dxd[4];
  const float *pdy = convData(dy, dyd, "dy"), *pw = convData(w, wd, "w");
  auto *pdx = const_cast<float *>(convData(dx, dxd, "dx"));
  convolutions().backwardData(pdy, dyd, pw, wd, pdx, dxd, g);
}

void CudaDevice::conv2dBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                                       const Tensor4 &dw,
                                       const ConvGeometry &g) {
  int64_t dyd[4], xd[4], dwd[4];
  const float *pdy = convData(dy, dyd, "dy"), *px = convData(x, xd, "x");
  auto *pdw = const_cast<float *>(convData(dw, dwd, "dw"));
  convolutions().backwardWeights(pdy, dyd, px, xd, pdw, dwd, g);
}

void CudaDevice::allowTF32(bool allow) {
  if (allow == tf32_)
    return;
  tf32_ = allow;
  // The plans made so far were chosen under the other setting.
  cudnn_.reset();
}

void CudaDevice::prefetch(const void *p, size_t bytes) {
  if (!cuda::deviceSelected() || bytes == 0)
    return;
  // Views into a block too (a batch's rows): CUDA knows the allocation.
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess ||
      a.type != cudaMemoryTypeManaged) {
    (void)cudaGetLastError();
    return;
  }
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = cuda::deviceOrdinal();
  // On the copy stream: the next batch (read while the step runs) moves
  // while the compute stream still works on this one; what the compute
  // stream is given next waits for it. Only a hint, as the preferred
  // location: a failed prefetch costs page faults, not correctness.
  if (cudaMemPrefetchAsync(p, bytes, gpu, 0, copyStream_) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  cuda::check(cudaEventRecord(copied_, copyStream_), "cudaEventRecord");
  cuda::check(cudaStreamWaitEvent(cuda::computeStream(), copied_, 0),
              "cudaStreamWaitEvent");
}

bool CudaDevice::hostAccessible(const void *p) const {
  if (!cuda::deviceSelected())
    return true;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError(); // a plain host pointer on old drivers
    return true;
  }
  return a.type != cudaMemoryTypeDevice;
}

void CudaDevice::copyStrided(float *dst, int64_t dstStride, const float *src,
                             int64_t srcStride, int64_t n) {
  if (n <= 0)
    return;
  if (!cuda::deviceSelected()) {
    for (int64_t i = 0; i < n; ++i)
      dst[i * dstStride] = src[i * srcStride];
    return;
  }
  // n rows of one float each, the pitches the strides.
  cuda::check(cudaMemcpy2DAsync(dst, dstStride * sizeof(float), src,
                                srcStride * sizeof(float), sizeof(float), n,
                                cudaMemcpyDefault, cuda::computeStream()),
              "cudaMemcpy2DAsync");
}

GemmPlan &CudaDevice::plan(const GemmKey &key) {
  auto it = plans_.find(key);
  if (it != plans_.end())
    return it->second;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and a
  // row-major r x c matrix with row stride ld is a column-major c x r one
  // with leading dimension ld: B's buffer is the first operand (n x k after
  // its op), A's the second (k x m), C^T is n x m.
  GemmPlan p;
  try {
    checkLt(cublasLtMatmulDescCreate(&p.desc, key.compute, CUDA_R_32F),
            "cublasLtMatmulDescCreate");
    cublasOperation_t opFirst = key.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t opSecond = key.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    checkLt(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                           &opFirst, sizeof opFirst),
            "cublasLtMatmulDescSetAttribute(TRANSA)");
    checkLt(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                           &opSecond, sizeof opSecond),
            "cublasLtMatmulDescSetAttribute(TRANSB)");
    if (key.bias) {
      // cuBLASLt's bias is per row of its column-major D, which is a
      // column of our row-major C. f32, as D (the default bias type).
      cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      checkLt(cublasLtMatmulDescSetAttribute(p.desc,
                                             CUBLASLT_MATMUL_DESC_EPILOGUE,
                                             &epilogue, sizeof epilogue),
              "cublasLtMatmulDescSetAttribute(EPILOGUE)");
    }
    // Stored shapes (column-major rows x cols) of the two buffers.
    uint64_t firstRows = key.transB ? key.k : key.n;
    uint64_t firstCols = key.transB ? key.n : key.k;
    uint64_t secondRows = key.transA ? key.m : key.k;
    uint64_t secondCols = key.transA ? key.k : key.m;
    // A and B of abType, C and D float: cuBLASLt's mixed-precision case
    // when abType is 16-bit (the scale and compute types stay float).
    checkLt(cublasLtMatrixLayoutCreate(&p.first, key.abType, firstRows,
                                       firstCols, key.ldb),
            "cublasLtMatrixLayoutCreate");
    checkLt(cublasLtMatrixLayoutCreate(&p.second, key.abType, secondRows,
                                       secondCols, key.lda),
            "cublasLtMatrixLayoutCreate");
    checkLt(
        cublasLtMatrixLayoutCreate(&p.out, CUDA_R_32F, key.n, key.m, key.ldc),
        "cublasLtMatrixLayoutCreate");

    cublasLtMatmulPreference_t pref = nullptr;
    checkLt(cublasLtMatmulPreferenceCreate(&pref),
            "cublasLtMatmulPreferenceCreate");
    std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                    cublasStatus_t (*)(cublasLtMatmulPreference_t)>
        prefOwner(pref, cublasLtMatmulPreferenceDestroy);
    uint64_t workspace = workspaceBytes;
    checkLt(cublasLtMatmulPreferenceSetAttribute(
                pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                sizeof workspace),
            "cublasLtMatmulPreferenceSetAttribute");
    // The heuristic assumes 256-byte aligned pointers unless told.
    std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.alignB},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.alignA},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.alignC},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.alignC}};
    for (auto &[attr, value] : aligns)
      checkLt(cublasLtMatmulPreferenceSetAttribute(pref, attr, &value,
                                                   sizeof value),
              "cublasLtMatmulPreferenceSetAttribute");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    checkLt(cublasLtMatmulAlgoGetHeuristic(lt_, p.desc, p.first, p.second,
                                           p.out, p.out, pref, 1, &result,
                                           &found),
            "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0 && key.bias) { // the caller adds the bias itself
      p.destroy();
      return plans_.emplace(key, p).first->second;
    }
    if (found == 0)
      throw Error(std::string("cuBLASLt has no algorithm for ") +
                  (key.abType == CUDA_R_32F    ? "sgemm"
                   : key.abType == CUDA_R_16BF ? gemmHalfName(HalfType::BF16)
                                               : gemmHalfName(HalfType::F16)) +
                  " " + std::to_string(key.m) + "x" + std::to_string(key.n) +
                  "x" + std::to_string(key.k));
    p.algo = result.algo;
  } catch (...) {
    p.destroy();
    throw;
  }
  return plans_.emplace(key, p).first->second;
}

void CudaDevice::sgemm(const Matrix &a, const Matrix &b, const Matrix &c,
                       bool transA, bool transB, float alpha, float beta) {
  GemmDims dims = gemmDims(a, b, c, transA, transB);
  if (dims.m == 0 || dims.n == 0)
    return;
  int64_t lda = leadingDim(a, "A", "sgemm"), ldb = leadingDim(b, "B", "sgemm"),
          ldc = leadingDim(c, "C", "sgemm");
  matmul("sgemm", CUDA_R_32F, sizeof(float), a.aligned + a.offset,
         b.aligned + b.offset, c.aligned + c.offset, dims, lda, ldb, ldc,
         transA, transB, alpha, beta);
}

void CudaDevice::gemmHalf(HalfType type, const HalfMatrix &a,
                          const HalfMatrix &b, const Matrix &c, bool transA,
                          bool transB, float alpha, float beta) {
  GemmDims dims = gemmDims(a, b, c, transA, transB, type);
  if (dims.m == 0 || dims.n == 0)
    return;
  const char *op = gemmHalfName(type);
  int64_t lda = leadingDim(a, "A", op), ldb = leadingDim(b, "B", op),
          ldc = leadingDim(c, "C", op);
  matmul(op, type == HalfType::BF16 ? CUDA_R_16BF : CUDA_R_16F,
         sizeof(uint16_t), a.aligned + a.offset, b.aligned + b.offset,
         c.aligned + c.offset, dims, lda, ldb, ldc, transA, transB, alpha,
         beta);
}

template <typename T>
bool CudaDevice::matmulBias(const char *op, cudaDataType_t abType,
                            const StridedMemref<T, 2> &a,
                            const StridedMemref<T, 2> &b, const Vector1 &bias,
                            const Matrix &c, GemmDims dims, bool transA,
                            bool transB, float alpha) {
  const float *p = bias.aligned + bias.offset;
  bool contiguous = bias.sizes[0] <= 1 || bias.strides[0] == 1;
  if (!contiguous || reinterpret_cast<uintptr_t>(p) % 16 != 0 ||
      bias.sizes[0] != dims.n || dims.m == 0 || dims.n == 0 || dims.k == 0)
    return false;
  int64_t lda = leadingDim(a, "A", op), ldb = leadingDim(b, "B", op),
          ldc = leadingDim(c, "C", op);
  return matmul(op, abType, sizeof(T), a.aligned + a.offset,
                b.aligned + b.offset, c.aligned + c.offset, dims, lda, ldb, ldc,
                transA, transB, alpha, 0.0f, p);
}

void CudaDevice::sgemmBias(const Matrix &a, const Matrix &b,
                           const Vector1 &bias, const Matrix &c, bool transA,
                           bool transB, float alpha) {
  GemmDims dims = gemmDims(a, b, c, transA, transB);
  // Unfused: the default (which throws on a bias that does not fit).
  if (!matmulBias("sgemm_bias", CUDA_R_32F, a, b, bias, c, dims, transA, transB,
                  alpha))
    Device::sgemmBias(a, b, bias, c, transA, transB, alpha);
}

void CudaDevice::gemmHalfBias(HalfType type, const HalfMatrix &a,
                              const HalfMatrix &b, const Vector1 &bias,
                              const Matrix &c, bool transA, bool transB,
                              float alpha) {
  GemmDims dims = gemmDims(a, b, c, transA, transB, type);
  if (!matmulBias(gemmHalfBiasName(type),
                  type == HalfType::BF16 ? CUDA_R_16BF : CUDA_R_16F, a, b, bias,
                  c, dims, transA, transB, alpha))
    Device::gemmHalfBias(type, a, b, bias, c, transA, transB, alpha);
}

bool CudaDevice::matmul(const char *op, cudaDataType_t abType,
                        uint32_t elemBytes, const void *pa, const void *pb,
                        float *pc, GemmDims dims, int64_t lda, int64_t ldb,
                        int64_t ldc, bool transA, bool transB, float alpha,
                        float beta, const float *bias) {
  auto [m, n, k] = dims;
  if (!cuda::deviceSelected())
    throw std::logic_error(std::string(op) +
                           " on the CUDA device before select()");
  cudaStream_t stream = cuda::computeStream();
  if (k == 0) { // C = beta * C; beta = 0 overwrites NaN too
    if (beta == 0.0f)
      cuda::check(cudaMemset2DAsync(pc, ldc * sizeof(float), 0,
                                    n * sizeof(float), m, stream),
                  "cudaMemset2DAsync");
    else if (beta != 1.0f)
      cuda::scaleOnStream(pc, m, n, ldc, beta, /*divide=*/false);
    return true;
  }
  // TF32 only rounds f32 inputs; 16-bit ones are exact in f32 compute.
  cublasComputeType_t compute = tf32_ && abType == CUDA_R_32F
                                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                    : CUBLAS_COMPUTE_32F;
  GemmKey key{m,      n, k, lda, ldb,    ldc,     transA,
              transB, 0, 0, 0,   abType, compute, bias != nullptr};
  key.alignA = alignmentOf(pa, elemBytes);
  key.alignB = alignmentOf(pb, elemBytes);
  key.alignC = alignmentOf(pc, sizeof(float));
  std::lock_guard<std::mutex> lock(gemmMutex_);
  GemmPlan &p = plan(key);
  if (!p.desc)
    return false; // no algorithm with this bias epilogue
  if (bias)
    checkLt(cublasLtMatmulDescSetAttribute(
                p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
            "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  checkLt(cublasLtMatmul(lt_, p.desc, &alpha, pb, p.first, pa, p.second, &beta,
                         pc, p.out, pc, p.out, &p.algo, workspace_,
                         workspaceBytes, stream),
          "cublasLtMatmul");
  return true;
}

void CudaDevice::shutdown() {
  cuda::State &s = cuda::state();
  if (!s.selected)
    return;
  cudaError_t err = cudaStreamSynchronize(s.stream);
  std::string pending = cuda::takeAsyncError();
  if (pending.empty() && err != cudaSuccess)
    pending = std::string("CUDA cudaStreamSynchronize failed: ") +
              cudaGetErrorString(err);
  // Never lost: an error compiled code's launches left behind.
  if (!pending.empty())
    std::fprintf(stderr, "error: %s\n", pending.c_str());
  if (nccl_) {
    setCommunicator(previousCommunicator_);
    try {
      nccl_->shutdown();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "warning: %s\n", e.what());
    }
    nccl_.reset();
  }
  cudnn_.reset();
  trace::setDeviceClock(nullptr);
  theClock().release();
  cuda::unloadModules();
  cuda::unloadKernels();
  for (auto &[key, p] : plans_)
    p.destroy();
  plans_.clear();
  if (lt_)
    cublasLtDestroy(lt_);
  lt_ = nullptr;
  if (workspace_)
    cudaFree(workspace_);
  workspace_ = nullptr;
  if (copied_)
    cudaEventDestroy(copied_);
  copied_ = nullptr;
  if (copyStream_)
    cudaStreamDestroy(copyStream_);
  copyStream_ = nullptr;
  cudaStreamDestroy(s.stream);
  s.stream = nullptr;
  s.selected = false;
}
} // namespace

Device &cudaDevice() { return theDevice(); }

} // namespace autodist::rt
