// RUN: autodist-opt %S/Inputs/equal-params.mlir --dist-strategy="builder=ps-lb cluster-file=%S/Inputs/cluster-bw.yaml" --dist-place="placement=bandwidth" --dist-explain -o /dev/null | FileCheck %s --check-prefix=BW
// RUN: autodist-opt %S/Inputs/equal-params.mlir --dist-strategy="builder=partitioned-ps cluster-file=%S/Inputs/cluster-bw.yaml" --dist-place="placement=bandwidth" --dist-explain -o /dev/null | FileCheck %s --check-prefix=BW
// RUN: autodist-opt %S/Inputs/equal-params.mlir --dist-strategy="builder=ps-lb cluster-file=%S/Inputs/cluster-bw.yaml" --dist-place --dist-explain -o /dev/null | FileCheck %s --check-prefix=BYTES
// RUN: autodist-opt %S/Inputs/equal-params.mlir --dist-strategy="builder=ps-lb cluster-file=%S/../e2e/Inputs/cluster-2x2.yaml" --dist-place="placement=bandwidth" --dist-explain -o /dev/null | FileCheck %s --check-prefix=EQUAL
// RUN: autodist-opt %S/Inputs/equal-params.mlir --dist-strategy="builder=ps-lb cluster-file=%S/../e2e/Inputs/cluster-2x2-bw.yaml" --dist-place="placement=bandwidth" --dist-explain -o /dev/null | FileCheck %s --check-prefix=SHARED
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps-lb cluster-file=%S/Inputs/cluster-bw.yaml" --dist-place="placement=bandwidth" | FileCheck %s --check-prefix=MLP
// RUN: not autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps-lb" --dist-place="placement=fastest" 2>&1 | FileCheck %s --check-prefix=ERR

// Twelve 4096-byte parameters on three nodes with bandwidths 3 : 2 : 1:
// each (largest first) goes to the server with the smallest
// (load + bytes) / bandwidth, so the loads are 6 : 4 : 2 parameters, the
// shares of the bandwidth (49152 * 3/6, 2/6, 1/6). PartitionedPS's 24
// shards of 2048 bytes come out the same.
// BW: total: 12 parameters, 49152 bytes
// BW-NEXT: server 10.0.0.1:CPU:0: 24576 bytes
// BW-NEXT: server 10.0.0.2:CPU:0: 16384 bytes
// BW-NEXT: server 10.0.0.3:CPU:0: 8192 bytes

// The default placement is AutoDist's, greedy by bytes, whatever the
// bandwidths: 4 : 4 : 4.
// BYTES: server 10.0.0.1:CPU:0: 16384 bytes
// BYTES-NEXT: server 10.0.0.2:CPU:0: 16384 bytes
// BYTES-NEXT: server 10.0.0.3:CPU:0: 16384 bytes

// Equal bandwidths: bandwidth placement is greedy by bytes (largest first).
// EQUAL: server 10.0.0.1:CPU:0: 12288 bytes
// EQUAL-NEXT: server 10.0.0.1:CPU:1: 12288 bytes
// EQUAL-NEXT: server 10.0.0.2:CPU:0: 12288 bytes
// EQUAL-NEXT: server 10.0.0.2:CPU:1: 12288 bytes

// A node's bandwidth is shared by its servers: nodes of 3 and 1 Gbit/s with
// two servers each are servers of 1.5, 1.5, 0.5, 0.5. The proportional
// shares, 4.5 : 4.5 : 1.5 : 1.5 parameters, are not whole: 5 : 5 : 1 : 1
// finishes in 10/3 parameter-times (5/1.5), where 4 : 4 : 2 : 2 or
// 5 : 4 : 2 : 1 would take 4.
// SHARED: server 10.0.0.1:CPU:0: 20480 bytes
// SHARED-NEXT: server 10.0.0.1:CPU:1: 20480 bytes
// SHARED-NEXT: server 10.0.0.2:CPU:0: 4096 bytes
// SHARED-NEXT: server 10.0.0.2:CPU:1: 4096 bytes

// Unequal sizes (8192, 128, 1280, 40 bytes), largest first: fc1.weight to
// 10.0.0.1 (8192/3 < 8192/2); fc2.weight to 10.0.0.2 (1280/2 < 9472/3);
// fc1.bias to 10.0.0.3 (128/1 < 1408/2); fc2.bias to 10.0.0.3 (168 < 1320/2).
// MLP: #dist.node<"fc1.weight", #dist.ps<server = "10.0.0.1:CPU:0"
// MLP-SAME: #dist.node<"fc1.bias", #dist.ps<server = "10.0.0.3:CPU:0"
// MLP-SAME: #dist.node<"fc2.weight", #dist.ps<server = "10.0.0.2:CPU:0"
// MLP-SAME: #dist.node<"fc2.bias", #dist.ps<server = "10.0.0.3:CPU:0"

// ERR: error: dist-place: unknown placement 'fastest' (supported: bytes, bandwidth)
