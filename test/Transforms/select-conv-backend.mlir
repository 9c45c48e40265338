// autodist-select-conv-backend: `onednn` on the group-1 convolutions (and
// their gradients) whose output has >= 16 positions per sample (auto), on
// all of them (onednn), on none (im2col); never on grouped ones.
// REQUIRES: onednn
// RUN: autodist-opt %s -split-input-file --autodist-select-conv-backend | FileCheck %s --check-prefix=AUTO
// RUN: autodist-opt %s -split-input-file --autodist-select-conv-backend=backend=onednn | FileCheck %s --check-prefix=ALL
// RUN: autodist-opt %s -split-input-file --autodist-select-conv-backend=backend=onednn --autodist-select-conv-backend=backend=im2col | FileCheck %s --check-prefix=NONE

// 4x4 outputs (16 positions): oneDNN; 2x2 (4 positions): im2col.
// AUTO-LABEL: func.func @sizes
// AUTO: nn.conv {{.*}}{onednn, pads
// AUTO: nn.conv_input_grad {{.*}}onednn
// AUTO: nn.conv_weight_grad {{.*}}onednn
// AUTO: nn.conv %{{.*}} {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// AUTO: nn.conv_input_grad {{.*}}{input_size = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// AUTO: nn.conv_weight_grad {{.*}}{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// ALL-LABEL: func.func @sizes
// ALL-COUNT-6: onednn
// NONE-LABEL: func.func @sizes
// NONE-NOT: onednn
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
// ALL-NOT: onednn
func.func @grouped(%x: tensor<?x8x8x8xf32>, %w: tensor<8x1x3x3xf32>)
    -> tensor<?x8x6x6xf32> {
  %y = nn.conv %x, %w {group = 8 : i64}
      : (tensor<?x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x6x6xf32>
  return %y : tensor<?x8x6x6xf32>
}
