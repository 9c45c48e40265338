// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum" --dist-strategy="builder=partitioned-ps cluster-file=%S/../Strategy/Inputs/cluster-3cpu.yaml" --dist-place --dist-partition --dist-synchronize | FileCheck %s

// PartitionedPS splits w (8x4) into two shards on 10.0.0.1:CPU:0 and
// 10.0.0.2:CPU:0. The update is split with it: parameter, gradient and
// momentum buffer are sliced, each shard's gradient reduced to its server,
// each shard updated on its own and broadcast from its server, and the
// shards concatenated back. The momentum buffer's owners are the pieces.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<8x4xf32> {nn.param = "w"}
// CHECK-SAME: %[[V:[^:]*]]: tensor<8x4xf32> {dist.owners = [{axis = 0 : i64, device = "10.0.0.1:CPU:0", offset = 0 : i64, size = 4 : i64}, {axis = 0 : i64, device = "10.0.0.2:CPU:0", offset = 4 : i64, size = 4 : i64}], nn.state = "w/momentum_buffer"}
// CHECK: %[[GW:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0] [4, 4] [1, 1]
// CHECK-DAG: %[[G0:.*]] = tensor.extract_slice %[[GW]][0, 0] [4, 4] [1, 1]
// CHECK-DAG: %[[V0:.*]] = tensor.extract_slice %[[V]][0, 0] [4, 4] [1, 1]
// CHECK-DAG: %[[W1:.*]] = tensor.extract_slice %[[W]][4, 0] [4, 4] [1, 1]
// CHECK-DAG: %[[G1:.*]] = tensor.extract_slice %[[GW]][4, 0] [4, 4] [1, 1]
// CHECK-DAG: %[[V1:.*]] = tensor.extract_slice %[[V]][4, 0] [4, 4] [1, 1]
// CHECK-DAG: %[[R0:.*]]:3 = dist.reduce mean %[[G0]], %{{.*}}, %{{.*}} {root = "10.0.0.1:CPU:0"} : tensor<4x4xf32>, tensor<4xf32>, tensor<f32>
// CHECK-DAG: %[[R1:.*]]:2 = dist.reduce mean %[[G1]], %{{.*}} {root = "10.0.0.2:CPU:0"} : tensor<4x4xf32>, tensor<4x3xf32>
// CHECK-DAG: %[[P0:.*]], %[[NV0:.*]] = nn.momentum_update %[[W0]], %[[R0]]#0, %[[V0]], %{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>)
// CHECK-DAG: %[[P1:.*]], %[[NV1:.*]] = nn.momentum_update %[[W1]], %[[R1]]#0, %[[V1]], %{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>)
// CHECK-DAG: %[[NV:.*]] = tensor.concat dim(0) %[[NV0]], %[[NV1]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[B0:.*]]:3 = dist.broadcast %[[P0]], %{{.*}}, %[[R0]]#2 {root = "10.0.0.1:CPU:0"}
// CHECK-DAG: %[[B1:.*]]:2 = dist.broadcast %[[P1]], %{{.*}} {root = "10.0.0.2:CPU:0"}
// CHECK-DAG: %[[NW:.*]] = tensor.concat dim(0) %[[B0]]#0, %[[B1]]#0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: return %[[B0]]#2, %[[NW]], %{{.*}}, %{{.*}}, %[[NV]],
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w"}, %b1: tensor<8xf32> {nn.param = "b"},
                     %w2: tensor<8x3xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %l = nn.matmul %h, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}
