// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum" --dist-strategy="builder=ps-lb cluster-file=%S/../Strategy/Inputs/cluster-3cpu.yaml" --dist-place --dist-synchronize | FileCheck %s

// PSLoadBalancing puts w1 on 10.0.0.1:CPU:0, b1 on 10.0.0.2:CPU:0 and w2 on
// 10.0.0.2:CPU:1. Each gradient is reduced to its server in that server's
// bucket (the loss rides in the first one), every rank runs the update, and
// the server's updated value is broadcast back and returned. The momentum
// buffers are tagged with their owners for checkpoints.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W1:[^:]*]]: tensor<8x4xf32> {nn.param = "w1"}
// CHECK-SAME: %[[V1:[^:]*]]: tensor<8x4xf32> {dist.owners = [{device = "10.0.0.1:CPU:0"}], nn.state = "w1/momentum_buffer"}
// CHECK-SAME: {dist.owners = [{device = "10.0.0.2:CPU:0"}], nn.state = "b1/momentum_buffer"}
// CHECK-SAME: {dist.owners = [{device = "10.0.0.2:CPU:1"}], nn.state = "w2/momentum_buffer"}
// CHECK: %[[LOSS:.*]] = nn.softmax_cross_entropy_loss
// CHECK-DAG: %[[G2:.*]] = dist.reduce mean %{{.*}} {root = "10.0.0.2:CPU:1"} : tensor<8x3xf32>
// CHECK-DAG: %[[G1:.*]]:2 = dist.reduce mean %{{.*}}, %[[LOSS]] {root = "10.0.0.1:CPU:0"} : tensor<8x4xf32>, tensor<f32>
// CHECK-DAG: %[[GB:.*]] = dist.reduce mean %{{.*}} {root = "10.0.0.2:CPU:0"} : tensor<8xf32>
// CHECK-DAG: %[[P1:.*]], %[[NV1:.*]] = nn.momentum_update %[[W1]], %[[G1]]#0, %[[V1]]
// CHECK-DAG: %[[B1:.*]]:2 = dist.broadcast %[[P1]], %[[G1]]#1 {root = "10.0.0.1:CPU:0"} : tensor<8x4xf32>, tensor<f32>
// CHECK-DAG: %[[PB:.*]], %{{.*}} = nn.momentum_update %{{.*}}, %[[GB]], %{{.*}}
// CHECK-DAG: %[[BB:.*]] = dist.broadcast %[[PB]] {root = "10.0.0.2:CPU:0"} : tensor<8xf32>
// CHECK-DAG: %[[P2:.*]], %{{.*}} = nn.momentum_update %{{.*}}, %[[G2]], %{{.*}}
// CHECK-DAG: %[[B2:.*]] = dist.broadcast %[[P2]] {root = "10.0.0.2:CPU:1"} : tensor<8x3xf32>
// CHECK: return %[[B1]]#1, %[[B1]]#0, %[[BB]], %[[B2]], %[[NV1]],
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w1"}, %b1: tensor<8xf32> {nn.param = "b1"},
                     %w2: tensor<8x3xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %l = nn.matmul %h, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}
