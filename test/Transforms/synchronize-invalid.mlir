// RUN: autodist-opt %s -split-input-file -verify-diagnostics --dist-synchronize

// expected-error@+1 {{no dist.strategy attribute (run dist-strategy first)}}
module {
}

// -----

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = []>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{parameter 'w' has no node config in the strategy}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// Asynchronous parameter servers and bounded staleness are represented but
// cannot be carried out.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = false, staleness = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    // expected-error@+1 {{parameter 'w' uses an asynchronous parameter server (sync = false), which is not implemented; use sync = true}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A partitioned parameter comes split by dist-partition (its real output):
// each shard's update is synchronized by its own config.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 2>>]>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    %w0 = tensor.extract_slice %w[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %g0 = tensor.extract_slice %g[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %0 = nn.sgd_update %w0, %g0, %lr {dist.shard = {axis = 0 : i64, offset = 0 : i64, part = "w/part_0", size = 2 : i64}} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %w1 = tensor.extract_slice %w[2] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %g1 = tensor.extract_slice %g[2] [2] [1] : tensor<4xf32> to tensor<2xf32>
    // expected-error@+1 {{parameter 'w/part_1' uses a parameter server with staleness 2, which is not implemented; use staleness = 0}}
    %1 = nn.sgd_update %w1, %g1, %lr {dist.shard = {axis = 0 : i64, offset = 2 : i64, part = "w/part_1", size = 2 : i64}} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %concat = tensor.concat dim(0) %0, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    return %concat : tensor<4xf32>
  }
}

// -----

// Clipping by global norm needs every reduced gradient on every rank; a
// parameter server delivers each only to its owner.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    %c = nn.clip_by_global_norm %g {max_norm = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error@+1 {{parameter 'w' uses a parameter server, but its gradient goes through 'nn.clip_by_global_norm', which needs every synchronized gradient on every rank (e.g. clipping by global norm); use all-reduce for it}}
    %0 = nn.sgd_update %w, %c, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// The updated value must be what @train_step returns for the parameter.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{the new value of parameter 'w' is not returned by @train_step as its 'nn.param_out'}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A partitioned parameter that dist-partition did not split (here its update
// is whole) is not synchronized as if it were whole.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2]>, parts = [
      #dist.node<"w/part_0", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>,
      #dist.node<"w/part_1", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>]>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    // expected-error@+1 {{parameter 'w' is partitioned, but its update is not split into shards (run dist-partition first)}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// The same for an all-reduced partition: its gradient is not sliced.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    // expected-error@+1 {{parameter 'w' is partitioned, but its update is not split into shards (run dist-partition first)}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A shard tag must name a shard of the parameter's config.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    %g0 = tensor.extract_slice %g[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %g1 = tensor.extract_slice %g[2] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %gs = tensor.concat dim(0) %g0, %g1 {dist.shards = ["w/part_0", "w/part_7"]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    // expected-error@+1 {{shard 'w/part_7' of parameter 'w' has no node config in the strategy}}
    %0 = nn.sgd_update %w, %gs, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A parameter server dist-place has not chosen yet.

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32> {nn.param_out = "w"}) {
    // expected-error@+1 {{parameter 'w' is on a parameter server that is not placed yet (run dist-place first)}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
