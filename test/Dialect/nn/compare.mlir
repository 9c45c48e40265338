// Parsing, printing and type inference of nn.compare (ONNX Less, Greater,
// LessOrEqual, GreaterOrEqual).
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @compare_f32_broadcast
// CHECK: nn.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
func.func @compare_f32_broadcast(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xi1> {
  %0 = nn.compare %a, %b {predicate = "lt"} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
  return %0 : tensor<?x4xi1>
}

// -----

// CHECK-LABEL: func @compare_i64
// CHECK: nn.compare %{{.*}}, %{{.*}} {predicate = "ge"} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
func.func @compare_i64(%a: tensor<3xi64>, %b: tensor<i64>) -> tensor<3xi1> {
  %0 = nn.compare %a, %b {predicate = "ge"} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
