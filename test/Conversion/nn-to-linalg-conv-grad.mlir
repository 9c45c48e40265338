// Convolution gradients without groups as contractions over the im2col
// columns of the whole batch ([C * kH * kW, N * OH * OW]), the output
// gradient transposed to channels-first [M, N * OH * OW]: the weight gradient
// is one contraction of it with the forward's columns over the batch and the
// output positions; the input gradient is the columns' gradient w^T dy (one
// contraction) added back into the positions they were read from (col2im:
// one strided slice of the padded input per kernel position).
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// Stride 2, pad 1, 3x3 kernel, 4 -> 3 channels: 9 slice additions into the
// 10x10 padded gradient, at offsets (kh, kw) with steps 2, then the interior.
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[MDYT:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[K00:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0, d0, d2, d3)>
// CHECK-DAG: #[[K12:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 1, 2, d0, d2, d3)>
// CHECK-DAG: #[[K22:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 2, 2, d0, d2, d3)>
// CHECK-LABEL: func @conv_input_grad
// CHECK-SAME: (%[[DY:.*]]: tensor<?x4x4x4xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[SWAP]], #{{.*}}], {{.*}} ins(%[[DY]] : tensor<?x4x4x4xf32>) outs(%{{.*}} : tensor<4x?x4x4xf32>)
// CHECK: %[[DYT:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<4x?x4x4xf32> into tensor<4x?xf32>
// CHECK: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<4x3x3x3xf32> into tensor<4x27xf32>
// CHECK: %[[DCOL:.*]] = linalg.contract indexing_maps = [#[[WT]], #[[MDYT]], #[[OUT]]] ins(%[[W2]], %[[DYT]] : tensor<4x27xf32>, tensor<4x?xf32>) outs(%{{.*}} : tensor<27x?xf32>)
// CHECK: %[[COL6:.*]] = tensor.expand_shape %[[DCOL]] {{\[\[}}0, 1, 2], [3, 4, 5]] {{.*}} : tensor<27x?xf32> into tensor<3x3x3x?x4x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x3x10x10xf32>)
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[Z]][0, 0, 0, 0] [%{{.*}}, 3, 4, 4] [1, 1, 2, 2]
// CHECK: %[[A0:.*]] = linalg.generic {indexing_maps = [#[[K00]], #{{.*}}], {{.*}} ins(%[[COL6]] : tensor<3x3x3x?x4x4xf32>) outs(%[[S0]] : tensor<?x3x4x4xf32>)
// CHECK: arith.addf
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A0]] into %[[Z]][0, 0, 0, 0] [%{{.*}}, 3, 4, 4] [1, 1, 2, 2]
// CHECK: tensor.extract_slice %[[I0]][0, 0, 0, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 2]
// CHECK: linalg.generic {indexing_maps = [#[[K12]], #{{.*}}]
// CHECK: %[[S8:.*]] = tensor.extract_slice %{{.*}}[0, 0, 2, 2] [%{{.*}}, 3, 4, 4] [1, 1, 2, 2]
// CHECK: %[[A8:.*]] = linalg.generic {indexing_maps = [#[[K22]], #{{.*}}], {{.*}} outs(%[[S8]] : tensor<?x3x4x4xf32>)
// CHECK: %[[DXP:.*]] = tensor.insert_slice %[[A8]] into %{{.*}}[0, 0, 2, 2]
// CHECK-NOT: linalg.generic
// CHECK: %[[DX:.*]] = tensor.extract_slice %[[DXP]][0, 0, 1, 1] [%{{.*}}, 3, 8, 8] [1, 1, 1, 1] : tensor<?x3x10x10xf32> to tensor<?x3x8x8xf32>
// CHECK: return %[[DX]]
func.func @conv_input_grad(%dy: tensor<?x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32> {
  %0 = nn.conv_input_grad %dy, %w {input_size = array<i64: 8, 8>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, d4 * 2 + d1, d5 * 2 + d2)>
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[MDY:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MCOL:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MDW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @conv_weight_grad
// CHECK-SAME: (%[[DY:.*]]: tensor<?x4x4x4xf32>, %[[X:.*]]: tensor<?x2x8x8xf32>)
// CHECK: %[[XP:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #{{.*}}], {{.*}} ins(%[[XP]] : tensor<?x2x10x10xf32>) outs(%{{.*}} : tensor<2x3x3x?x4x4xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %{{.*}} : tensor<2x3x3x?x4x4xf32> into tensor<18x?xf32>
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[SWAP]], #{{.*}}], {{.*}} ins(%[[DY]] : tensor<?x4x4x4xf32>) outs(%{{.*}} : tensor<4x?x4x4xf32>)
// CHECK: %[[DYT:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<4x?x4x4xf32> into tensor<4x?xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x18xf32>)
// CHECK: %[[DW:.*]] = linalg.contract indexing_maps = [#[[MDY]], #[[MCOL]], #[[MDW]]] ins(%[[DYT]], %[[COLS]] : tensor<4x?xf32>, tensor<18x?xf32>) outs(%[[Z]] : tensor<4x18xf32>)
// CHECK: tensor.expand_shape %[[DW]] {{\[\[}}0], [1, 2, 3]] output_shape [4, 2, 3, 3] : tensor<4x18xf32> into tensor<4x2x3x3xf32>
func.func @conv_weight_grad(%dy: tensor<?x4x4x4xf32>, %x: tensor<?x2x8x8xf32>) -> tensor<4x2x3x3xf32> {
  %0 = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<?x2x8x8xf32>) -> tensor<4x2x3x3xf32>
  return %0 : tensor<4x2x3x3xf32>
}

// -----

// Max pooling with windows that tile the input (2x2, stride 2, 8 = 4 * 2):
// after the window maxima's positions, one elementwise pass over the input
// reads its window's (h / 2, w / 2) gradient and position and keeps the
// gradient where the position is its own ((h mod 2) * 2 + w mod 2).
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @max_pool_grad_tiled
// CHECK-SAME: (%[[DY:.*]]: tensor<?x3x4x4xf32>, %[[X:.*]]: tensor<?x3x8x8xf32>)
// CHECK: %[[ARG:.*]]:2 = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<?x3x8x8xf32>, tensor<2x2xf32>)
// CHECK: %[[DX:.*]] = linalg.generic {indexing_maps = [#[[WIN]], #[[WIN]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[DY]], %[[ARG]]#1 : tensor<?x3x4x4xf32>, tensor<?x3x4x4xi64>) outs(%{{.*}} : tensor<?x3x8x8xf32>)
// CHECK: linalg.index 2
// CHECK: arith.remui
// CHECK: linalg.index 3
// CHECK: arith.remui
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: return %[[DX]]
func.func @max_pool_grad_tiled(%dy: tensor<?x3x4x4xf32>, %x: tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> {
  %0 = nn.max_pool_grad %dy, %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x3x4x4xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

// Overlapping windows (3x3, stride 2, pad 1): the gradient and the maxima's
// positions dilated and padded, then summed per padded input position over
// the windows that reach it, and the padding cut off.
// CHECK-LABEL: func @max_pool_grad_overlapping
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2] [%{{.*}}, 3, 4, 4] [1, 1, 2, 2] : tensor<?x3x4x4xf32> into tensor<?x3x12x12xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2] [%{{.*}}, 3, 4, 4] [1, 1, 2, 2] : tensor<?x3x4x4xi64> into tensor<?x3x12x12xi64>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} {{.*}} outs(%{{.*}} : tensor<?x3x10x10xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 1] [%{{.*}}, 3, 8, 8] [1, 1, 1, 1] : tensor<?x3x10x10xf32> to tensor<?x3x8x8xf32>
func.func @max_pool_grad_overlapping(%dy: tensor<?x3x4x4xf32>, %x: tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> {
  %0 = nn.max_pool_grad %dy, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x4x4xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}
