// nn.unsqueeze_dynamic, nn.squeeze_dynamic, nn.reduce_sum_dynamic and
// nn.slice_dynamic take the declared result shape as `shape` (-1 dynamic)
// and int64 or int32 index vectors; they round-trip.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @unsqueeze
// CHECK: nn.unsqueeze_dynamic %{{.*}}, %{{.*}} {shape = array<i64: 3, 1, 4>} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>
func.func @unsqueeze(%x: tensor<3x4xf32>, %a: tensor<1xi64>) -> tensor<3x1x4xf32> {
  %0 = nn.unsqueeze_dynamic %x, %a {shape = array<i64: 3, 1, 4>} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>
  return %0 : tensor<3x1x4xf32>
}

// -----

// CHECK-LABEL: func @squeeze_dynamic_batch
// CHECK: nn.squeeze_dynamic {{.*}} -> tensor<?x4xi64>
func.func @squeeze_dynamic_batch(%x: tensor<?x1x4xi64>, %a: tensor<1xi32>) -> tensor<?x4xi64> {
  %0 = nn.squeeze_dynamic %x, %a {shape = array<i64: -1, 4>} : (tensor<?x1x4xi64>, tensor<1xi32>) -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// CHECK-LABEL: func @reduce_sum
// CHECK: nn.reduce_sum_dynamic {{.*}} {keepdims = false, shape = array<i64: 3, 2>}
func.func @reduce_sum(%x: tensor<3x2x2xf32>, %a: tensor<1xi64>) -> tensor<3x2xf32> {
  %0 = nn.reduce_sum_dynamic %x, %a {keepdims = false, shape = array<i64: 3, 2>} : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @slice
// CHECK: nn.slice_dynamic {{.*}} -> tensor<3x5xf32>
func.func @slice(%x: tensor<6x5xf32>, %s: tensor<1xi64>, %e: tensor<1xi32>, %a: tensor<1xi64>, %t: tensor<1xi64>) -> tensor<3x5xf32> {
  %0 = nn.slice_dynamic %x, %s, %e, %a, %t {shape = array<i64: 3, 5>} : (tensor<6x5xf32>, tensor<1xi64>, tensor<1xi32>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
