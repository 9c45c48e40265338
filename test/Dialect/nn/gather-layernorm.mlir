// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @embed
// CHECK: nn.gather %{{.*}}, %{{.*}} : (tensor<100x16xf32>, tensor<?x8xi64>) -> tensor<?x8x16xf32>
// CHECK: nn.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<3xi64>) -> tensor<4x3x6xf32>
// CHECK: nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x8x16xf32>
// CHECK: nn.layer_norm %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x8x16xf32>, tensor<8x16xf32>) -> tensor<?x8x16xf32>
func.func @embed(%t: tensor<100x16xf32>, %ids: tensor<?x8xi64>, %d: tensor<4x5x6xf32>, %i: tensor<3xi64>,
                 %g: tensor<16xf32>, %b: tensor<16xf32>, %g2: tensor<8x16xf32>) -> (tensor<?x8x16xf32>, tensor<4x3x6xf32>, tensor<?x8x16xf32>) {
  %0 = nn.gather %t, %ids : (tensor<100x16xf32>, tensor<?x8xi64>) -> tensor<?x8x16xf32>
  %1 = nn.gather %d, %i {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<3xi64>) -> tensor<4x3x6xf32>
  %2 = nn.layer_norm %0, %g, %b {epsilon = 1.0e-05 : f32} : (tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x8x16xf32>
  %3 = nn.layer_norm %2, %g2 {axis = 1 : i64} : (tensor<?x8x16xf32>, tensor<8x16xf32>) -> tensor<?x8x16xf32>
  return %2, %1, %3 : tensor<?x8x16xf32>, tensor<4x3x6xf32>, tensor<?x8x16xf32>
}
