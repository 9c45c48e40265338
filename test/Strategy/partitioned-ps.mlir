// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=partitioned-ps cluster-file=%S/Inputs/cluster-3cpu.yaml" --dist-place | FileCheck %s
// RUN: autodist-opt %S/Inputs/cnn-params.mlir --dist-strategy="builder=partitioned-ps cluster-file=%S/Inputs/cluster-3cpu.yaml" --dist-place | FileCheck %s --check-prefix=CNN

// Axis 0 split by its smallest divisor >= 2; shards on the least-loaded
// servers in load order (stable), each charged bytes / shards:
//   fc1.weight (8192 B, 2 shards) -> CPU 1:0, 2:0   loads 4096 4096 0
//   fc1.bias   (128 B, 2 shards)  -> 2:1, 1:0       loads 4160 4096 64
//   fc2.weight (1280 B, 2 shards) -> 2:1, 2:0       loads 4160 4736 704
//   fc2.bias   (40 B, 2 shards)   -> 2:1, 1:0
// CHECK: #dist.node<"fc1.weight", partition = #dist.partition<[2, 1]>, parts = [
// CHECK-SAME: #dist.node<"fc1.weight/part_0", #dist.ps<server = "10.0.0.1:CPU:0"
// CHECK-SAME: #dist.node<"fc1.weight/part_1", #dist.ps<server = "10.0.0.2:CPU:0"
// CHECK-SAME: #dist.node<"fc1.bias", partition = #dist.partition<[2]>, parts = [
// CHECK-SAME: #dist.node<"fc1.bias/part_0", #dist.ps<server = "10.0.0.2:CPU:1"
// CHECK-SAME: #dist.node<"fc1.bias/part_1", #dist.ps<server = "10.0.0.1:CPU:0"
// CHECK-SAME: #dist.node<"fc2.weight", partition = #dist.partition<[2, 1]>, parts = [
// CHECK-SAME: #dist.node<"fc2.weight/part_0", #dist.ps<server = "10.0.0.2:CPU:1"
// CHECK-SAME: #dist.node<"fc2.weight/part_1", #dist.ps<server = "10.0.0.2:CPU:0"
// CHECK-SAME: #dist.node<"fc2.bias", partition = #dist.partition<[2]>, parts = [
// CHECK-SAME: #dist.node<"fc2.bias/part_0", #dist.ps<server = "10.0.0.2:CPU:1"
// CHECK-SAME: #dist.node<"fc2.bias/part_1", #dist.ps<server = "10.0.0.1:CPU:0"

// 6 -> 2 shards, 16 -> 2, 10 -> 2, 7 (prime) -> 7 shards, more shards than
// servers: round-robin over the servers in load order.
// CNN: #dist.node<"conv1.weight", partition = #dist.partition<[2, 1, 1, 1]>
// CNN: #dist.node<"conv2.bias", partition = #dist.partition<[2]>
// CNN: #dist.node<"fc.bias", partition = #dist.partition<[7]>, parts = [
// CNN-SAME: "fc.bias/part_6"
