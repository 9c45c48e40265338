// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// The asynchronous all-reduce: a start returns a future of the bucket's
// tensors, a wait returns them (types inferred from the future).
// CHECK-LABEL: func @start_wait
// CHECK: %[[F:.*]] = dist.all_reduce_start mean %arg0, %arg1 {group = 1 : i64} : tensor<4x3xf32>, tensor<f32> -> !dist.future<tensor<4x3xf32>, tensor<f32>>
// CHECK: %[[R:.*]]:2 = dist.wait %[[F]] : !dist.future<tensor<4x3xf32>, tensor<f32>>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @start_wait(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
  %f = dist.all_reduce_start mean %a, %l {group = 1 : i64} : tensor<4x3xf32>, tensor<f32> -> !dist.future<tensor<4x3xf32>, tensor<f32>>
  %r:2 = dist.wait %f : !dist.future<tensor<4x3xf32>, tensor<f32>>
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<f32>
}

// -----

// A future is a value like any other: it can be passed around (what a
// staleness pipeline carries across steps).
// CHECK-LABEL: func @future_argument
// CHECK-SAME: (%[[F:.*]]: !dist.future<tensor<5xf32>>) -> tensor<5xf32>
// CHECK: dist.wait %[[F]] : !dist.future<tensor<5xf32>>
func.func @future_argument(%f: !dist.future<tensor<5xf32>>) -> tensor<5xf32> {
  %r = dist.wait %f : !dist.future<tensor<5xf32>>
  return %r : tensor<5xf32>
}
