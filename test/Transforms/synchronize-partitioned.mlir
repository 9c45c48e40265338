// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy="builder=partitioned-ar chunk-size=3" --dist-partition --dist-synchronize | FileCheck %s

// A partitioned gradient is sliced along the partition axis, each shard
// reduced in its own group's bucket, and the shards concatenated back
// before the update: w (8x4) -> shards in groups 0, 0; b (8) -> 0, 1.
// CHECK-LABEL: func.func @train_step
// CHECK-DAG: %[[W0:.*]] = tensor.extract_slice %[[GW:.*]][0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
// CHECK-DAG: %[[W1:.*]] = tensor.extract_slice %[[GW]][4, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
// CHECK-DAG: %[[B0:.*]] = tensor.extract_slice %[[GB:.*]][0] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK-DAG: %[[B1:.*]] = tensor.extract_slice %[[GB]][4] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK-DAG: %[[R0:.*]]:4 = dist.all_reduce mean %[[W0]], %[[W1]], %[[B0]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<f32>
// CHECK-DAG: %[[R1:.*]] = dist.all_reduce mean %[[B1]] {group = 1 : i64} : tensor<4xf32>
// CHECK-DAG: %[[W:.*]] = tensor.concat dim(0) %[[R0]]#0, %[[R0]]#1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[B:.*]] = tensor.concat dim(0) %[[R0]]#2, %[[R1]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
// CHECK-DAG: nn.sgd_update %{{.*}}, %[[W]], %{{.*}}
// CHECK-DAG: nn.sgd_update %{{.*}}, %[[B]], %{{.*}}
module {
  func.func @forward(%w: tensor<8x4xf32> {nn.param = "w"}, %b: tensor<8xf32> {nn.param = "b"},
                     %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x8xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    return %0 : tensor<?x8xf32>
  }
}
