// nn.gather_elements as one linalg.generic over the indices reading the data
// at the (wrapped, checked) index, and its gradient as loops over the
// indices adding each element into zeros of the data's shape.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg --canonicalize | FileCheck %s

// CHECK-LABEL: func @gather_elements
// CHECK-SAME: %[[T:.*]]: tensor<?x40x8xf32>, %[[I:.*]]: tensor<?x16x8xi64>
// CHECK: cf.assert %{{.*}}, "GatherElements: the indices are larger than the data"
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<?x16x8xi64>) outs(%{{.*}} : tensor<?x16x8xf32>)
// CHECK: cf.assert %{{.*}}, "GatherElements: index out of range"
// CHECK: tensor.extract %[[T]]
func.func @gather_elements(%t: tensor<?x40x8xf32>, %ids: tensor<?x16x8xi64>) -> tensor<?x16x8xf32> {
  %0 = nn.gather_elements %t, %ids {axis = 1 : i64} : (tensor<?x40x8xf32>, tensor<?x16x8xi64>) -> tensor<?x16x8xf32>
  return %0 : tensor<?x16x8xf32>
}

// -----

// CHECK-LABEL: func @gather_elements_grad
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: cf.assert %{{.*}}, "GatherElements: index out of range"
// CHECK: arith.addf
// CHECK: tensor.insert
func.func @gather_elements_grad(%dy: tensor<?x16x8xf32>, %ids: tensor<?x16x8xi64>, %t: tensor<?x40x8xf32>) -> tensor<?x40x8xf32> {
  %0 = nn.gather_elements_grad %dy, %ids, %t {axis = 1 : i64} : (tensor<?x16x8xf32>, tensor<?x16x8xi64>, tensor<?x40x8xf32>) -> tensor<?x40x8xf32>
  return %0 : tensor<?x40x8xf32>
}
