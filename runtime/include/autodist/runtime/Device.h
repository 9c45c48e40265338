//===- Device.h - Where compiled code runs and what memory it gets -*- C++
//-*-===//
//
// The target-specific part of the runtime behind one interface: the host
// (CPU executables; the default) or a CUDA GPU (runtime/cuda, linked into
// `--target=cuda` executables, whose main() installs it before runMain).
// The rest of the runtime (trainer, data, checkpoints, the ABI's collectives)
// is the same for both: it allocates the buffers it hands to compiled code
// with allocateShared(), compiled code's own temporaries come from
// allocateDevice(), and it calls synchronize() before reading what a call
// into compiled code wrote.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_DEVICE_H
#define AUTODIST_RUNTIME_DEVICE_H

#include "autodist/runtime/Convolution.h"
#include "autodist/runtime/HalfFloat.h"
#include "autodist/runtime/Memref.h"

#include <cstddef>
#include <string>

namespace autodist::rt {

class Communicator;

class Device {
public:
  virtual ~Device() = default;
  /// "cpu", "cuda": for messages.
  virtual const char *name() const = 0;
  /// Called once per process after MPI is up and before anything is
  /// allocated: chooses this rank's device (`localRank` among the ranks of
  /// its node). Throws Error, with a one-line message, if there is none.
  virtual void select(int localRank) = 0;
  /// A one-line description for the start-up report ("cpu", "cuda:0 NVIDIA
  /// H200 (sm_90) ..."), after select().
  virtual std::string describe() const = 0;

  /// Zeroed memory both the host and compiled code address: every Tensor
  /// (parameters, state, data, the step's scalars). Throws std::bad_alloc.
  virtual void *allocateShared(size_t bytes, size_t alignment) = 0;
  virtual void freeShared(void *p) = 0;
  /// Memory only compiled code touches (its temporaries, the step arena):
  /// null when there is not enough.
  virtual void *allocateDevice(size_t bytes, size_t alignment) = 0;
  virtual void freeDevice(void *p) = 0;
  /// Waits until everything issued by compiled code and the library calls
  /// is done, so that the host may read shared memory.
  virtual void synchronize() = 0;
  /// Copies `bytes` bytes of memory compiled code wrote (device memory
  /// included) to the host, once what compiled code issued before is done.
  virtual void copyToHost(void *dst, const void *src, size_t bytes) = 0;
  /// Copies `bytes` bytes of host memory to memory compiled code reads
  /// (device memory included), in order with what compiled code issued;
  /// `src` may be reused when it returns.
  virtual void copyFromHost(void *dst, const void *src, size_t bytes) = 0;
  /// Whether f32 matrix products and convolutions may round their inputs
  /// to TF32 (the manifest's float32_matmul; default no), set before the
  /// first. Throws Error where the device has no TF32 (the host).
  virtual void allowTF32(bool allow);

  /// Starts moving `bytes` bytes of allocateShared() memory at `p` to where
  /// compiled code reads them, ahead of the next call (a hint: the
  /// host's is a no-op, a GPU's an asynchronous prefetch of managed memory
  /// that may run beside the work issued before it and is ordered before
  /// the work issued after it).
  virtual void prefetch(const void *p, size_t bytes) = 0;
  /// Whether the host may read and write `p` (after synchronize()): host
  /// memory and allocateShared()'s, not a GPU's device memory.
  virtual bool hostAccessible(const void *p) const = 0;
  /// dst[i * dstStride] = src[i * srcStride] for i < n, in order with what
  /// compiled code issued (memory of allocateDevice() or allocateShared()).
  virtual void copyStrided(float *dst, int64_t dstStride, const float *src,
                           int64_t srcStride, int64_t n) = 0;

  /// The library behind the ABI's group-1 convolutions ("onednn",
  /// "cudnn"), or null when there is none (then conv2d*() throw Error).
  virtual const char *convolutionLibrary() const = 0;
  /// y = conv(x, w) (+ bias): NCHW x, OIHW w, contiguous (the ABI's
  /// conv2d_fwd). Throws std::invalid_argument on shapes that do not line up.
  virtual void conv2dForward(const Tensor4 &x, const Tensor4 &w,
                             const Vector1 *bias, const Tensor4 &y,
                             const ConvGeometry &g) = 0;
  /// dx from dy (the ABI's conv2d_bwd_data).
  virtual void conv2dBackwardData(const Tensor4 &dy, const Tensor4 &w,
                                  const Tensor4 &dx, const ConvGeometry &g) = 0;
  /// dw from dy and x (the ABI's conv2d_bwd_weights).
  virtual void conv2dBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                                     const Tensor4 &dw,
                                     const ConvGeometry &g) = 0;

  /// C = alpha * op(A) * op(B) + beta * C (the ABI's sgemm). Throws
  /// std::invalid_argument if the shapes do not line up.
  virtual void sgemm(const StridedMemref<float, 2> &a,
                     const StridedMemref<float, 2> &b,
                     const StridedMemref<float, 2> &c, bool transA, bool transB,
                     float alpha, float beta) = 0;
  /// C = alpha * op(A) * op(B) + beta * C with A and B of 16-bit floats of
  /// `type` (the ABI's gemm_bf16 and gemm_f16): their values exactly as
  /// float32, the products summed in float32, so the result is sgemm's on
  /// the widened matrices up to the order of the sums. Throws
  /// std::invalid_argument if the shapes do not line up.
  virtual void gemmHalf(HalfType type, const StridedMemref<uint16_t, 2> &a,
                        const StridedMemref<uint16_t, 2> &b,
                        const StridedMemref<float, 2> &c, bool transA,
                        bool transB, float alpha, float beta) = 0;

  /// C = alpha * op(A) * op(B) + bias, bias[j] added to every row of C (the
  /// ABI's sgemm_bias; a Gemm's bias, fused by the compiler for devices
  /// whose GEMM adds it in its epilogue). This default writes the bias into
  /// every row of C (copyStrided) and calls sgemm with beta = 1: the
  /// unfused program's arithmetic. Throws std::invalid_argument if the
  /// shapes do not line up.
  virtual void sgemmBias(const StridedMemref<float, 2> &a,
                         const StridedMemref<float, 2> &b,
                         const StridedMemref<float, 1> &bias,
                         const StridedMemref<float, 2> &c, bool transA,
                         bool transB, float alpha);
  /// The same with A and B of 16-bit floats (gemm_bias_bf16/f16), through
  /// gemmHalf.
  virtual void gemmHalfBias(HalfType type, const StridedMemref<uint16_t, 2> &a,
                            const StridedMemref<uint16_t, 2> &b,
                            const StridedMemref<float, 1> &bias,
                            const StridedMemref<float, 2> &c, bool transA,
                            bool transB, float alpha);

protected:
  /// The defaults' first half: checks bias against C's columns and writes
  /// it into every row of C.
  void broadcastBiasRows(const StridedMemref<float, 1> &bias,
                         const StridedMemref<float, 2> &c, const char *op);
};

/// The process's device: the host unless setDevice() installed another.
Device &device();
/// Installs `d` (before runMain; null restores the host). Returns the one it
/// replaces.
Device *setDevice(Device *d);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DEVICE_H
