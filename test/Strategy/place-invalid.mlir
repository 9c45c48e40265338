// RUN: autodist-opt %s -split-input-file -verify-diagnostics --dist-place

// expected-error@+1 {{no dist.strategy attribute (run dist-strategy first)}}
module {
  func.func @forward(%w: tensor<8xf32> {nn.param = "w"}) -> (tensor<8xf32> {nn.output = "y"}) {
    return %w : tensor<8xf32>
  }
}

// -----

// A cluster without CPU devices has no parameter server to choose.

// expected-error@+1 {{dist-place: the cluster has no CPU device to act as parameter server}}
module attributes {
  dist.cluster = #dist.cluster<[
    #dist.node_spec<address = "10.0.0.1", cpus = [], gpus = [0], chief = true, bandwidth = 1.0 : f64>]>,
  dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @forward(%w: tensor<8xf32> {nn.param = "w"}) -> (tensor<8xf32> {nn.output = "y"}) {
    return %w : tensor<8xf32>
  }
}

// -----

// expected-error@+1 {{no @train_step or @forward to place}}
module attributes {
  dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = []>} {
}
