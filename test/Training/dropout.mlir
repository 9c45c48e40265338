// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse seed=42" | FileCheck %s

// Dropout's training form: the mask comes from the generator keyed by
// (seed, rank, step, stream); the train step takes seed and rank after
// step, and records the seed. The forward applies the mask with the
// keep-scale 1 / (1 - 0.25), the gradient applies the same mask and scale,
// and the mask output is the mask used.

// CHECK: module attributes {autodist.train = {{.*}}seed = 42 : i64
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x4xf32> {nn.input = "x"}
// CHECK-SAME: %[[STEP:[a-z0-9]+]]: tensor<f32> {nn.step}
// CHECK-SAME: %[[SEED:[a-z0-9]+]]: tensor<i64> {nn.seed}
// CHECK-SAME: %[[RANK:[a-z0-9]+]]: tensor<i64> {nn.rank}
// CHECK: %[[H:.*]] = nn.mul %[[X]]
// CHECK: %[[M:.*]] = nn.dropout_mask %[[H]], %[[SEED]], %[[RANK]], %[[STEP]] {ratio = 2.500000e-01 : f32, stream = 0 : i64}
// CHECK: %[[Y:.*]] = nn.masked_scale %[[H]], %[[M]] {scale = 1.33333337 : f32}
// CHECK: %[[MF:.*]] = nn.cast %[[M]] {to = f32}
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[DH:.*]] = nn.masked_scale %[[G]], %[[M]] {scale = 1.33333337 : f32}
// CHECK: nn.mul %[[DH]], %[[X]]
// CHECK-NOT: nn.dropout
// CHECK-LABEL: func.func @forward(
// CHECK: nn.dropout %{{.*}} {ratio = 2.500000e-01 : f32}
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
  %h = nn.mul %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %y, %m = nn.dropout %h {ratio = 0.25 : f32} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  %mf = nn.cast %m {to = f32} : (tensor<?x4xi1>) -> tensor<?x4xf32>
  %z = nn.add %y, %mf : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

// -----

// Each dropout draws from its own stream, numbered in @forward's order.

// CHECK-LABEL: func.func @train_step(
// CHECK: nn.dropout_mask %{{.*}} {ratio = 5.000000e-01 : f32, stream = 0 : i64}
// CHECK: nn.dropout_mask %{{.*}} {ratio = 1.000000e-01 : f32, stream = 1 : i64}
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %a, %m1 = nn.dropout %w : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  %b, %m2 = nn.dropout %a {ratio = 0.1 : f32} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %b : tensor<4xf32>
}

// -----

// Without dropout the train step takes no seed and rank, and no seed is
// recorded.

// CHECK: module attributes {autodist.train = {
// CHECK-NOT: seed =
// CHECK-LABEL: func.func @train_step(
// CHECK-NOT: nn.seed
// CHECK-NOT: nn.rank
// CHECK: return
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %y = nn.relu %w : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
