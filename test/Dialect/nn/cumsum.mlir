// Parsing, printing and type inference of nn.cumsum (ONNX CumSum) on f32
// and on int32 (RoBERTa's position ids), and int32 arithmetic and casts.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @cumsum_forms
// CHECK: nn.cumsum %{{.*}} {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK: nn.cumsum %{{.*}} {axis = 1 : i64, exclusive = true, reverse = true} : (tensor<?x16xi32>) -> tensor<?x16xi32>
func.func @cumsum_forms(%x: tensor<?x16xf32>, %m: tensor<?x16xi32>) -> (tensor<?x16xf32>, tensor<?x16xi32>) {
  %0 = nn.cumsum %x {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %1 = nn.cumsum %m {axis = 1 : i64, exclusive = true, reverse = true} : (tensor<?x16xi32>) -> tensor<?x16xi32>
  return %0, %1 : tensor<?x16xf32>, tensor<?x16xi32>
}

// -----

// CHECK-LABEL: func @int32_arith
// CHECK: nn.cast %{{.*}} {to = i32} : (tensor<?x16xi1>) -> tensor<?x16xi32>
// CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<?x16xi32>, tensor<i32>) -> tensor<?x16xi32>
// CHECK: nn.cast %{{.*}} {to = i64} : (tensor<?x16xi32>) -> tensor<?x16xi64>
func.func @int32_arith(%b: tensor<?x16xi1>, %c: tensor<i32>) -> tensor<?x16xi64> {
  %0 = nn.cast %b {to = i32} : (tensor<?x16xi1>) -> tensor<?x16xi32>
  %1 = nn.add %0, %c : (tensor<?x16xi32>, tensor<i32>) -> tensor<?x16xi32>
  %2 = nn.cast %1 {to = i64} : (tensor<?x16xi32>) -> tensor<?x16xi64>
  return %2 : tensor<?x16xi64>
}
