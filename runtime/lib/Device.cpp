//===- Device.cpp - The host device and the process's device --------------===//
//
// The host: CPU executables' compiled code runs on the calling thread, over
// ordinary heap memory, with OpenBLAS behind sgemm (and the 16-bit gemms,
// widened to float32). Nothing is asynchronous, so synchronize() has nothing
// to wait for.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Device.h"

#include "autodist/runtime/Sgemm.h"

#include <cstdlib>
#include <cstring>
#include <new>

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

Device &device() { return *current(); }

Device *setDevice(Device *d) {
  Device *old = current();
  current() = d ? d : &hostDevice();
  return old;
}

} // namespace autodist::rt
