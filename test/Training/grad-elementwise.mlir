// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// VJPs of the elementwise math ops (the mse loss supplies the upstream
// gradient %G). Div: d(lhs) = g / rhs, d(rhs) = -(g * y) / rhs, summed over
// the dims rhs was broadcast along.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[Y:.*]] = nn.div %[[X:.*]], %[[W:.*]] : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[GY:.*]] = nn.mul %[[G]], %[[Y]]
// CHECK: %[[Q:.*]] = nn.div %[[GY]], %[[W]]
// CHECK: %[[N:.*]] = nn.neg %[[Q]]
// CHECK: %[[DW:.*]] = nn.reduce_sum %[[N]] {axes = array<i64: 0>, keepdims = false} : (tensor<?x4xf32>) -> tensor<4xf32>
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
  %0 = nn.div %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Pow w.r.t. the exponent: g * y * log(base), 0 where the base is 0.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[Y:.*]] = nn.pow %[[X:.*]], %[[W:.*]] :
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[L:.*]] = nn.log %[[X]]
// CHECK: %[[YL:.*]] = nn.mul %[[Y]], %[[L]]
// CHECK: %[[T:.*]] = nn.mul %[[G]], %[[YL]]
// CHECK: %[[Z:.*]] = nn.equal %[[X]], %[[ZERO]]
// CHECK: %[[M:.*]] = nn.where %[[Z]], %[[ZERO]], %[[T]]
// CHECK: %[[DW:.*]] = nn.reduce_sum %[[M]] {axes = array<i64: 0>, keepdims = false}
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
  %0 = nn.pow %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Pow w.r.t. the base, constant exponent: g * e * base^(e - 1); no
// gradient is built for the constant.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[E:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[EM1:.*]] = nn.sub %[[E]], %[[ONE]]
// CHECK: %[[P:.*]] = nn.pow %[[W:.*]], %[[EM1]]
// CHECK: %[[EP:.*]] = nn.mul %[[E]], %[[P]]
// CHECK: %[[DW:.*]] = nn.mul %[[G]], %[[EP]]
// CHECK-NOT: nn.log
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %c = arith.constant dense<3.0> : tensor<f32>
  %0 = nn.pow %w, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Neg: -g; Exp: g * y; Log: g / x; Sqrt: 0.5 g / y.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[S:.*]] = nn.sqrt %[[W:[^ ]*]]
// CHECK: %[[L:.*]] = nn.log %[[S]]
// CHECK: %[[E:.*]] = nn.exp %[[L]]
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[DE:.*]] = nn.neg %[[G]]
// CHECK: %[[DL:.*]] = nn.mul %[[DE]], %[[E]]
// CHECK: %[[DS:.*]] = nn.div %[[DL]], %[[S]]
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[H:.*]] = nn.mul %[[DS]], %[[HALF]]
// CHECK: %[[DW:.*]] = nn.div %[[H]], %[[S]]
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %0 = nn.sqrt %w : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.log %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = nn.neg %2 : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Erf: g * 2/sqrt(pi) * exp(-x^2); Tanh: g * (1 - y^2); Sigmoid:
// g * y * (1 - y).

// CHECK-LABEL: func.func @train_step
// CHECK: %[[SG:.*]] = nn.sigmoid %[[W:[^ ]*]]
// CHECK: %[[T:.*]] = nn.tanh %[[SG]]
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[X2:.*]] = nn.mul %[[T]], %[[T]]
// CHECK: %[[NX2:.*]] = nn.neg %[[X2]]
// CHECK: %[[EX:.*]] = nn.exp %[[NX2]]
// CHECK: %[[GE:.*]] = nn.mul %[[G]], %[[EX]]
// CHECK: %[[C:.*]] = arith.constant dense<1.12837923> : tensor<f32>
// CHECK: %[[DT:.*]] = nn.mul %[[GE]], %[[C]]
// CHECK: %[[Y2:.*]] = nn.mul %[[T]], %[[T]]
// CHECK: %[[OMY2:.*]] = nn.sub %{{.*}}, %[[Y2]]
// CHECK: %[[DS:.*]] = nn.mul %[[DT]], %[[OMY2]]
// CHECK: %[[OMS:.*]] = nn.sub %{{.*}}, %[[SG]]
// CHECK: %[[D:.*]] = nn.mul %[[SG]], %[[OMS]]
// CHECK: %[[DW:.*]] = nn.mul %[[DS]], %[[D]]
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %0 = nn.sigmoid %w : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.tanh %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.erf %1 : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Gelu (both forms) through the fused nn.gelu_grad; LeakyRelu through
// nn.relu_grad with its slope.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[LR:.*]] = nn.leaky_relu %[[W:[^ ]*]] {alpha = 2.000000e-01 : f32}
// CHECK: %[[GT:.*]] = nn.gelu %[[LR]] {approximate = "tanh"}
// CHECK: %[[G:.*]] = nn.mse_loss_grad
// CHECK: %[[D1:.*]] = nn.gelu_grad %[[G]], %[[GT]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[D2:.*]] = nn.gelu_grad %[[D1]], %[[LR]] {approximate = "tanh"}
// CHECK: %[[DW:.*]] = nn.relu_grad %[[D2]], %[[W]] {alpha = 2.000000e-01 : f32}
// CHECK: nn.sgd_update %[[W]], %[[DW]]
func.func @forward(%w: tensor<4xf32> {nn.param = "w"}) -> tensor<4xf32> {
  %0 = nn.leaky_relu %w {alpha = 0.2 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.gelu %0 {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.gelu %1 : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
