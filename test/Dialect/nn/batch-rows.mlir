// nn.range (run-time int64/int32 scalars), nn.gather along a dynamic axis
// and its gradient sized from the forward data: parsing, printing, types.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @batch_rows
// CHECK: %[[R:.*]] = nn.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
// CHECK: %[[G:.*]] = nn.gather %{{.*}}, %[[R]] : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<?x10xf32>
// CHECK: nn.gather_grad %{{.*}}, %[[R]], %{{.*}} {axis = 0 : i64, axis_size = -1 : i64} : (tensor<?x10xf32>, tensor<?xi64>, tensor<?x10xf32>) -> tensor<?x10xf32>
func.func @batch_rows(%flat: tensor<?x10xf32>, %s: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>) -> (tensor<?x10xf32>, tensor<?x10xf32>) {
  %r = nn.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %g = nn.gather %flat, %r {axis = 0 : i64} : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<?x10xf32>
  %dd = nn.gather_grad %g, %r, %flat {axis = 0 : i64, axis_size = -1 : i64} : (tensor<?x10xf32>, tensor<?xi64>, tensor<?x10xf32>) -> tensor<?x10xf32>
  return %g, %dd : tensor<?x10xf32>, tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func @range_i32
// CHECK: nn.range %{{.*}} : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
func.func @range_i32(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>) -> tensor<?xi32> {
  %r = nn.range %s, %l, %d : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
