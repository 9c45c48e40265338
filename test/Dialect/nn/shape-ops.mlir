// Parsing, printing and type inference of nn.slice, nn.slice_grad,
// nn.split, nn.expand and nn.trilu.
// RUN: autodist-opt %s | autodist-opt | FileCheck %s

// CHECK-LABEL: func @slice
// CHECK: nn.slice %{{.*}} {axes = array<i64: 1, 2>, ends = array<i64: -1, 9223372036854775807>, starts = array<i64: 1, -8>, steps = array<i64: 2, 3>} : (tensor<?x6x8xf32>) -> tensor<?x2x3xf32>
// CHECK: nn.slice %{{.*}} {axes = array<i64: -1>, ends = array<i64: -9223372036854775807>, starts = array<i64: 100>, steps = array<i64: -3>} : (tensor<?x6x8xf32>) -> tensor<?x6x3xf32>
// CHECK: nn.slice %{{.*}} {axes = array<i64: 0>, ends = array<i64: 2>, starts = array<i64: 5>, steps = array<i64: 1>} : (tensor<4xi64>) -> tensor<0xi64>
// CHECK: nn.slice_grad
func.func @slice(%x: tensor<?x6x8xf32>, %i: tensor<4xi64>, %g: tensor<?x2x3xf32>) -> (tensor<?x2x3xf32>, tensor<?x6x3xf32>, tensor<0xi64>, tensor<?x6x8xf32>) {
  %0 = nn.slice %x {starts = array<i64: 1, -8>, ends = array<i64: -1, 9223372036854775807>, axes = array<i64: 1, 2>, steps = array<i64: 2, 3>} : (tensor<?x6x8xf32>) -> tensor<?x2x3xf32>
  %1 = nn.slice %x {starts = array<i64: 100>, ends = array<i64: -9223372036854775807>, axes = array<i64: -1>, steps = array<i64: -3>} : (tensor<?x6x8xf32>) -> tensor<?x6x3xf32>
  %2 = nn.slice %i {starts = array<i64: 5>, ends = array<i64: 2>, axes = array<i64: 0>, steps = array<i64: 1>} : (tensor<4xi64>) -> tensor<0xi64>
  %3 = nn.slice_grad %g, %x {starts = array<i64: 1, -8>, ends = array<i64: -1, 9223372036854775807>, axes = array<i64: 1, 2>, steps = array<i64: 2, 3>} : (tensor<?x2x3xf32>, tensor<?x6x8xf32>) -> tensor<?x6x8xf32>
  return %0, %1, %2, %3 : tensor<?x2x3xf32>, tensor<?x6x3xf32>, tensor<0xi64>, tensor<?x6x8xf32>
}

// CHECK-LABEL: func @split_expand_trilu
// CHECK: nn.split %{{.*}} {axis = -1 : i64, sizes = array<i64: 3, 3, 1>} : (tensor<?x7xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x1xf32>)
// CHECK: nn.expand %{{.*}} {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: nn.trilu %{{.*}} {k = -1 : i64, upper = false} : (tensor<3x4xi1>) -> tensor<3x4xi1>
func.func @split_expand_trilu(%x: tensor<?x7xf32>, %w: tensor<3x1xf32>, %m: tensor<3x4xi1>) -> (tensor<?x1xf32>, tensor<2x3x4xf32>, tensor<3x4xi1>) {
  %0:3 = nn.split %x {axis = -1 : i64, sizes = array<i64: 3, 3, 1>} : (tensor<?x7xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x1xf32>)
  %1 = nn.expand %w {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %2 = nn.trilu %m {upper = false, k = -1 : i64} : (tensor<3x4xi1>) -> tensor<3x4xi1>
  return %0#2, %1, %2 : tensor<?x1xf32>, tensor<2x3x4xf32>, tensor<3x4xi1>
}
