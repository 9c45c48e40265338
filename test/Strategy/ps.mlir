// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps cluster-file=%S/Inputs/cluster-3cpu.yaml" | FileCheck %s --check-prefix=PS
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps-lb cluster-file=%S/Inputs/cluster-3cpu.yaml" --dist-place | FileCheck %s --check-prefix=LB
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps-lb local-proxy=true staleness=3 cluster-file=%S/Inputs/cluster-3cpu.yaml" --dist-place | FileCheck %s --check-prefix=OPTS
// RUN: autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps-lb cluster-file=%S/Inputs/cluster-3cpu.yaml" | FileCheck %s --check-prefix=OPEN

// The PS builder puts every variable on the first CPU device; replicas are the CPUs of the
// GPU-less nodes.
// PS: dist.strategy = #dist.strategy<id = "ps", replicas = ["10.0.0.1:CPU:0", "10.0.0.2:CPU:0", "10.0.0.2:CPU:1"], nodes = [
// PS-SAME: #dist.node<"fc1.weight", #dist.ps<server = "10.0.0.1:CPU:0", local_replication = false, sync = true, staleness = 0>>,
// PS-SAME: #dist.node<"fc1.bias", #dist.ps<server = "10.0.0.1:CPU:0",
// PS-SAME: #dist.node<"fc2.weight", #dist.ps<server = "10.0.0.1:CPU:0",
// PS-SAME: #dist.node<"fc2.bias", #dist.ps<server = "10.0.0.1:CPU:0",

// PSLoadBalancing leaves every server for dist-place to choose.
// OPEN: #dist.node<"fc1.weight", #dist.ps<local_replication = false, sync = true, staleness = 0>>,
// OPEN-SAME: #dist.node<"fc2.bias", #dist.ps<local_replication = false, sync = true, staleness = 0>>]>

// PSLoadBalancing, greedy by bytes (8192, 128, 1280, 40): fc1.weight to the
// first empty server, fc1.bias to the next, fc2.weight to the last, fc2.bias
// to the lightest (10.0.0.2:CPU:0 with 128 bytes).
// LB: #dist.node<"fc1.weight", #dist.ps<server = "10.0.0.1:CPU:0",
// LB-SAME: #dist.node<"fc1.bias", #dist.ps<server = "10.0.0.2:CPU:0",
// LB-SAME: #dist.node<"fc2.weight", #dist.ps<server = "10.0.0.2:CPU:1",
// LB-SAME: #dist.node<"fc2.bias", #dist.ps<server = "10.0.0.2:CPU:0",

// OPTS: #dist.node<"fc1.weight", #dist.ps<server = "10.0.0.1:CPU:0", local_replication = true, sync = true, staleness = 3>>
