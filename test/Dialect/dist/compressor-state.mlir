// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// An error-feedback all-reduce with its state: the residual goes in, its
// new value comes out after the combined tensors.
// CHECK-LABEL: func @fp16_ef
// CHECK: %[[R:.*]]:3 = dist.all_reduce mean %arg0, %arg1 state(%arg2 : tensor<15xf32>) {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>, tensor<3xf32>
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<15xf32>
func.func @fp16_ef(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %e: tensor<15xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<15xf32>) {
  %r:3 = dist.all_reduce mean %a, %b state(%e : tensor<15xf32>) {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>, tensor<3xf32>
  return %r#0, %r#1, %r#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<15xf32>
}

// -----

// PowerSGD of a 4 x (3*2) matrix at rank 8: the residual (24) and Q of
// 6 x min(8, 4, 6) = 24.
// CHECK-LABEL: func @powersgd
// CHECK: dist.all_reduce mean %arg0 state(%arg1, %arg2 : tensor<24xf32>, tensor<24xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 8 : i64} : tensor<4x3x2xf32>
func.func @powersgd(%a: tensor<4x3x2xf32>, %e: tensor<24xf32>, %q: tensor<24xf32>) -> (tensor<4x3x2xf32>, tensor<24xf32>, tensor<24xf32>) {
  %r:3 = dist.all_reduce mean %a state(%e, %q : tensor<24xf32>, tensor<24xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 8 : i64} : tensor<4x3x2xf32>
  return %r#0, %r#1, %r#2 : tensor<4x3x2xf32>, tensor<24xf32>, tensor<24xf32>
}
