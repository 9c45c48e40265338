// convert-nn-conv-to-library{library=cudnn} (the cuda target): every
// group-1 f32 convolution and gradient becomes a call of the runtime's
// conv2d ABI (cuDNN), whatever its size, in any build (no oneDNN needed);
// grouped ones and 16-bit ones (--precision) stay nn ops; backend=im2col
// keeps them all.
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library=library=cudnn | FileCheck %s
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library="library=cudnn backend=im2col" | FileCheck %s --check-prefix=NONE
// RUN: not autodist-opt %s -split-input-file --convert-nn-conv-to-library=library=mkl 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @every_size
// CHECK-COUNT-2: call @autodist_rt_conv2d_fwd_f32(
// CHECK: call @autodist_rt_conv2d_bwd_data_f32(
// CHECK: call @autodist_rt_conv2d_bwd_weights_f32(
// CHECK-NOT: nn.conv
// CHECK: return
// NONE-LABEL: func.func @every_size
// NONE-NOT: call
// NONE: return
// BAD: error: unknown convolution library 'mkl' (expected onednn or cudnn)
func.func @every_size(%x: tensor<?x8x4x4xf32>, %w: tensor<8x8x3x3xf32>, %dy: tensor<?x8x1x1xf32>)
    -> (tensor<?x8x4x4xf32>, tensor<?x8x1x1xf32>, tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) {
  %y = nn.conv %x, %w {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x4x4xf32>
  %y1 = nn.conv %x, %w {strides = array<i64: 2, 2>}
      : (tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x1x1xf32>
  %dx = nn.conv_input_grad %dy, %w {input_size = array<i64: 4, 4>, strides = array<i64: 2, 2>}
      : (tensor<?x8x1x1xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x4x4xf32>
  %dw = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<?x8x1x1xf32>, tensor<?x8x4x4xf32>) -> tensor<8x8x3x3xf32>
  return %y, %y1, %dx, %dw : tensor<?x8x4x4xf32>, tensor<?x8x1x1xf32>, tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @kept
// CHECK: nn.conv %arg0, %arg1 {group = 8 : i64}
// CHECK: nn.conv %arg2, %arg3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x8x4x4xbf16>
// CHECK-NOT: call
func.func @kept(%x: tensor<?x8x8x8xf32>, %w: tensor<8x1x3x3xf32>,
                %xb: tensor<?x8x4x4xbf16>, %wb: tensor<8x8x3x3xbf16>)
    -> (tensor<?x8x6x6xf32>, tensor<?x8x4x4xf32>) {
  %y = nn.conv %x, %w {group = 8 : i64}
      : (tensor<?x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x6x6xf32>
  %yb = nn.conv %xb, %wb {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x4x4xbf16>, tensor<8x8x3x3xbf16>) -> tensor<?x8x4x4xf32>
  return %y, %yb : tensor<?x8x6x6xf32>, tensor<?x8x4x4xf32>
}
