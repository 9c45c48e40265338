// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// Softmax and LogSoftmax through the fused nn.softmax_grad, from their
// outputs.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[S:.*]] = nn.softmax %[[W:[^ ]*]] {axis = 0 : i64}
// CHECK: %[[L:.*]] = nn.log_softmax %[[S]]
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[DL:.*]] = nn.softmax_grad %[[G]], %[[L]] {log = true} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[DW:.*]] = nn.softmax_grad %[[DL]], %[[S]] {axis = 0 : i64}
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<2x4xf32> {nn.param = "w"}) -> tensor<2x4xf32> {
  %0 = nn.softmax %w {axis = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = nn.log_softmax %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// ReduceSum: the gradient (reduced dims reinserted) broadcast back;
// ReduceMean: the same divided by the reduced count (nn.broadcast_like
// {mean}, at run time over the dynamic batch dim); ReduceMax: to the
// positions equal to the max, split evenly among ties (torch.amax).

// CHECK-LABEL: func.func @train_step
// CHECK: %[[H:.*]] = nn.mul
// CHECK: %[[MAX:.*]] = nn.reduce_max %[[H]] {axes = array<i64: -2>, keepdims = false}
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[MAXK:.*]] = nn.unsqueeze %[[MAX]] {axes = array<i64: 1>} : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
// CHECK: %[[GK:.*]] = nn.unsqueeze %[[G]] {axes = array<i64: 1>} : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
// CHECK: %[[HIT:.*]] = nn.equal %[[H]], %[[MAXK]]
// CHECK: %[[HITF:.*]] = nn.cast %[[HIT]] {to = f32}
// CHECK: %[[N:.*]] = nn.reduce_sum %[[HITF]] {axes = array<i64: 1>} : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
// CHECK: %[[SHARE:.*]] = nn.div %[[GK]], %[[N]]
// CHECK: %[[DMAX:.*]] = nn.mul %[[HITF]], %[[SHARE]] : (tensor<?x3x4xf32>, tensor<?x1x4xf32>) -> tensor<?x3x4xf32>
// CHECK: %[[DMEAN:.*]] = nn.broadcast_like %{{.*}}, %[[H]] {mean = true} : (tensor<1x1x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK: nn.add %[[DMAX]], %[[DMEAN]]
// CHECK: %[[GS:.*]] = nn.unsqueeze %{{.*}} {axes = array<i64: 1>} : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
// CHECK: %[[DSUM:.*]] = nn.broadcast_like %[[GS]], %[[H]] : (tensor<?x1x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK: nn.add %{{.*}}, %[[DSUM]]
func.func @forward(%x: tensor<?x3x4xf32> {nn.input = "x"}, %w: tensor<3x4xf32> {nn.param = "w"}) -> tensor<?x4xf32> {
  %0 = nn.mul %x, %w : (tensor<?x3x4xf32>, tensor<3x4xf32>) -> tensor<?x3x4xf32>
  %1 = nn.reduce_sum %0 {axes = array<i64: 1>, keepdims = false} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  %2 = nn.reduce_mean %0 {axes = array<i64: 0, 1>} : (tensor<?x3x4xf32>) -> tensor<1x1x4xf32>
  %3 = nn.reduce_max %0 {axes = array<i64: -2>, keepdims = false} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  %4 = nn.add %1, %2 : (tensor<?x4xf32>, tensor<1x1x4xf32>) -> tensor<1x?x4xf32>
  %5 = nn.reshape %4 {shape = array<i64: -1, 4>} : (tensor<1x?x4xf32>) -> tensor<?x4xf32>
  %6 = nn.add %5, %3 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %6 : tensor<?x4xf32>
}

// -----

// A reduction with empty axes and noop_with_empty_axes is the identity.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK-NEXT: nn.sgd_update %arg0, %[[G]]
func.func @forward(%w: tensor<2x4xf32> {nn.param = "w"}) -> tensor<2x4xf32> {
  %0 = nn.reduce_mean %w {noop_with_empty_axes = true} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
