// RUN: autodist-opt %s --autodist-build-train-step="optimizer=adam" --dist-partition --dist-synchronize | FileCheck %s

// Mixed synchronizers in one program: w is split along axis 1 into an
// all-reduce shard (3 columns, group 0, with b and the loss) and a shard on
// a parameter server with local replication (1 column). The all-reduce
// shard is updated from the all-reduced gradient on every rank; the server
// shard is reduced to its server, updated, and broadcast back. Only the
// server shard's Adam state has an owner.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: {dist.owners = [{axis = 1 : i64, device = "localhost:CPU:0", offset = 3 : i64, size = 1 : i64}], nn.state = "w/adam_m"}
// CHECK-SAME: {dist.owners = [{axis = 1 : i64, device = "localhost:CPU:0", offset = 3 : i64, size = 1 : i64}], nn.state = "w/adam_v"}
// CHECK-SAME: %{{[^:]*}}: tensor<8xf32> {nn.state = "b/adam_m"}
// CHECK: %[[LOSS:.*]] = nn.softmax_cross_entropy_loss
// CHECK: %[[GW:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true}
// CHECK: %[[GB:.*]] = nn.reduce_sum
// CHECK-DAG: %[[G0:.*]] = tensor.extract_slice %[[GW]][0, 0] [8, 3] [1, 1]
// CHECK-DAG: %[[G1:.*]] = tensor.extract_slice %[[GW]][0, 3] [8, 1] [1, 1]
// CHECK-DAG: %[[AR:.*]]:3 = dist.all_reduce mean %[[G0]], %[[GB]], %[[LOSS]] : tensor<8x3xf32>, tensor<8xf32>, tensor<f32>
// CHECK-DAG: %[[R:.*]] = dist.reduce mean %[[G1]] {local_replication, root = "localhost:CPU:0"} : tensor<8x1xf32>
// CHECK-DAG: %[[P0:.*]], %[[M0:.*]], %[[V0:.*]] = nn.adam_update %{{.*}}, %[[AR]]#0, {{.*}} -> (tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>)
// CHECK-DAG: %[[P1:.*]], %[[M1:.*]], %[[V1:.*]] = nn.adam_update %{{.*}}, %[[R]], {{.*}} -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
// CHECK-DAG: %[[B:.*]] = dist.broadcast %[[P1]] {local_replication, root = "localhost:CPU:0"} : tensor<8x1xf32>
// CHECK-DAG: %[[NW:.*]] = tensor.concat dim(1) %[[P0]], %[[B]] : (tensor<8x3xf32>, tensor<8x1xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[NM:.*]] = tensor.concat dim(1) %[[M0]], %[[M1]]
// CHECK-DAG: %[[NB:.*]], %{{.*}}, %{{.*}} = nn.adam_update %{{.*}}, %[[AR]]#1,
// CHECK: return %[[AR]]#2, %[[NW]], %[[NB]], %[[NM]],
module attributes {dist.strategy = #dist.strategy<id = "mixed", replicas = ["localhost:CPU:0"], nodes = [
    #dist.node<"w", partition = #dist.partition<[1, 2], sizes = [3, 1]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.ps<server = "localhost:CPU:0", local_replication = true, sync = true, staleness = 0>>]>,
    #dist.node<"b", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
  func.func @forward(%w: tensor<8x4xf32> {nn.param = "w"}, %b: tensor<8xf32> {nn.param = "b"},
                     %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x8xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    return %0 : tensor<?x8xf32>
  }
}
