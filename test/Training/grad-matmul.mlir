// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// N-D x 2-D: da = g b^T (one collapsed matmul); db as one gemm on the rows
// collapsed from the batch dims. Broadcast batch dims: each operand's
// gradient is summed over the dims it was broadcast along.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[H:.*]] = nn.matmul %[[X:.*]], %[[W:.*]] : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[BT:.*]] = nn.transpose %[[B:.*]] {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x1x5x2xf32>) -> tensor<2x1x2x5xf32>
// CHECK: %[[DH0:.*]] = nn.matmul %[[G]], %[[BT]] : (tensor<2x?x3x2xf32>, tensor<2x1x2x5xf32>) -> tensor<2x?x3x5xf32>
// CHECK: %[[DH:.*]] = nn.reduce_sum %[[DH0]] {axes = array<i64: 0>, keepdims = false} : (tensor<2x?x3x5xf32>) -> tensor<?x3x5xf32>
// CHECK: %[[HT:.*]] = nn.transpose %[[H]] {perm = array<i64: 0, 2, 1>}
// CHECK: %[[DB0:.*]] = nn.matmul %[[HT]], %[[G]] : (tensor<?x5x3xf32>, tensor<2x?x3x2xf32>) -> tensor<2x?x5x2xf32>
// CHECK: %[[DB1:.*]] = nn.reduce_sum %[[DB0]] {axes = array<i64: 1>, keepdims = false}
// CHECK: %[[DB:.*]] = nn.reshape %[[DB1]] {shape = array<i64: 2, 1, 5, 2>}
// CHECK: %[[XR:.*]] = nn.reshape %[[X]] {shape = array<i64: -1, 4>} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[GR:.*]] = nn.reshape %[[DH]] {shape = array<i64: -1, 5>} : (tensor<?x3x5xf32>) -> tensor<?x5xf32>
// CHECK: %[[DW:.*]] = nn.gemm %[[XR]], %[[GR]] {transA = true} : (tensor<?x4xf32>, tensor<?x5xf32>) -> tensor<4x5xf32>
// CHECK: nn.sgd_update %[[W]], %[[DW]]
// CHECK: nn.sgd_update %[[B]], %[[DB]]
func.func @forward(%x: tensor<?x3x4xf32> {nn.input = "x"}, %w: tensor<4x5xf32> {nn.param = "w"}, %b: tensor<2x1x5x2xf32> {nn.param = "b"}) -> tensor<2x?x3x2xf32> {
  %0 = nn.matmul %x, %w : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  %1 = nn.matmul %0, %b : (tensor<?x3x5xf32>, tensor<2x1x5x2xf32>) -> tensor<2x?x3x2xf32>
  return %1 : tensor<2x?x3x2xf32>
}

// -----

// 1-D operands: promoted to [K, 1] (rhs) or [1, K] (lhs), the unit dim
// squeezed from the gradient; 1-D x 1-D is a dot product.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[G2:.*]] = nn.unsqueeze %[[G]] {axes = array<i64: 1>} : (tensor<?xf32>) -> tensor<?x1xf32>
// CHECK: %[[DU:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x3xf32>, tensor<?x1xf32>) -> tensor<3x1xf32>
// CHECK: nn.squeeze %[[DU]] {axes = array<i64: 1>} : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK: %[[DV:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<4x1xf32>
// CHECK: nn.squeeze %[[DV]] {axes = array<i64: 1>} : (tensor<4x1xf32>) -> tensor<4xf32>
func.func @forward(%x: tensor<?x3x4xf32> {nn.input = "x"}, %v: tensor<4xf32> {nn.param = "v"}, %u: tensor<3xf32> {nn.param = "u"}) -> tensor<?xf32> {
  %0 = nn.matmul %x, %v : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3xf32>
  %1 = nn.matmul %0, %u : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK-DAG: nn.mul %[[G]], %arg1 : (tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-DAG: nn.mul %[[G]], %arg0 : (tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
func.func @forward(%a: tensor<5xf32> {nn.param = "a"}, %b: tensor<5xf32> {nn.param = "b"}) -> tensor<f32> {
  %0 = nn.matmul %a, %b : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
