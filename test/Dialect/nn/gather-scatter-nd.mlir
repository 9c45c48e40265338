// nn.gather_nd, nn.scatter_nd and their gradient ops (parse, print, reparse).
// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @gather_nd
// CHECK: nn.gather_nd %{{.*}}, %{{.*}} : (tensor<5x4x?xf32>, tensor<3x1xi64>) -> tensor<3x4x?xf32>
// CHECK: nn.gather_nd %{{.*}}, %{{.*}} {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x2xi32>) -> tensor<2x1xf32>
// CHECK: nn.gather_nd_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x4x?xf32>, tensor<3x1xi64>, tensor<5x4x?xf32>) -> tensor<5x4x?xf32>
func.func @gather_nd(%x: tensor<5x4x?xf32>, %i: tensor<3x1xi64>, %w: tensor<2x3x4xf32>, %j: tensor<2x1x2xi32>) -> (tensor<3x4x?xf32>, tensor<2x1xf32>, tensor<5x4x?xf32>) {
  %0 = nn.gather_nd %x, %i : (tensor<5x4x?xf32>, tensor<3x1xi64>) -> tensor<3x4x?xf32>
  %1 = nn.gather_nd %w, %j {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x2xi32>) -> tensor<2x1xf32>
  %2 = nn.gather_nd_grad %0, %i, %x : (tensor<3x4x?xf32>, tensor<3x1xi64>, tensor<5x4x?xf32>) -> tensor<5x4x?xf32>
  return %0, %1, %2 : tensor<3x4x?xf32>, tensor<2x1xf32>, tensor<5x4x?xf32>
}

// -----

// CHECK-LABEL: func @scatter_nd
// CHECK: nn.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "add"} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
// CHECK: nn.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x4xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<8x4xi64>
// CHECK: nn.scatter_nd_data_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
func.func @scatter_nd(%x: tensor<8x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>, %n: tensor<8x4xi64>, %j: tensor<3x2xi64>, %v: tensor<3xi64>) -> (tensor<8x4xf32>, tensor<8x4xi64>, tensor<8x4xf32>) {
  %0 = nn.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
  %1 = nn.scatter_nd %n, %j, %v : (tensor<8x4xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<8x4xi64>
  %2 = nn.scatter_nd_data_grad %0, %i, %u : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xi64>, tensor<8x4xf32>
}
