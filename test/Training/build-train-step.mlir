// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="lr=0.5" | FileCheck %s

// A two-layer MLP: the gradients flow back through both Gemms, the Relu and
// the loss, and every parameter gets an SGD update.

// CHECK: module attributes {autodist.train = {label = "labels", loss = "cross_entropy", lr = 5.000000e-01 : f64, optimizer = "sgd", schedule = "constant"}}
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W1:.*]]: tensor<8x4xf32> {nn.param = "w1"}, %[[B1:.*]]: tensor<8xf32> {nn.param = "b1"},
// CHECK-SAME: %[[W2:.*]]: tensor<3x8xf32> {nn.param = "w2"}, %[[X:.*]]: tensor<?x4xf32> {nn.input = "x"},
// CHECK-SAME: %[[Y:.*]]: tensor<?xi64> {nn.label = "labels"}, %[[LR:.*]]: tensor<f32> {nn.lr}, %{{.*}}: tensor<f32> {nn.step})
// CHECK-SAME: -> (tensor<f32> {nn.loss}, tensor<8x4xf32> {nn.param_out = "w1"}, tensor<8xf32> {nn.param_out = "b1"}, tensor<3x8xf32> {nn.param_out = "w2"})
// CHECK: %[[H:.*]] = nn.gemm %[[X]], %[[W1]], %[[B1]] {transB = true}
// CHECK: %[[R:.*]] = nn.relu %[[H]]
// CHECK: %[[L:.*]] = nn.matmul %[[R]], %{{.*}}
// CHECK: %[[LOSS:.*]] = nn.softmax_cross_entropy_loss %[[L]], %[[Y]]
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DL:.*]] = nn.softmax_cross_entropy_loss_grad %[[ONE]], %[[L]], %[[Y]]
// CHECK-DAG: %[[DR:.*]] = nn.gemm %[[DL]], %{{.*}} {transB = true} : (tensor<?x3xf32>, tensor<8x3xf32>) -> tensor<?x8xf32>
// CHECK-DAG: %[[DRELU:.*]] = nn.relu_grad %[[DR]], %[[H]]
// CHECK-DAG: %[[DW1:.*]] = nn.gemm %[[DRELU]], %[[X]] {transA = true} : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[DB1:.*]] = nn.reduce_sum %[[DRELU]] {axes = array<i64: 0>, keepdims = false}
// CHECK: %[[N1:.*]] = nn.sgd_update %[[W1]], %[[DW1]], %[[LR]]
// CHECK: %[[N2:.*]] = nn.sgd_update %[[B1]], %[[DB1]], %[[LR]]
// CHECK: %[[N3:.*]] = nn.sgd_update %[[W2]], %{{.*}}, %[[LR]]
// CHECK: return %[[LOSS]], %[[N1]], %[[N2]], %[[N3]]
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w1"}, %b1: tensor<8xf32> {nn.param = "b1"},
                     %w2: tensor<3x8xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %r = nn.relu %h : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %t = nn.reshape %w2 {shape = array<i64: 8, 3>} : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %l = nn.matmul %r, %t : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}

// -----

// A value used twice receives the sum of both gradients.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[G1:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true}
// CHECK: %[[G2:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true}
// CHECK: %[[SUM:.*]] = nn.add %[[G1]], %[[G2]]
// CHECK: nn.sgd_update %{{.*}}, %[[SUM]]
module {
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x4xf32> {nn.output = "y"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %1 = nn.matmul %0, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    return %1 : tensor<?x4xf32>
  }
}
