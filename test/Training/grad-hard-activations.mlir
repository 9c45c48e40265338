// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// VJPs of Clip, HardSigmoid and HardSwish (the mse loss supplies the
// upstream gradient %G): each op's gradient op on the op's own input, with
// its attributes; the bounds of Clip are attributes, so nothing flows to
// them.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[C:.*]] = nn.clip %[[W:[^ ]*]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// CHECK: %[[S:.*]] = nn.hard_sigmoid %[[C]] {alpha = 0.166666672 : f32, beta = 2.500000e-01 : f32}
// CHECK: %[[H:.*]] = nn.hard_swish %[[S]]
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[D1:.*]] = nn.hard_swish_grad %[[G]], %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[D2:.*]] = nn.hard_sigmoid_grad %[[D1]], %[[C]] {alpha = 0.166666672 : f32, beta = 2.500000e-01 : f32}
// CHECK: %[[DW:.*]] = nn.clip_grad %[[D2]], %[[W]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %0 = nn.clip %w {min = 0.0 : f32, max = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.hard_sigmoid %0 {alpha = 0.166666672 : f32, beta = 0.25 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.hard_swish %1 : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A one-sided Clip keeps the absent bound infinite (elided) in its
// gradient, which then reaches the broadcast parameter summed.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[A:.*]] = nn.add
// CHECK: %[[C:.*]] = nn.clip %[[A]] {min = -1.000000e+00 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[D:.*]] = nn.clip_grad %[[G]], %[[A]] {min = -1.000000e+00 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[DW:.*]] = nn.reduce_sum %[[D]] {axes = array<i64: 0>, keepdims = false}
// CHECK: nn.sgd_update %{{.*}}, %[[DW]]
func.func @forward(%x: tensor<?x4xf32> {nn.input = "x"}, %w: tensor<4xf32> {nn.param = "w"}) -> tensor<?x4xf32> {
  %0 = nn.add %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = nn.clip %0 {min = -1.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
