// RUN: autodist-opt %s -split-input-file --dist-place | FileCheck %s
// RUN: autodist-opt %s -split-input-file --dist-place --dist-place | FileCheck %s

// Bytes placement of what the strategy leaves open, in program order: a (32
// bytes) is already on S3, so S3 starts with 32; b (16) goes to the least
// loaded, S1; c's four shards (8 bytes each) go to the servers in load order
// as it was before c (S2, S1, S3), round-robin (the fourth to S2 again). The
// all-reduced d and the placed a stay as they are.
// CHECK-LABEL: module attributes
// CHECK-SAME: #dist.node<"a", #dist.ps<server = "10.0.0.3:CPU:0", local_replication = false, sync = true, staleness = 0>>
// CHECK-SAME: #dist.node<"b", #dist.ps<server = "10.0.0.1:CPU:0", local_replication = true, sync = true, staleness = 0>>
// CHECK-SAME: #dist.node<"c/part_0", #dist.ps<server = "10.0.0.2:CPU:0",
// CHECK-SAME: #dist.node<"c/part_1", #dist.ps<server = "10.0.0.1:CPU:0",
// CHECK-SAME: #dist.node<"c/part_2", #dist.ps<server = "10.0.0.3:CPU:0",
// CHECK-SAME: #dist.node<"c/part_3", #dist.ps<server = "10.0.0.2:CPU:0",
// CHECK-SAME: #dist.node<"d", #dist.allreduce<spec = auto, compressor = none, group = 0>>
module attributes {
  dist.cluster = #dist.cluster<[
    #dist.node_spec<address = "10.0.0.1", cpus = [0], chief = true, bandwidth = 3.0 : f64>,
    #dist.node_spec<address = "10.0.0.2", cpus = [0], chief = false, bandwidth = 2.0 : f64>,
    #dist.node_spec<address = "10.0.0.3", cpus = [0], chief = false, bandwidth = 1.0 : f64>]>,
  dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"a", #dist.ps<server = "10.0.0.3:CPU:0", local_replication = false, sync = true, staleness = 0>>,
    #dist.node<"b", #dist.ps<local_replication = true, sync = true, staleness = 0>>,
    #dist.node<"c", partition = #dist.partition<[4]>, parts = [
      #dist.node<"c/part_0", #dist.ps<local_replication = false, sync = true, staleness = 0>>,
      #dist.node<"c/part_1", #dist.ps<local_replication = false, sync = true, staleness = 0>>,
      #dist.node<"c/part_2", #dist.ps<local_replication = false, sync = true, staleness = 0>>,
      #dist.node<"c/part_3", #dist.ps<local_replication = false, sync = true, staleness = 0>>]>,
    #dist.node<"d", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
  func.func @forward(%a: tensor<8xf32> {nn.param = "a"}, %b: tensor<4xf32> {nn.param = "b"},
                     %c: tensor<8xf32> {nn.param = "c"}, %d: tensor<2xf32> {nn.param = "d"})
      -> (tensor<8xf32> {nn.output = "y"}) {
    return %a : tensor<8xf32>
  }
}

// -----

// Without dist.cluster the cluster is this machine: its one CPU device
// takes every open server.
// CHECK-LABEL: module attributes
// CHECK-SAME: #dist.node<"w", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>
module attributes {
  dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @forward(%w: tensor<8xf32> {nn.param = "w"}) -> (tensor<8xf32> {nn.output = "y"}) {
    return %w : tensor<8xf32>
  }
}
