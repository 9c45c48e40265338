// RUN: autodist-opt %s -split-input-file -verify-diagnostics

// A strategy attached to a module must fit its parameters and its cluster.

// expected-error@+1 {{strategy: 'v' is not a parameter of the program}}
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"v", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}) {
    return
  }
}

// -----

// expected-error@+1 {{strategy: parameter 'w' field 'partition': 5 shards along axis 0, which has only 4 elements}}
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[5, 1]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_2", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_3", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_4", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>]>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}) {
    return
  }
}

// -----

// expected-error@+1 {{strategy: parameter 'w' field 'partition': lists 3 axes for a rank-2 parameter 'tensor<4x3xf32>'}}
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2, 1, 1]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>]>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}) {
    return
  }
}

// -----

// expected-error@+1 {{strategy: parameter 'w' field 'partition': shard sizes add up to 5, axis 0 has 4}}
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2, 1], sizes = [3, 2]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>]>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}) {
    return
  }
}

// -----

// expected-error@+1 {{strategy: parameter 'b' field 'group': group 2 is out of range (there are 2 variables)}}
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
    #dist.node<"b", #dist.allreduce<spec = auto, compressor = none, group = 2>>]>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}) {
    return
  }
}

// -----

// expected-error@+1 {{strategy: parameter 'w' field 'server': device '10.0.0.9:CPU:0' is not in the cluster}}
module attributes {
  dist.cluster = #dist.cluster<[#dist.node_spec<address = "10.0.0.1", cpus = [0], chief = true, bandwidth = 1.0 : f64>]>,
  dist.strategy = #dist.strategy<id = "x", replicas = ["10.0.0.1:CPU:0"], nodes = [
    #dist.node<"w", #dist.ps<server = "10.0.0.9:CPU:0", local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}) {
    return
  }
}

// -----

// expected-error@+1 {{strategy: parameter '*' field 'replicas': device '10.0.0.1:GPU:3' is not in the cluster}}
module attributes {
  dist.cluster = #dist.cluster<[#dist.node_spec<address = "10.0.0.1", cpus = [0], gpus = [0], chief = true, bandwidth = 1.0 : f64>]>,
  dist.strategy = #dist.strategy<id = "x", replicas = ["10.0.0.1:GPU:3"], nodes = []>} {
}
