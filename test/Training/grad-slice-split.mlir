// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// Slice: nn.slice_grad puts the gradient into zeros of the input's shape.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[D:.*]] = nn.slice_grad %[[G]], %arg0 {axes = array<i64: 1>, ends = array<i64: 0>, starts = array<i64: -1>, steps = array<i64: -2>} : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: nn.sgd_update %arg0, %[[D]]
func.func @forward(%w: tensor<4x6xf32> {nn.param = "w"}) -> tensor<4x3xf32> {
  %0 = nn.slice %w {starts = array<i64: -1>, ends = array<i64: 0>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Split: the results' gradients concatenated; the unused middle result
// contributes zeros shaped like it.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[S:.*]]:3 = nn.split %arg0
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[Z:.*]] = nn.broadcast_like %{{.*}}, %[[S]]#1 : (tensor<f32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[D:.*]] = nn.concat %{{.*}}, %[[Z]], %{{.*}} {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
// CHECK: nn.sgd_update %arg0, %[[D]]
func.func @forward(%w: tensor<4x6xf32> {nn.param = "w"}) -> tensor<4x3xf32> {
  %0:3 = nn.split %w {axis = 1 : i64, sizes = array<i64: 2, 3, 1>} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x1xf32>)
  %1 = nn.concat %0#0, %0#2 {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Expand: summed over the broadcast dims; Trilu: the same triangle of the
// gradient.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[T:.*]] = nn.trilu %[[G]] {k = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[S:.*]] = nn.reduce_sum %[[T]] {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: %[[D:.*]] = nn.reshape %[[S]] {shape = array<i64: 3, 1>} : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: nn.sgd_update %arg0, %[[D]]
func.func @forward(%w: tensor<3x1xf32> {nn.param = "w"}) -> tensor<2x3x4xf32> {
  %0 = nn.expand %w {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = nn.trilu %0 {k = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}
