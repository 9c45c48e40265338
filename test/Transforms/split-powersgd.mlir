// RUN: autodist-opt %s -split-input-file --dist-split-powersgd | FileCheck %s

// Each matrix (rank >= 2) gets a PowerSGD all-reduce of its own; the
// 1-D and 0-D operands share one uncompressed all-reduce of the same group;
// results keep their order.
// CHECK-LABEL: func @bucket
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<2x2x2xf32>, %[[L:.*]]: tensor<f32>)
// CHECK: %[[RA:.*]] = dist.all_reduce mean %[[A]] {compressor = #dist.compressor<powersgd>, group = 1 : i64, powersgd_rank = 2 : i64} : tensor<4x3xf32>
// CHECK: %[[RC:.*]] = dist.all_reduce mean %[[C]] {compressor = #dist.compressor<powersgd>, group = 1 : i64, powersgd_rank = 2 : i64} : tensor<2x2x2xf32>
// CHECK: %[[RP:.*]]:2 = dist.all_reduce mean %[[B]], %[[L]] {group = 1 : i64} : tensor<3xf32>, tensor<f32>
// CHECK: return %[[RA]], %[[RP]]#0, %[[RC]], %[[RP]]#1
func.func @bucket(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<2x2x2xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<2x2x2xf32>, tensor<f32>) {
  %r:4 = dist.all_reduce mean %a, %b, %c, %l {compressor = #dist.compressor<powersgd>, group = 1 : i64, powersgd_rank = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>, tensor<2x2x2xf32>, tensor<f32>
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x3xf32>, tensor<3xf32>, tensor<2x2x2xf32>, tensor<f32>
}

// -----

// Only biases: the bucket is not compressed at all. Other compressors and
// single matrices are left alone.
// CHECK-LABEL: func @untouched
// CHECK: dist.all_reduce mean %{{.*}} : tensor<3xf32>
// CHECK: dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16>} : tensor<3xf32>, tensor<4x3xf32>
// CHECK: dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<powersgd>, powersgd_rank = 1 : i64} : tensor<4x3xf32>
func.func @untouched(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = dist.all_reduce mean %b {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<3xf32>
  %1:2 = dist.all_reduce mean %b, %a {compressor = #dist.compressor<fp16>} : tensor<3xf32>, tensor<4x3xf32>
  %2 = dist.all_reduce mean %a {compressor = #dist.compressor<powersgd>, powersgd_rank = 1 : i64} : tensor<4x3xf32>
  return %0, %1#0, %1#1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
