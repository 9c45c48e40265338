// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @gather_elements
// CHECK: nn.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x40x8xf32>, tensor<?x16x8xi64>) -> tensor<?x16x8xf32>
// CHECK: nn.gather_elements %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<3x5xi64>, tensor<2x7xi32>) -> tensor<2x7xi64>
// CHECK: nn.gather_elements_grad %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x16x8xf32>, tensor<?x16x8xi64>, tensor<?x40x8xf32>) -> tensor<?x40x8xf32>
func.func @gather_elements(%t: tensor<?x40x8xf32>, %ids: tensor<?x16x8xi64>,
                           %d: tensor<3x5xi64>, %i: tensor<2x7xi32>)
    -> (tensor<?x16x8xf32>, tensor<2x7xi64>, tensor<?x40x8xf32>) {
  %0 = nn.gather_elements %t, %ids {axis = 1 : i64} : (tensor<?x40x8xf32>, tensor<?x16x8xi64>) -> tensor<?x16x8xf32>
  %1 = nn.gather_elements %d, %i {axis = -1 : i64} : (tensor<3x5xi64>, tensor<2x7xi32>) -> tensor<2x7xi64>
  %2 = nn.gather_elements_grad %0, %ids, %t {axis = 1 : i64} : (tensor<?x16x8xf32>, tensor<?x16x8xi64>, tensor<?x40x8xf32>) -> tensor<?x40x8xf32>
  return %0, %1, %2 : tensor<?x16x8xf32>, tensor<2x7xi64>, tensor<?x40x8xf32>
}
