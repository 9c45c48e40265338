//===- CudnnConv.h - 2-D convolutions through cuDNN's graph API -*- C++ -*-===//
//
// Internal to runtime/cuda: the CUDA device's convolutions (forward with an
// optional bias, input gradient, weight gradient) of contiguous NCHW/OIHW
// f32 tensors, grouped or not, through cuDNN 9's backend (graph) API:
// tensor, convolution and operation descriptors, an operation graph, engine
// heuristics (mode A, then FALLBACK) and the first execution plan that
// finalizes.
//
// Plans are cached per problem: the operation, the shapes, the geometry, the
// group and the byte alignment (16, 8 or 4) of every pointer. A call whose
// problem was seen before builds nothing: it runs the cached plan with a
// variant pack (host-side; reused while the pointers stay the same) and the
// workspace, which is grown with cudaMallocAsync only when a plan needs more
// than any before it.
//
// Precision, no TF32 (unless the constructor allows it, --precision=tf32:
// then tensor-core engines are kept, and only _DOWN_CONVERT_INPUTS and
// _REDUCED_PRECISION_REDUCTION ones skipped): data and compute type are f32,
// and every engine config
// whose engine carries CUDNN_NUMERICAL_NOTE_TENSOR_CORE (for f32 data, TF32
// tensor cores), _DOWN_CONVERT_INPUTS or _REDUCED_PRECISION_REDUCTION is
// skipped before its plan is built (the backend has no math-mode attribute;
// the notes are how it tells). Results match an f32 reference up to the
// order of the sums, as sgemm's CUBLAS_COMPUTE_32F does. Of the rest,
// deterministic engines are tried before CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC
// ones (reproducible gradients), each in the heuristics' order.
//
// Bias: fused into the forward graph (convolution into a virtual tensor,
// then a pointwise ADD of bias [1, M, 1, 1]) when cuDNN has a non-TF32
// engine for that graph; otherwise the cached plan is the plain convolution
// followed by cudnnAddTensor on the same handle and stream. Decided once per
// problem (fusedBiasPlans() counts the fused ones).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_CUDA_CUDNNCONV_H
#define AUTODIST_RUNTIME_CUDA_CUDNNCONV_H

#include "autodist/runtime/Convolution.h"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

struct cudnnContext; // cudnnHandle_t, without cudnn.h for our includers

namespace autodist::rt {

/// Strides [h, w], pads [top, left, bottom, right], dilations [h, w]
/// (1 = dense): the ABI's.
using CudnnConvGeometry = ConvGeometry;

/// The convolutions of one stream. Dims are [N, C, H, W] for x/dx,
/// [M, C / group, kH, kW] for w/dw and [N, M, OH, OW] for y/dy, every tensor
/// fully contiguous in GPU-addressable memory, f32 and at least 4-byte
/// aligned; OH = (H + top + bottom - dilation * (kH - 1) - 1) / stride + 1
/// (and OW likewise) must be the given one. Outputs are overwritten. Calls
/// are asynchronous on the stream (the caller synchronizes before reading)
/// and throw std::invalid_argument, before any CUDA or cuDNN call, on
/// arguments that do not line up, and Error (one line naming the failing
/// call) on cuDNN or CUDA failures. Not thread-safe.
class CudnnConvolutions {
public:
  /// Touches neither CUDA nor cuDNN: the first convolution creates the cuDNN
  /// handle, on the current device, bound to `stream`. `allowTF32` keeps
  /// TF32 tensor-core engines for the f32 data.
  explicit CudnnConvolutions(cudaStream_t stream, bool allowTF32 = false);
  /// Frees the plans, the workspace (cudaFreeAsync on the stream) and the
  /// handle; call it while CUDA is still up.
  ~CudnnConvolutions();
  CudnnConvolutions(const CudnnConvolutions &) = delete;
  CudnnConvolutions &operator=(const CudnnConvolutions &) = delete;

  /// y = conv(x, w) (+ bias[M] broadcast over N, OH, OW when `bias` is not
  /// null). An empty batch (N = 0) does nothing.
  void forward(const float *x, const int64_t xDims[4], const float *w,
               const int64_t wDims[4], const float *bias, float *y,
               const int64_t yDims[4], const CudnnConvGeometry &g,
               int64_t group = 1);
  /// dx = the gradient of the forward's x from dy (its transposed
  /// convolution).
  void backwardData(const float *dy, const int64_t dyDims[4], const float *w,
                    const int64_t wDims[4], float *dx, const int64_t dxDims[4],
                    const CudnnConvGeometry &g, int64_t group = 1);
  /// dw = the gradient of the forward's w from dy and x (zero for N = 0).
  void backwardWeights(const float *dy, const int64_t dyDims[4], const float *x,
                       const int64_t xDims[4], float *dw,
                       const int64_t dwDims[4], const CudnnConvGeometry &g,
                       int64_t group = 1);

  /// Cached plans built so far (one per distinct problem).
  int64_t plansBuilt() const { return plansBuilt_; }
  /// Of those, forward plans with the bias add fused into the graph.
  int64_t fusedBiasPlans() const { return fusedBiasPlans_; }
  /// The workspace's size (the largest any plan has needed).
  size_t workspaceBytes() const { return workspaceBytes_; }

private:
  struct Problem; // one call's operation, shapes, geometry and pointers
  struct Plan;    // its cached graph, execution plan and variant pack
  /// op, shapes, geometry, group and the pointers' alignments.
  using Key = std::array<int64_t, 26>;

  cudnnContext *handle();
  Plan &plan(const Problem &p);
  /// The graph of `p` (with the bias add when `fuseBias`) and its plan;
  /// throws NoEngine (CudnnConv.cpp) when no engine config finalizes.
  static std::unique_ptr<Plan> build(cudnnContext *handle, const Problem &p,
                                     bool fuseBias, bool allowTF32);
  void run(Plan &plan, const void *const *pointers, size_t count);
  void ensureWorkspace(size_t bytes);

  cudaStream_t stream_;
  bool allowTF32_;
  cudnnContext *handle_ = nullptr;
  void *workspace_ = nullptr;
  size_t workspaceBytes_ = 0;
  std::map<Key, std::unique_ptr<Plan>> plans_;
  int64_t plansBuilt_ = 0;
  int64_t fusedBiasPlans_ = 0;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_CUDA_CUDNNCONV_H
