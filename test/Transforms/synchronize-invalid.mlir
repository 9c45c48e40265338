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

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = fp16, group = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{compressor 'fp16' for parameter 'w' is not supported yet}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{parameter 'w' uses a parameter server; parameter-server synchronization is not implemented yet}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
      #dist.node<"w/part_1", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>]>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{parameter 'w/part_1' uses a parameter server; parameter-server synchronization is not implemented yet}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
