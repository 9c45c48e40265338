//===- Kernels.cpp - The CUDA runtime's own kernels -----------------------===//
//
// The few kernels the runtime itself needs: the mean of an all-reduce
// started as a sum (NcclCommunicator::wait), C = beta * C of an sgemm with
// k = 0, and the 16/32-bit fills behind mgpuMemset16/32 (the runtime API has
// byte memsets only). Hand-written PTX for sm_70 and later, JIT-compiled by
// the driver once, on first use, after select(): no nvcc step in the build,
// and it loads on any GPU the driver supports.
//
//===----------------------------------------------------------------------===//

#include "CudaContext.h"

#include <mutex>
#include <stdexcept>

namespace autodist::rt::cuda {

const char *kernelsPtx() {
  return ".version 7.0\n"
         ".target sm_70\n"
         ".address_size 64\n"
         "\n"
         ".visible .entry autodist_scale_f32(\n"
         "    .param .u64 p_data, .param .u64 p_rows, .param .u64 p_cols,\n"
         "    .param .u64 p_ld, .param .f32 p_s, .param .u32 p_div)\n"
         "{\n"
         "  .reg .pred %p<3>;\n"
         "  .reg .b32 %r<5>;\n"
         "  .reg .b64 %rd<12>;\n"
         "  .reg .f32 %f<4>;\n"
         "  ld.param.u64 %rd1, [p_data];\n"
         "  ld.param.u64 %rd2, [p_rows];\n"
         "  ld.param.u64 %rd3, [p_cols];\n"
         "  ld.param.u64 %rd4, [p_ld];\n"
         "  ld.param.f32 %f1, [p_s];\n"
         "  ld.param.u32 %r1, [p_div];\n"
         "  mov.u32 %r2, %ctaid.x;\n"
         "  mov.u32 %r3, %ntid.x;\n"
         "  mov.u32 %r4, %tid.x;\n"
         "  cvt.u64.u32 %rd5, %r4;\n"
         "  mad.wide.u32 %rd6, %r2, %r3, %rd5;\n"
         "  mul.lo.u64 %rd7, %rd2, %rd3;\n"
         "  setp.ge.u64 %p1, %rd6, %rd7;\n"
         "  @%p1 bra DONE;\n"
         "  div.u64 %rd8, %rd6, %rd3;\n"
         "  mul.lo.u64 %rd9, %rd8, %rd3;\n"
         "  sub.u64 %rd9, %rd6, %rd9;\n"
         "  mad.lo.u64 %rd10, %rd8, %rd4, %rd9;\n"
         "  shl.b64 %rd10, %rd10, 2;\n"
         "  cvta.to.global.u64 %rd11, %rd1;\n"
         "  add.u64 %rd11, %rd11, %rd10;\n"
         "  ld.global.f32 %f2, [%rd11];\n"
         "  setp.ne.u32 %p2, %r1, 0;\n"
         "  @%p2 div.rn.f32 %f3, %f2, %f1;\n"
         "  @!%p2 mul.rn.f32 %f3, %f2, %f1;\n"
         "  st.global.f32 [%rd11], %f3;\n"
         "DONE:\n"
         "  ret;\n"
         "}\n"
         "\n"
         ".visible .entry autodist_fill_b32(\n"
         "    .param .u64 p_dst, .param .u64 p_n, .param .u32 p_value)\n"
         "{\n"
         "  .reg .pred %p<2>;\n"
         "  .reg .b32 %r<5>;\n"
         "  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [p_dst];\n"
         "  ld.param.u64 %rd2, [p_n];\n"
         "  ld.param.u32 %r1, [p_value];\n"
         "  mov.u32 %r2, %ctaid.x;\n"
         "  mov.u32 %r3, %ntid.x;\n"
         "  mov.u32 %r4, %tid.x;\n"
         "  cvt.u64.u32 %rd3, %r4;\n"
         "  mad.wide.u32 %rd4, %r2, %r3, %rd3;\n"
         "  setp.ge.u64 %p1, %rd4, %rd2;\n"
         "  @%p1 bra DONE;\n"
         "  shl.b64 %rd5, %rd4, 2;\n"
         "  cvta.to.global.u64 %rd6, %rd1;\n"
         "  add.u64 %rd6, %rd6, %rd5;\n"
         "  st.global.b32 [%rd6], %r1;\n"
         "DONE:\n"
         "  ret;\n"
         "}\n"
         "\n"
         ".visible .entry autodist_fill_b16(\n"
         "    .param .u64 p_dst, .param .u64 p_n, .param .u32 p_value)\n"
         "{\n"
         "  .reg .pred %p<2>;\n"
         "  .reg .b16 %h<2>;\n"
         "  .reg .b32 %r<5>;\n"
         "  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [p_dst];\n"
         "  ld.param.u64 %rd2, [p_n];\n"
         "  ld.param.u32 %r1, [p_value];\n"
         "  cvt.u16.u32 %h1, %r1;\n"
         "  mov.u32 %r2, %ctaid.x;\n"
         "  mov.u32 %r3, %ntid.x;\n"
         "  mov.u32 %r4, %tid.x;\n"
         "  cvt.u64.u32 %rd3, %r4;\n"
         "  mad.wide.u32 %rd4, %r2, %r3, %rd3;\n"
         "  setp.ge.u64 %p1, %rd4, %rd2;\n"
         "  @%p1 bra DONE;\n"
         "  shl.b64 %rd5, %rd4, 1;\n"
         "  cvta.to.global.u64 %rd6, %rd1;\n"
         "  add.u64 %rd6, %rd6, %rd5;\n"
         "  st.global.b16 [%rd6], %h1;\n"
         "DONE:\n"
         "  ret;\n"
         "}\n";
}

namespace {
struct Kernels {
  std::once_flag once;
  cudaLibrary_t library = nullptr;
  cudaKernel_t scale = nullptr, fill32 = nullptr, fill16 = nullptr;
};

Kernels &kernels() {
  static Kernels k;
  return k;
}

Kernels &loaded() {
  Kernels &k = kernels();
  if (!deviceSelected())
    throw std::logic_error("CUDA runtime kernels used before select()");
  std::call_once(k.once, [&] {
    check(cudaLibraryLoadData(&k.library, kernelsPtx(), nullptr, nullptr, 0,
                              nullptr, nullptr, 0),
          "cudaLibraryLoadData (the runtime's kernels)");
    check(cudaLibraryGetKernel(&k.scale, k.library, "autodist_scale_f32"),
          "cudaLibraryGetKernel(autodist_scale_f32)");
    check(cudaLibraryGetKernel(&k.fill32, k.library, "autodist_fill_b32"),
          "cudaLibraryGetKernel(autodist_fill_b32)");
    check(cudaLibraryGetKernel(&k.fill16, k.library, "autodist_fill_b16"),
          "cudaLibraryGetKernel(autodist_fill_b16)");
  });
  return k;
}

constexpr unsigned threadsPerBlock = 256;

dim3 blocksFor(uint64_t n) {
  uint64_t blocks = (n + threadsPerBlock - 1) / threadsPerBlock;
  if (blocks > 0x7fffffffu)
    throw std::invalid_argument("CUDA runtime kernel over too many elements");
  return dim3(static_cast<unsigned>(blocks));
}
} // namespace

void scaleOnStream(float *data, int64_t rows, int64_t cols, int64_t ld, float s,
                   bool divide) {
  if (rows <= 0 || cols <= 0)
    return;
  Kernels &k = loaded();
  uint64_t r = rows, c = cols, l = ld;
  uint32_t div = divide;
  void *args[] = {&data, &r, &c, &l, &s, &div};
  check(cudaLaunchKernel(reinterpret_cast<const void *>(k.scale),
                         blocksFor(r * c), dim3(threadsPerBlock), args, 0,
                         computeStream()),
        "cudaLaunchKernel(autodist_scale_f32)");
}

void fillOnStream(void *dst, uint32_t value, uint64_t count, int elementBytes) {
  if (count == 0)
    return;
  Kernels &k = loaded();
  void *args[] = {&dst, &count, &value};
  cudaKernel_t kernel = elementBytes == 2 ? k.fill16 : k.fill32;
  check(cudaLaunchKernel(reinterpret_cast<const void *>(kernel),
                         blocksFor(count), dim3(threadsPerBlock), args, 0,
                         computeStream()),
        "cudaLaunchKernel(autodist_fill)");
}

void unloadKernels() {
  Kernels &k = kernels();
  if (k.library)
    cudaLibraryUnload(k.library); // at exit: nothing to report to
  k.library = nullptr;
}

} // namespace autodist::rt::cuda
