// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// Where: the gradient goes to x where the condition holds and to y
// elsewhere, each summed back to its (broadcast) shape; the condition gets
// none.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[C:.*]] = arith.constant dense<[true, false, false, true]> : tensor<4xi1>
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[DX:.*]] = nn.where %[[C]], %[[G]], %[[Z]] : (tensor<4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
// CHECK: %[[DV:.*]] = nn.reduce_sum %[[DX]] {axes = array<i64: 0, 1>, keepdims = false} : (tensor<?x4xf32>) -> tensor<f32>
// CHECK: %[[DY:.*]] = nn.where %[[C]], %[[Z]], %[[G]]
// CHECK: %[[DW0:.*]] = nn.where %[[C]], %{{.*}}, %[[DY]]
// CHECK: %[[DW:.*]] = nn.reduce_sum %[[DW0]] {axes = array<i64: 0>, keepdims = false} : (tensor<?x4xf32>) -> tensor<4xf32>
// CHECK: nn.sgd_update %{{.*}}, %[[DW]]
// CHECK: nn.sgd_update %{{.*}}, %[[DV]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}, %v: tensor<f32> {nn.param = "v"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
  %c = arith.constant dense<[true, false, false, true]> : tensor<4xi1>
  %0 = nn.where %c, %x, %w : (tensor<4xi1>, tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = nn.where %c, %v, %0 : (tensor<4xi1>, tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// Cast f32 -> f32 passes the gradient through; a cast through i64 passes
// none, so `u` is not trained. (Dropout's training form: dropout.mlir.)

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK-NEXT: %[[NW:.*]] = nn.sgd_update %arg0, %[[G]], %arg3
// CHECK-NEXT: return %{{.*}}, %[[NW]], %arg1
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}, %u: tensor<4xf32> {nn.param = "u"}) -> tensor<4xf32> {
  %0 = nn.cast %w {to = f32} : (tensor<4xf32>) -> tensor<4xf32>
  %i = nn.cast %u {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %f = nn.cast %i {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
  %2 = nn.add %0, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
