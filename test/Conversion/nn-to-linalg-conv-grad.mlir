// Convolution gradients without groups as contractions over im2col columns:
// the input gradient is a stride-1 convolution of the output gradient
// (dilated by the strides, padded by the dilated kernel) with the flipped,
// transposed kernel; the weight gradient contracts the output gradient with
// the forward's columns over the batch and the output positions.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func @conv_input_grad
// CHECK-SAME: (%[[DY:.*]]: tensor<?x4x4x4xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[DYD:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2] [%{{.*}}, 4, 4, 4] [1, 1, 2, 2] : tensor<?x4x4x4xf32> into tensor<?x4x12x12xf32>
// CHECK: %[[WF:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}], {{.*}} ins(%[[W]] : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<3x4x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[DYD]] : tensor<?x4x12x12xf32>) outs(%{{.*}} : tensor<?x4x3x3x10x10xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %{{.*}} : tensor<?x4x3x3x10x10xf32> into tensor<?x36x100xf32>
// CHECK: %[[WF2:.*]] = tensor.collapse_shape %[[WF]] {{\[\[}}0], [1, 2, 3]] : tensor<3x4x3x3xf32> into tensor<3x36xf32>
// CHECK: %[[Y:.*]] = linalg.contract {{.*}} ins(%[[WF2]], %[[COLS]] : tensor<3x36xf32>, tensor<?x36x100xf32>) outs(%{{.*}} : tensor<?x3x100xf32>)
// CHECK: %[[DXP:.*]] = tensor.expand_shape %[[Y]] {{.*}} : tensor<?x3x100xf32> into tensor<?x3x10x10xf32>
// CHECK: %[[DX:.*]] = tensor.extract_slice %[[DXP]][0, 0, 1, 1] [%{{.*}}, 3, 8, 8] [1, 1, 1, 1] : tensor<?x3x10x10xf32> to tensor<?x3x8x8xf32>
// CHECK: return %[[DX]]
func.func @conv_input_grad(%dy: tensor<?x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32> {
  %0 = nn.conv_input_grad %dy, %w {input_size = array<i64: 8, 8>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

// CHECK-DAG: #[[MDY:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>
// CHECK-DAG: #[[MCOL:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d1, d3)>
// CHECK-DAG: #[[MDW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func @conv_weight_grad
// CHECK-SAME: (%[[DY:.*]]: tensor<?x4x4x4xf32>, %[[X:.*]]: tensor<?x2x8x8xf32>)
// CHECK: %[[XP:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[XP]] : tensor<?x2x10x10xf32>) outs(%{{.*}} : tensor<?x2x3x3x4x4xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %{{.*}} : tensor<?x2x3x3x4x4xf32> into tensor<?x18x16xf32>
// CHECK: %[[DY3:.*]] = tensor.collapse_shape %[[DY]] {{\[\[}}0], [1], [2, 3]] : tensor<?x4x4x4xf32> into tensor<?x4x16xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x18xf32>)
// CHECK: %[[DW:.*]] = linalg.contract indexing_maps = [#[[MDY]], #[[MCOL]], #[[MDW]]] ins(%[[DY3]], %[[COLS]] : tensor<?x4x16xf32>, tensor<?x18x16xf32>) outs(%[[Z]] : tensor<4x18xf32>)
// CHECK: tensor.expand_shape %[[DW]] {{\[\[}}0], [1, 2, 3]] output_shape [4, 2, 3, 3] : tensor<4x18xf32> into tensor<4x2x3x3xf32>
func.func @conv_weight_grad(%dy: tensor<?x4x4x4xf32>, %x: tensor<?x2x8x8xf32>) -> tensor<4x2x3x3xf32> {
  %0 = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<?x2x8x8xf32>) -> tensor<4x2x3x3xf32>
  return %0 : tensor<4x2x3x3xf32>
}
