// RUN: autodist-opt %s | FileCheck %s

// nn.pow has the base's type: an integer base takes an exponent of its own
// type or an f32 one.
// CHECK-LABEL: func @pow_types
// CHECK: nn.pow %{{.*}}, %{{.*}} : (tensor<?x4xi64>, tensor<4xi64>) -> tensor<?x4xi64>
// CHECK: nn.pow %{{.*}}, %{{.*}} : (tensor<?x4xi32>, tensor<f32>) -> tensor<?x4xi32>
func.func @pow_types(%a: tensor<?x4xi64>, %e: tensor<4xi64>, %b: tensor<?x4xi32>, %f: tensor<f32>)
    -> (tensor<?x4xi64>, tensor<?x4xi32>) {
  %0 = nn.pow %a, %e : (tensor<?x4xi64>, tensor<4xi64>) -> tensor<?x4xi64>
  %1 = nn.pow %b, %f : (tensor<?x4xi32>, tensor<f32>) -> tensor<?x4xi32>
  return %0, %1 : tensor<?x4xi64>, tensor<?x4xi32>
}
