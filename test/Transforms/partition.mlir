// RUN: autodist-opt %s --autodist-build-train-step="clip-norm=1.0" --dist-strategy="builder=partitioned-ar chunk-size=3" --dist-partition | FileCheck %s --check-prefix=AR
// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum" --dist-strategy="builder=partitioned-ps cluster-file=%S/../Strategy/Inputs/cluster-3cpu.yaml" --dist-place --dist-partition | FileCheck %s --check-prefix=PS
// A second run leaves split parameters alone.
// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum" --dist-strategy="builder=partitioned-ps cluster-file=%S/../Strategy/Inputs/cluster-3cpu.yaml" --dist-place --dist-partition --dist-partition | FileCheck %s --check-prefix=PS

// All shards all-reduced (PartitionedAR: w 8x4 and b 8 in two shards along
// axis 0): one update each, on the raw gradient sliced into its shards
// before clipping and put back together, tagged with the shards' names.
// AR-LABEL: func.func @train_step
// AR: %[[GW:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true}
// AR-NEXT: %[[W0:.*]] = tensor.extract_slice %[[GW]][0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
// AR-NEXT: %[[W1:.*]] = tensor.extract_slice %[[GW]][4, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
// AR-NEXT: %[[W:.*]] = tensor.concat dim(0) %[[W0]], %[[W1]] {dist.shards = ["w/part_0", "w/part_1"]} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// AR: %[[B:.*]] = tensor.concat dim(0) %{{.*}}, %{{.*}} {dist.shards = ["b/part_0", "b/part_1"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
// AR: %[[C:.*]]:2 = nn.clip_by_global_norm %[[W]], %[[B]]
// AR: nn.sgd_update %{{.*}}, %[[C]]#0, %{{.*}} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
// AR: nn.sgd_update %{{.*}}, %[[C]]#1, %{{.*}} : (tensor<8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<8xf32>

// Shards on parameter servers (PartitionedPS): one update per shard on
// slices of the parameter, gradient and momentum buffer (the learning rate
// shared), each tagged with its shard; the results concatenated back.
// PS-LABEL: func.func @train_step
// PS-SAME: %[[W:[^:]*]]: tensor<8x4xf32> {nn.param = "w"}
// PS-SAME: %[[V:[^:]*]]: tensor<8x4xf32> {nn.state = "w/momentum_buffer"}
// PS-SAME: %[[LR:[^:]*]]: tensor<f32> {nn.lr}
// PS: %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0] [4, 4] [1, 1]
// PS-NEXT: %[[G0:.*]] = tensor.extract_slice %[[GW:.*]][0, 0] [4, 4] [1, 1]
// PS-NEXT: %[[V0:.*]] = tensor.extract_slice %[[V]][0, 0] [4, 4] [1, 1]
// PS-NEXT: %[[P0:.*]], %[[NV0:.*]] = nn.momentum_update %[[W0]], %[[G0]], %[[V0]], %[[LR]] {dist.shard = {axis = 0 : i64, offset = 0 : i64, part = "w/part_0", size = 4 : i64}} : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>)
// PS-NEXT: %[[W1:.*]] = tensor.extract_slice %[[W]][4, 0] [4, 4] [1, 1]
// PS-NEXT: %[[G1:.*]] = tensor.extract_slice %[[GW]][4, 0] [4, 4] [1, 1]
// PS-NEXT: %[[V1:.*]] = tensor.extract_slice %[[V]][4, 0] [4, 4] [1, 1]
// PS-NEXT: %[[P1:.*]], %[[NV1:.*]] = nn.momentum_update %[[W1]], %[[G1]], %[[V1]], %[[LR]] {dist.shard = {axis = 0 : i64, offset = 4 : i64, part = "w/part_1", size = 4 : i64}}
// PS-NEXT: %[[NW:.*]] = tensor.concat dim(0) %[[P0]], %[[P1]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// PS-NEXT: %[[NV:.*]] = tensor.concat dim(0) %[[NV0]], %[[NV1]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// PS-NOT: nn.momentum_update %[[W]],
// PS: return %{{.*}}, %[[NW]], %{{.*}}, %[[NV]],
module {
  func.func @forward(%w: tensor<8x4xf32> {nn.param = "w"}, %b: tensor<8xf32> {nn.param = "b"},
                     %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x8xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    return %0 : tensor<?x8xf32>
  }
}
