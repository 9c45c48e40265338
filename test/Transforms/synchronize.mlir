// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize | FileCheck %s
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy="chunk-size=2" --dist-synchronize | FileCheck %s --check-prefix=TWO

// One bucket: every gradient and the loss are averaged by a single
// all-reduce, and the optimizer applies the averaged gradients.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[LOSS:.*]] = nn.softmax_cross_entropy_loss
// CHECK: %[[R:.*]]:4 = dist.all_reduce mean %[[GW1:.*]], %[[GB1:.*]], %[[GW2:.*]], %[[LOSS]] : tensor<8x4xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<f32>
// CHECK: nn.sgd_update %{{.*}}, %[[R]]#0
// CHECK: nn.sgd_update %{{.*}}, %[[R]]#1
// CHECK: nn.sgd_update %{{.*}}, %[[R]]#2
// CHECK: return %[[R]]#3,

// Two groups: two buckets, the loss joins the first.

// TWO-LABEL: func.func @train_step
// TWO-DAG: %[[R0:.*]]:3 = dist.all_reduce mean %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8xf32>, tensor<f32>
// TWO-DAG: %[[R1:.*]] = dist.all_reduce mean %{{.*}} {group = 1 : i64} : tensor<8x3xf32>
// TWO: return %[[R0]]#2,
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w1"}, %b1: tensor<8xf32> {nn.param = "b1"},
                     %w2: tensor<8x3xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %l = nn.matmul %h, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}
