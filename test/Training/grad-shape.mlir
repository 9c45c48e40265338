// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// Transpose by the inverse permutation; Squeeze and Unsqueeze undo each
// other (negative axes normalized).

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[D3:.*]] = nn.squeeze %[[G]] {axes = array<i64: 2>} : (tensor<4x2x1x3x1xf32>) -> tensor<4x2x3x1xf32>
// CHECK: %[[D2:.*]] = nn.unsqueeze %[[D3]] {axes = array<i64: 2>} : (tensor<4x2x3x1xf32>) -> tensor<4x2x1x3x1xf32>
// CHECK: %[[D1:.*]] = nn.squeeze %[[D2]] {axes = array<i64: 2, 4>} : (tensor<4x2x1x3x1xf32>) -> tensor<4x2x3xf32>
// CHECK: %[[DW:.*]] = nn.transpose %[[D1]] {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
// CHECK: nn.sgd_update %arg0, %[[DW]]
func.func @forward(%w: tensor<2x3x4xf32> {nn.param = "w"}) -> tensor<4x2x1x3x1xf32> {
  %0 = nn.transpose %w {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = nn.unsqueeze %0 {axes = array<i64: -1, 2>} : (tensor<4x2x3xf32>) -> tensor<4x2x1x3x1xf32>
  %2 = nn.squeeze %1 {axes = array<i64: 2>} : (tensor<4x2x1x3x1xf32>) -> tensor<4x2x3x1xf32>
  %3 = nn.unsqueeze %2 {axes = array<i64: -3>} : (tensor<4x2x3x1xf32>) -> tensor<4x2x1x3x1xf32>
  return %3 : tensor<4x2x1x3x1xf32>
}

// -----

// Concat: nn.concat_grad slices the gradient back into the operands'
// shapes (offsets at run time along a dynamic axis).

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[D:.*]]:3 = nn.concat_grad %[[G]], %arg1, %arg0, %arg1 {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<2x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<2x4xf32>, tensor<?x4xf32>)
// CHECK: nn.sgd_update %arg0, %[[D]]#1
func.func @forward(%w: tensor<2x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
  %0 = nn.concat %x, %w, %x {axis = 0 : i64} : (tensor<?x4xf32>, tensor<2x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
