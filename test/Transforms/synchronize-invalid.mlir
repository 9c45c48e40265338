// RUN: autodist-opt %s -split-input-file -verify-diagnostics --dist-synchronize

// expected-error@+1 {{no dist.strategy attribute (run dist-strategy first)}}
module {
}

// -----

module attributes {dist.strategy = #dist.strategy<builder = "allreduce", nodes = [
    #dist.node<"other", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{parameter 'w' has no node config in the strategy}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {dist.strategy = #dist.strategy<builder = "custom", nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = horovod, group = 0>>]>} {
  func.func @train_step(%w: tensor<4xf32> {nn.param = "w"}, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    // expected-error@+1 {{compressor 'horovod' for parameter 'w' is not supported yet}}
    %0 = nn.sgd_update %w, %g, %lr : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
