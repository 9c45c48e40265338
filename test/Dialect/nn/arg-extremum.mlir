// Parsing, printing and type inference of nn.arg_max and nn.arg_min (ONNX
// ArgMax, ArgMin): int64 indices, the axis kept as 1 or dropped.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @arg_forms
// CHECK: nn.arg_max %{{.*}} {axis = 1 : i64, keepdims = false} : (tensor<?x10xf32>) -> tensor<?xi64>
// CHECK: nn.arg_min %{{.*}} {axis = 0 : i64, select_last_index = true} : (tensor<?x10xf32>) -> tensor<1x10xi64>
// CHECK: nn.arg_max %{{.*}} {axis = 1 : i64, keepdims = false} : (tensor<?x16xi64>) -> tensor<?xi64>
func.func @arg_forms(%x: tensor<?x10xf32>, %ids: tensor<?x16xi64>) -> (tensor<?xi64>, tensor<1x10xi64>, tensor<?xi64>) {
  %0 = nn.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<?x10xf32>) -> tensor<?xi64>
  %1 = nn.arg_min %x {axis = 0 : i64, select_last_index = true} : (tensor<?x10xf32>) -> tensor<1x10xi64>
  %2 = nn.arg_max %ids {axis = 1 : i64, keepdims = false} : (tensor<?x16xi64>) -> tensor<?xi64>
  return %0, %1, %2 : tensor<?xi64>, tensor<1x10xi64>, tensor<?xi64>
}
