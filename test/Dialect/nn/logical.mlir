// Parsing, printing and type inference of nn.logical (ONNX And, Or, Xor)
// and nn.not.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @logical_broadcast
// CHECK: nn.logical %{{.*}}, %{{.*}} {kind = "and"} : (tensor<?x4xi1>, tensor<4xi1>) -> tensor<?x4xi1>
// CHECK: nn.logical %{{.*}}, %{{.*}} {kind = "or"}
// CHECK: nn.logical %{{.*}}, %{{.*}} {kind = "xor"}
// CHECK: nn.not %{{.*}} : (tensor<?x4xi1>) -> tensor<?x4xi1>
func.func @logical_broadcast(%a: tensor<?x4xi1>, %b: tensor<4xi1>) -> tensor<?x4xi1> {
  %0 = nn.logical %a, %b {kind = "and"} : (tensor<?x4xi1>, tensor<4xi1>) -> tensor<?x4xi1>
  %1 = nn.logical %0, %b {kind = "or"} : (tensor<?x4xi1>, tensor<4xi1>) -> tensor<?x4xi1>
  %2 = nn.logical %1, %a {kind = "xor"} : (tensor<?x4xi1>, tensor<?x4xi1>) -> tensor<?x4xi1>
  %3 = nn.not %2 : (tensor<?x4xi1>) -> tensor<?x4xi1>
  return %3 : tensor<?x4xi1>
}
