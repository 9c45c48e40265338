// nn.compare lowers to one linalg.generic with an ordered float predicate
// (NaN compares false) or a signed integer one.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @less_f32
// CHECK: linalg.generic
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
func.func @less_f32(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xi1> {
  %0 = nn.compare %a, %b {predicate = "lt"} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
  return %0 : tensor<?x4xi1>
}

// -----

// CHECK-LABEL: func @greater_equal_f32
// CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f32
func.func @greater_equal_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = nn.compare %a, %b {predicate = "ge"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func @le_gt_i64
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
func.func @le_gt_i64(%a: tensor<3xi64>, %b: tensor<3xi64>) -> (tensor<3xi1>, tensor<3xi1>) {
  %0 = nn.compare %a, %b {predicate = "le"} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %1 = nn.compare %a, %b {predicate = "gt"} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}
