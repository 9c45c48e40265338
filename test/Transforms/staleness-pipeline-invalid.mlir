// RUN: autodist-opt %s --dist-staleness-pipeline -verify-diagnostics

// Weight prediction runs the next step's update on what this step returns
// for the parameter: a step that does not return it (no nn.param_out for
// w1) cannot be predicted.
module attributes {dist.strategy = #dist.strategy<id = "allreduce", replicas = ["localhost:CPU:0"], nodes = [#dist.node<"w1", #dist.allreduce<spec = nccl, compressor = none, group = 0>>], pipeline = <depth = 1, stale = ["w1"], compensation = weight_prediction, warmup = 1, lambda = 5.000000e-01 : f64>>} {
  func.func @train_step(%w: tensor<8x4xf32> {nn.param = "w1"}, %g: tensor<8x4xf32>, %loss: tensor<f32>,
                        %lr: tensor<f32> {nn.lr}, %step: tensor<f32> {nn.step})
      -> (tensor<f32> {nn.loss}, tensor<8x4xf32>) {
    %r:2 = dist.all_reduce mean %g, %loss : tensor<8x4xf32>, tensor<f32>
    // expected-error@+1 {{parameter 'w1': @train_step returns no new value of operand #0 of its update, which weight prediction reads}}
    %w1 = nn.sgd_update %w, %r#0, %lr : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
    return %r#1, %w1 : tensor<f32>, tensor<8x4xf32>
  }
}
