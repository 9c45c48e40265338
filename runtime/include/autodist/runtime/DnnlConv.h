//===- DnnlConv.h - 2-D convolutions through oneDNN -------------*- C++ -*-===//
//
// The kernels behind `_mlir_ciface_autodist_rt_conv2d_*_f32` (docs/abi.md):
// group-1 NCHW/OIHW convolution forward (optionally with bias), input
// gradient and weight gradient, run by oneDNN primitives created with
// `format_tag::any`. Operands stay in our plain layouts; each call reorders
// them into the primitive's (blocked) layouts and the result back. The
// primitives, reorders and blocked buffers are cached per shape and
// attributes, on one CPU engine and stream per process. Only built when
// CMake finds oneDNN (AUTODIST_HAVE_ONEDNN).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_DNNLCONV_H
#define AUTODIST_RUNTIME_DNNLCONV_H

#include "autodist/runtime/Convolution.h"

namespace autodist::rt {

/// y = conv(x, w) (+ bias when `bias` is not null). x [N, C, H, W],
/// w [M, C, kH, kW], y [N, M, OH, OW], all contiguous row-major. Throws
/// std::invalid_argument on shapes that do not line up.
void dnnlConvForward(const Tensor4 &x, const Tensor4 &w, const Vector1 *bias,
                     const Tensor4 &y, const ConvGeometry &g);

/// dx = the gradient of conv(x, w)'s input from its output gradient dy.
void dnnlConvBackwardData(const Tensor4 &dy, const Tensor4 &w,
                          const Tensor4 &dx, const ConvGeometry &g);

/// dw = the gradient of conv(x, w)'s weight from its output gradient dy.
void dnnlConvBackwardWeights(const Tensor4 &dy, const Tensor4 &x,
                             const Tensor4 &dw, const ConvGeometry &g);

/// oneDNN's (OpenMP) thread count, unless OMP_NUM_THREADS is set.
void configureDnnlThreads(int threads);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DNNLCONV_H
