// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=uneven-ps cluster-file=%S/Inputs/cluster-3cpu.yaml" --dist-place | FileCheck %s
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=uneven-ps cluster-file=%S/Inputs/cluster-3cpu.yaml" --dist-place --dist-explain | FileCheck %s --check-prefix=TABLE
// RUN: autodist-opt %S/Inputs/cnn-params.mlir --dist-strategy="builder=uneven-ps" --dist-place | FileCheck %s --check-prefix=CNN

// The smallest non-divisor: 32 -> 3 shards (11, 11, 10), 10 -> 3 (4, 3, 3);
// equal loads keep the server order.
// CHECK: #dist.node<"fc1.weight", partition = #dist.partition<[3, 1]>, parts = [
// CHECK-SAME: "fc1.weight/part_0", #dist.ps<server = "10.0.0.1:CPU:0"
// CHECK-SAME: "fc1.weight/part_1", #dist.ps<server = "10.0.0.2:CPU:0"
// CHECK-SAME: "fc1.weight/part_2", #dist.ps<server = "10.0.0.2:CPU:1"
// CHECK-SAME: #dist.node<"fc2.bias", partition = #dist.partition<[3]>

// TABLE: fc1.weight{{ +}}[32, 64]{{ +}}8192{{ +}}-{{ +}}3
// TABLE-NEXT: fc1.weight/part_0{{ +}}[11, 64]{{ +}}2816{{ +}}ps{{ +}}1{{ +}}10.0.0.1:CPU:0
// TABLE-NEXT: fc1.weight/part_1{{ +}}[11, 64]{{ +}}2816{{ +}}ps{{ +}}1{{ +}}10.0.0.2:CPU:0
// TABLE-NEXT: fc1.weight/part_2{{ +}}[10, 64]{{ +}}2560{{ +}}ps{{ +}}1{{ +}}10.0.0.2:CPU:1
// TABLE: fc2.bias/part_0{{ +}}[4]{{ +}}16
// TABLE: total: 4 parameters, 9640 bytes
// TABLE: server 10.0.0.1:CPU:0: 3388 bytes

// 6 -> 4 shards (6 % 4 != 0), 16 -> 3, 10 -> 3, 7 -> 2; one local server.
// CNN: #dist.node<"conv1.weight", partition = #dist.partition<[4, 1, 1, 1]>
// CNN: #dist.node<"conv2.weight", partition = #dist.partition<[3, 1, 1, 1]>
// CNN: #dist.node<"fc.bias", partition = #dist.partition<[2]>, parts = [#dist.node<"fc.bias/part_0", #dist.ps<server = "localhost:CPU:0"
