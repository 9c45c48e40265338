//===- Convolution.h - The operands of the ABI's convolutions ---*- C++ -*-===//
//
// What `_mlir_ciface_autodist_rt_conv2d_*_f32` (docs/abi.md) pass to the
// device's convolution library (Device::conv2d*: oneDNN on the host, cuDNN
// on a GPU): group-1 NCHW/OIHW f32 tensors and the geometry.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_CONVOLUTION_H
#define AUTODIST_RUNTIME_CONVOLUTION_H

#include "autodist/runtime/Memref.h"

#include <cstdint>

namespace autodist::rt {

using Tensor4 = StridedMemref<float, 4>;
using Vector1 = StridedMemref<float, 1>;

/// Strides [h, w], pads [top, left, bottom, right] and dilations [h, w] of a
/// convolution, as nn.conv's attributes (dilation 1 = dense).
struct ConvGeometry {
  int64_t strides[2];
  int64_t pads[4];
  int64_t dilations[2];
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_CONVOLUTION_H
