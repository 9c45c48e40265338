// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=allreduce chunk-size=2" | FileCheck %s
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=allreduce compressor=powersgd powersgd-rank=4 spec=ring" | FileCheck %s --check-prefix=OPTS
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=partitioned-ar chunk-size=3" | FileCheck %s --check-prefix=PAR

// AllReduce: group = index / chunk size, spec NCCL by default; no cluster
// given: this machine.
// CHECK: dist.strategy = #dist.strategy<id = "allreduce", replicas = ["localhost:CPU:0"], nodes = [
// CHECK-SAME: #dist.node<"fc1.weight", #dist.allreduce<spec = nccl, compressor = none, group = 0>>,
// CHECK-SAME: #dist.node<"fc1.bias", #dist.allreduce<spec = nccl, compressor = none, group = 0>>,
// CHECK-SAME: #dist.node<"fc2.weight", #dist.allreduce<spec = nccl, compressor = none, group = 1>>,
// CHECK-SAME: #dist.node<"fc2.bias", #dist.allreduce<spec = nccl, compressor = none, group = 1>>]>

// OPTS: #dist.node<"fc1.weight", #dist.allreduce<spec = ring, compressor = powersgd, rank = 4, group = 0>>

// PartitionedAR: axis 0 by its smallest divisor, spec AUTO, the group
// counter advancing per shard: shards 0..7 -> groups 0 0 0 1 1 1 2 2.
// PAR: #dist.node<"fc1.weight", partition = #dist.partition<[2, 1]>, parts = [
// PAR-SAME: #dist.node<"fc1.weight/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
// PAR-SAME: #dist.node<"fc1.weight/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>,
// PAR-SAME: #dist.node<"fc1.bias", partition = #dist.partition<[2]>, parts = [
// PAR-SAME: #dist.node<"fc1.bias/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
// PAR-SAME: #dist.node<"fc1.bias/part_1", #dist.allreduce<spec = auto, compressor = none, group = 1>>]>,
// PAR-SAME: #dist.node<"fc2.weight/part_1", #dist.allreduce<spec = auto, compressor = none, group = 1>>]>,
// PAR-SAME: #dist.node<"fc2.bias/part_0", #dist.allreduce<spec = auto, compressor = none, group = 2>>,
// PAR-SAME: #dist.node<"fc2.bias/part_1", #dist.allreduce<spec = auto, compressor = none, group = 2>>]>
