// RUN: autodist-opt %s | autodist-opt | FileCheck %s

// The ops of fp16 dynamic loss scaling and 16-bit products round-trip.
// CHECK-LABEL: func.func @loss_scale(
// CHECK: %{{.*}}, %[[INF:.*]] = nn.unscale_gradients %arg0, %arg3, %arg4 : (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<i1>)
// CHECK: nn.update_loss_scale %arg0, %arg1, %[[INF]] {growth_interval = 3 : i64} : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>)
// CHECK: nn.matmul %arg5, %arg6 : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf32>
func.func @loss_scale(%s: tensor<f32>, %t: tensor<f32>, %unused: tensor<f32>,
                      %a: tensor<4x3xf32>, %b: tensor<3xf32>,
                      %x: tensor<2x4xf16>, %y: tensor<4x3xf16>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<2x3xf32>) {
  %a1, %b1, %inf = nn.unscale_gradients %s, %a, %b
      : (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<i1>)
  %s1, %t1 = nn.update_loss_scale %s, %t, %inf {growth_interval = 3 : i64}
      : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>)
  %p = nn.matmul %x, %y : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf32>
  return %a1, %b1, %s1, %t1, %p : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<2x3xf32>
}
