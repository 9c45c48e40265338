// Integer arithmetic, min/max/abs/mod and boolean ops lower to one
// linalg.generic each with arith (and math.absi) bodies; integer division
// and remainder never trap (a zero or -1 divisor is replaced before the
// division and its result selected).
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @add_sub_mul_i64
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: arith.subi %{{.*}}, %{{.*}} : i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
func.func @add_sub_mul_i64(%a: tensor<?x4xi64>, %b: tensor<i64>) -> tensor<?x4xi64> {
  %0 = nn.add %a, %b : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
  %1 = nn.sub %0, %b : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi64>
  %2 = nn.mul %1, %a : (tensor<?x4xi64>, tensor<?x4xi64>) -> tensor<?x4xi64>
  return %2 : tensor<?x4xi64>
}

// -----

// CHECK-LABEL: func @div_i64
// CHECK: linalg.generic
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[D:.*]], %c0
// CHECK: %[[M:.*]] = arith.cmpi eq, %[[D]], %c-1
// CHECK: %[[S:.*]] = arith.ori %[[Z]], %[[M]]
// CHECK: %[[SAFE:.*]] = arith.select %[[S]], %c1{{.*}}, %[[D]]
// CHECK: arith.divsi %{{.*}}, %[[SAFE]] : i64
// CHECK: arith.select %[[Z]]
func.func @div_i64(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %0 = nn.div %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func @mod_python_sign
// CHECK: arith.remsi
// CHECK: arith.xori
// CHECK: arith.addi
// CHECK-LABEL: func @mod_c_sign
// CHECK: arith.remsi
// CHECK-NOT: arith.xori
// CHECK: linalg.yield
// CHECK-LABEL: func @mod_float
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
func.func @mod_python_sign(%a: tensor<3xi64>, %b: tensor<i64>) -> tensor<3xi64> {
  %0 = nn.mod %a, %b {fmod = false} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
func.func @mod_c_sign(%a: tensor<3xi64>, %b: tensor<i64>) -> tensor<3xi64> {
  %0 = nn.mod %a, %b {fmod = true} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
func.func @mod_float(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = nn.mod %a, %b {fmod = true} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @min_max_abs_neg
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK: math.absi %{{.*}} : i64
// CHECK: math.absf %{{.*}} : f32
// CHECK: arith.subi %{{.*}}, %{{.*}} : i64
func.func @min_max_abs_neg(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0 = nn.min %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.max %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = nn.abs %1 : (tensor<4xi64>) -> tensor<4xi64>
  %3 = nn.abs %0 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = nn.neg %2 : (tensor<4xi64>) -> tensor<4xi64>
  return %3, %4 : tensor<4xf32>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func @logical
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: arith.xori %{{.*}}, %{{.*}} : i1
// CHECK: arith.xori %{{.*}}, %true : i1
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = nn.logical %a, %b {kind = "and"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = nn.logical %0, %b {kind = "or"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = nn.logical %1, %a {kind = "xor"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = nn.not %2 : (tensor<4xi1>) -> tensor<4xi1>
  return %3 : tensor<4xi1>
}
