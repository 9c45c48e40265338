// RUN: autodist-opt %s --autodist-export-manifest | FileCheck %s

// Per-rank state (dist-compressor-state: error-feedback residuals and
// PowerSGD's Q, which starts from its seed) is named in the manifest's
// train.state like optimizer state, with "per_rank" and Q's "init".
// CHECK: \22state\22:[{\22dtype\22:\22f32\22,\22name\22:\22w/momentum_buffer\22,\22shape\22:[4,3]},{\22dtype\22:\22f32\22,\22name\22:\22powersgd.0/residual\22,\22per_rank\22:true,\22shape\22:[12]},{\22dtype\22:\22f32\22,\22init\22:{\22kind\22:\22powersgd_q\22,\22seed\22:1592590337},\22name\22:\22powersgd.0/q\22,\22per_rank\22:true,\22shape\22:[3]}]
module attributes {autodist.source = "m.onnx", autodist.train = {loss = "mse", lr = 1.000000e-01 : f64, optimizer = "momentum", schedule = "constant"}} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "y"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %m: tensor<4x3xf32> {nn.state = "w/momentum_buffer"},
                        %e: tensor<12xf32> {dist.per_rank, nn.state = "powersgd.0/residual"},
                        %q: tensor<3xf32> {dist.init = "powersgd_q", dist.init_seed = 1592590337 : i64, dist.per_rank, nn.state = "powersgd.0/q"},
                        %x: tensor<?x4xf32> {nn.input = "x"}, %gw: tensor<4x3xf32>, %lr: tensor<f32> {nn.lr})
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}, tensor<4x3xf32> {nn.state_out = "w/momentum_buffer"},
          tensor<12xf32> {nn.state_out = "powersgd.0/residual"}, tensor<3xf32> {nn.state_out = "powersgd.0/q"}) {
    %r:3 = dist.all_reduce mean %gw state(%e, %q : tensor<12xf32>, tensor<3xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 1 : i64} : tensor<4x3xf32>
    %p, %v = nn.momentum_update %w, %r#0, %m, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    return %lr, %p, %v, %r#1, %r#2 : tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<12xf32>, tensor<3xf32>
  }
}
