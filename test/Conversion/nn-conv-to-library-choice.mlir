// convert-nn-conv-to-library chooses: the group-1 convolutions (and their
// gradients) whose output has >= 16 positions per sample (auto, the
// default), all of them (onednn), none (im2col); never grouped ones. The
// convolutions it does not choose stay nn ops for convert-nn-to-linalg.
// REQUIRES: onednn
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library | FileCheck %s --check-prefix=AUTO
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library=backend=onednn | FileCheck %s --check-prefix=ALL
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library=backend=im2col | FileCheck %s --check-prefix=NONE

// 4x4 outputs (16 positions): oneDNN; 2x2 (4 positions): im2col.
// AUTO-LABEL: func.func @sizes
// AUTO: call @autodist_rt_conv2d_fwd_f32(
// AUTO: call @autodist_rt_conv2d_bwd_data_f32(
// AUTO: call @autodist_rt_conv2d_bwd_weights_f32(
// AUTO: nn.conv %{{.*}} {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// AUTO: nn.conv_input_grad {{.*}}{input_size = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// AUTO: nn.conv_weight_grad {{.*}}{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// AUTO-NOT: nn.conv
// AUTO: return
// ALL-LABEL: func.func @sizes
// ALL-NOT: nn.conv
// ALL-COUNT-2: call @autodist_rt_conv2d_fwd_f32(
// ALL-NOT: nn.conv
// ALL: return
// NONE-LABEL: func.func @sizes
// NONE-NOT: call
// NONE-COUNT-2: nn.conv %
// NONE-NOT: call
// NONE: return
func.func @sizes(%x: tensor<?x8x4x4xf32>, %w: tensor<8x8x3x3xf32>,
                 %dy: tensor<?x8x2x2xf32>)
    -> (tensor<?x8x4x4xf32>, tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>,
        tensor<?x8x2x2xf32>, tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) {
  %y = nn.conv %x, %w {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x4x4xf32>
  %dx = nn.conv_input_grad %y, %w {input_size = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x4x4xf32>
  %dw = nn.conv_weight_grad %y, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x4x4xf32>, tensor<?x8x4x4xf32>) -> tensor<8x8x3x3xf32>
  %y2 = nn.conv %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x2x2xf32>
  %dx2 = nn.conv_input_grad %dy, %w {input_size = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<?x8x2x2xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x4x4xf32>
  %dw2 = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<?x8x2x2xf32>, tensor<?x8x4x4xf32>) -> tensor<8x8x3x3xf32>
  return %y, %dx, %dw, %y2, %dx2, %dw2
      : tensor<?x8x4x4xf32>, tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>,
        tensor<?x8x2x2xf32>, tensor<?x8x4x4xf32>, tensor<8x8x3x3xf32>
}

// -----

// A grouped convolution keeps the generic lowering.
// ALL-LABEL: func.func @grouped
// ALL: nn.conv %{{.*}} {group = 8 : i64}
// ALL-NOT: call
func.func @grouped(%x: tensor<?x8x8x8xf32>, %w: tensor<8x1x3x3xf32>)
    -> tensor<?x8x6x6xf32> {
  %y = nn.conv %x, %w {group = 8 : i64}
      : (tensor<?x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x6x6xf32>
  return %y : tensor<?x8x6x6xf32>
}
