// Parsing, printing and type inference of arithmetic on i64 (the index
// arithmetic exporters leave at run time) and of nn.min, nn.max, nn.abs,
// nn.mod.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @add_i64_broadcast
// CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
func.func @add_i64_broadcast(%a: tensor<?x4xi64>, %b: tensor<i64>) -> tensor<?x4xi64> {
  %0 = nn.add %a, %b : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// CHECK-LABEL: func @sub_mul_div_neg_i64
// CHECK: nn.sub
// CHECK: nn.mul
// CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK: nn.neg %{{.*}} : (tensor<3xi64>) -> tensor<3xi64>
func.func @sub_mul_div_neg_i64(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %0 = nn.sub %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %1 = nn.mul %0, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %2 = nn.div %1, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %3 = nn.neg %2 : (tensor<3xi64>) -> tensor<3xi64>
  return %3 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func @min_max_abs
// CHECK: nn.min %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK: nn.max %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK: nn.abs %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: nn.max %{{.*}}, %{{.*}} : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
func.func @min_max_abs(%a: tensor<?x4xf32>, %b: tensor<4xf32>, %i: tensor<2xi64>, %j: tensor<i64>) -> (tensor<?x4xf32>, tensor<2xi64>) {
  %0 = nn.min %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = nn.max %0, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %2 = nn.abs %1 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = nn.max %i, %j : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  return %2, %3 : tensor<?x4xf32>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func @mod_forms
// CHECK: nn.mod %{{.*}}, %{{.*}} {fmod = false} : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
// CHECK: nn.mod %{{.*}}, %{{.*}} {fmod = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @mod_forms(%a: tensor<?x4xi64>, %b: tensor<i64>, %x: tensor<4xf32>) -> (tensor<?x4xi64>, tensor<4xf32>) {
  %0 = nn.mod %a, %b {fmod = false} : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
  %1 = nn.mod %x, %x {fmod = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<?x4xi64>, tensor<4xf32>
}
