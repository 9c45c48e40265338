// RUN: autodist-opt %s --autodist-build-train-step="loss=mse freeze=mean,var" | FileCheck %s

// Frozen statistics: batch norm keeps its inference form and VJP.
// CHECK-LABEL: func.func @train_step(
// CHECK: %[[Y:.*]] = nn.batch_norm %{{.*}} {epsilon = 1.000000e-03 : f32, momentum = 8.000000e-01 : f32}
// CHECK: nn.batch_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32}
// CHECK-NOT: nn.sgd_update %{{.*}}mean
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg4, %arg5 :
module {
  func.func @forward(%w: tensor<4x2x3x3xf32> {nn.param = "w"}, %b: tensor<4xf32> {nn.param = "b"},
                     %scale: tensor<4xf32> {nn.param = "scale"}, %bias: tensor<4xf32> {nn.param = "bias"},
                     %mean: tensor<4xf32> {nn.param = "mean"}, %var: tensor<4xf32> {nn.param = "var"},
                     %x: tensor<?x2x8x8xf32> {nn.input = "x"}) -> (tensor<?x4x1x1xf32> {nn.output = "y"}) {
    %c = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<?x2x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    %n = nn.batch_norm %c, %scale, %bias, %mean, %var {epsilon = 1.000000e-03 : f32, momentum = 0.8 : f32}
        : (tensor<?x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    %m = nn.max_pool %n {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x4x4x4xf32>) -> tensor<?x4x2x2xf32>
    %a = nn.average_pool %m {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, count_include_pad = true}
        : (tensor<?x4x2x2xf32>) -> tensor<?x4x2x2xf32>
    %g = nn.global_average_pool %a : (tensor<?x4x2x2xf32>) -> tensor<?x4x1x1xf32>
    return %g : tensor<?x4x1x1xf32>
  }
}
