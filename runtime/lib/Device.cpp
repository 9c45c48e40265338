//===- Device.cpp - The host device and the process's device --------------===//
//
// The host: CPU executables' compiled code runs on the calling thread, over
// ordinary heap memory, with OpenBLAS behind sgemm (and the 16-bit gemms,
// widened to float32) and oneDNN behind the convolutions, where the build
// has it. Nothing is asynchronous, so synchronize() has nothing
// to wait for.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Device.h"

#include "autodist/runtime/Error.h"
#include "autodist/runtime/Sgemm.h"
#ifdef AUTODIST_HAVE_ONEDNN
#include "autodist/runtime/DnnlConv.h"
#endif

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace autodist::rt {
namespace {

void *alignedZeroed(size_t bytes, size_t alignment, bool zero) {
  // aligned_alloc needs a multiple of the alignment; never zero bytes, so
  // that every allocation has a unique address.
  size_t size =
      bytes ? (bytes + alignment - 1) / alignment * alignment : alignment;
  void *p = std::aligned_alloc(alignment, size);
  if (p && zero)
    std::memset(p, 0, size);
  return p;
}

class HostDevice final : public Device {
public:
  const char *name() const override { return "cpu"; }
  void select(int) override {}
  std::string describe() const override { return "cpu"; }
  void *allocateShared(size_t bytes, size_t alignment) override {
    void *p = alignedZeroed(bytes, alignment, /*zero=*/true);
    if (!p)
      throw std::bad_alloc();
    return p;
  }
  void freeShared(void *p) override { std::free(p); }
  void *allocateDevice(size_t bytes, size_t alignment) override {
    if (alignment == 0)
      return std::malloc(bytes ? bytes : 1);
    return alignedZeroed(bytes, alignment, /*zero=*/false);
  }
  void freeDevice(void *p) override { std::free(p); }
  void synchronize() override {}
  void copyToHost(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copyFromHost(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  bool hostAccessible(const void *) const override { return true; }
  void prefetch(const void *, size_t) override {}
  void copyStrided(float *dst, int64_t dstStride, const float *src,
                   int64_t srcStride, int64_t n) override {
    for (int64_t i = 0; i < n; ++i)
      dst[i * dstStride] = src[i * srcStride];
  }
  void sgemm(const StridedMemref<float, 2> &a, const StridedMemref<float, 2> &b,
             const StridedMemref<float, 2> &c, bool transA, bool transB,
             float alpha, float beta) override {
    rt::sgemm(a, b, c, transA, transB, alpha, beta);
  }
#ifdef AUTODIST_HAVE_ONEDNN
  const char *convolutionLibrary() const override { return "onednn"; }
  void conv2dForward(const Tensor4 &x, const Tensor4 &w, const Vector1 *bias,
                     const Tensor4 &y, const ConvGeometry &g) override {
    dnnlConvForward(x, w, bias, y, g);
  }
  void conv2dBackwardData(const Tensor4 &dy, const Tensor4 &w,
                          const Tensor4 &dx, const ConvGeometry &g) override {
    dnnlConvBackwardData(dy, w, dx, g);
  }
  void conv2dBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                             const Tensor4 &dw,
                             const ConvGeometry &g) override {
    dnnlConvBackwardWeights(dy, x, dw, g);
  }
#else
  const char *convolutionLibrary() const override { return nullptr; }
  void conv2dForward(const Tensor4 &, const Tensor4 &, const Vector1 *,
                     const Tensor4 &, const ConvGeometry &) override {
    noLibrary();
  }
  void conv2dBackwardData(const Tensor4 &, const Tensor4 &, const Tensor4 &,
                          const ConvGeometry &) override {
    noLibrary();
  }
  void conv2dBackwardWeights(const Tensor4 &, const Tensor4 &, const Tensor4 &,
                             const ConvGeometry &) override {
    noLibrary();
  }

private:
  [[noreturn]] static void noLibrary() {
    throw Error("this runtime was built without oneDNN: it has no library "
                "convolutions (compile with --conv-backend=im2col)");
  }

public:
#endif
  void gemmHalf(HalfType type, const StridedMemref<uint16_t, 2> &a,
                const StridedMemref<uint16_t, 2> &b,
                const StridedMemref<float, 2> &c, bool transA, bool transB,
                float alpha, float beta) override {
    rt::gemmHalf(type, a, b, c, transA, transB, alpha, beta);
  }
};

HostDevice &hostDevice() {
  static HostDevice host;
  return host;
}

Device *&current() {
  static Device *d = &hostDevice();
  return d;
}

} // namespace

void Device::allowTF32(bool allow) {
  if (allow)
    throw Error(std::string("this model was compiled with --precision=tf32, "
                            "which needs a device with TF32 tensor cores; "
                            "the ") +
                name() + " device has none (compile it with --target=cuda)");
}

void Device::broadcastBiasRows(const StridedMemref<float, 1> &bias,
                               const StridedMemref<float, 2> &c,
                               const char *op) {
  if (bias.sizes[0] != c.sizes[1])
    throw std::invalid_argument(
        std::string(op) + ": bias has " + std::to_string(bias.sizes[0]) +
        " elements, C has " + std::to_string(c.sizes[1]) + " columns");
  for (int64_t i = 0; i < c.sizes[0]; ++i)
    copyStrided(c.aligned + c.offset + i * c.strides[0], c.strides[1],
                bias.aligned + bias.offset, bias.strides[0], c.sizes[1]);
}

void Device::sgemmBias(const StridedMemref<float, 2> &a,
                       const StridedMemref<float, 2> &b,
                       const StridedMemref<float, 1> &bias,
                       const StridedMemref<float, 2> &c, bool transA,
                       bool transB, float alpha) {
  (void)gemmDims(a, b, c, transA, transB); // before C is written
  broadcastBiasRows(bias, c, "sgemm_bias");
  sgemm(a, b, c, transA, transB, alpha, 1.0f);
}

void Device::gemmHalfBias(HalfType type, const StridedMemref<uint16_t, 2> &a,
                          const StridedMemref<uint16_t, 2> &b,
                          const StridedMemref<float, 1> &bias,
                          const StridedMemref<float, 2> &c, bool transA,
                          bool transB, float alpha) {
  (void)gemmDims(a, b, c, transA, transB, type);
  broadcastBiasRows(bias, c, gemmHalfBiasName(type));
  gemmHalf(type, a, b, c, transA, transB, alpha, 1.0f);
}

Device &device() { return *current(); }

Device *setDevice(Device *d) {
  Device *old = current();
  current() = d ? d : &hostDevice();
  return old;
}

} // namespace autodist::rt
