// nn.shape and the run-time shape operands of nn.expand and nn.reshape
// (shapes that read the dynamic batch): parsing, printing, type inference.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @shape_of_batch
// CHECK: nn.shape %{{.*}} {end = 2 : i64, start = 0 : i64} : (tensor<?x16xi64>) -> tensor<2xi64>
// CHECK: nn.shape %{{.*}} {end = 2 : i64, start = 1 : i64} : (tensor<?x16xi64>) -> tensor<1xi64>
func.func @shape_of_batch(%x: tensor<?x16xi64>) -> (tensor<2xi64>, tensor<1xi64>) {
  %0 = nn.shape %x {start = 0, end = 2} : (tensor<?x16xi64>) -> tensor<2xi64>
  %1 = nn.shape %x {start = 1, end = 2} : (tensor<?x16xi64>) -> tensor<1xi64>
  return %0, %1 : tensor<2xi64>, tensor<1xi64>
}

// -----

// CHECK-LABEL: func @expand_to_batch
// CHECK: nn.expand %{{.*}}, %{{.*}} {shape = array<i64: -1, 1, 1>} : (tensor<1x1x8xf32>, tensor<3xi64>) -> tensor<?x1x8xf32>
// CHECK: nn.expand %{{.*}}, %{{.*}} {shape = array<i64: -1, 16>} : (tensor<f32>, tensor<2xi64>) -> tensor<?x16xf32>
func.func @expand_to_batch(%cls: tensor<1x1x8xf32>, %s: tensor<3xi64>, %one: tensor<f32>, %s2: tensor<2xi64>) -> (tensor<?x1x8xf32>, tensor<?x16xf32>) {
  %0 = nn.expand %cls, %s {shape = array<i64: -1, 1, 1>} : (tensor<1x1x8xf32>, tensor<3xi64>) -> tensor<?x1x8xf32>
  %1 = nn.expand %one, %s2 {shape = array<i64: -1, 16>} : (tensor<f32>, tensor<2xi64>) -> tensor<?x16xf32>
  return %0, %1 : tensor<?x1x8xf32>, tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func @reshape_checked
// CHECK: nn.reshape %{{.*}}, %{{.*}} {shape = array<i64: -1, 16, 2, 8>} : (tensor<?x16x16xf32>, tensor<4xi64>) -> tensor<?x16x2x8xf32>
func.func @reshape_checked(%x: tensor<?x16x16xf32>, %s: tensor<4xi64>) -> tensor<?x16x2x8xf32> {
  %0 = nn.reshape %x, %s {shape = array<i64: -1, 16, 2, 8>} : (tensor<?x16x16xf32>, tensor<4xi64>) -> tensor<?x16x2x8xf32>
  return %0 : tensor<?x16x2x8xf32>
}
