// nn.shape becomes tensor.from_elements of the dims; nn.expand sizes its
// run-time dims from `sizes`; nn.reshape with `sizes` asserts that the
// run-time shape agrees with the import-time one.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @shape
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[I:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[C:.*]] = arith.constant 16 : i64
// CHECK: tensor.from_elements %[[I]], %[[C]] : tensor<2xi64>
func.func @shape(%x: tensor<?x16xf32>) -> tensor<2xi64> {
  %0 = nn.shape %x {start = 0, end = 2} : (tensor<?x16xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @expand_sizes
// CHECK: %[[E:.*]] = tensor.extract %{{.*}}[%c0] : tensor<3xi64>
// CHECK: %[[N:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK: tensor.empty(%[[N]]) : tensor<?x1x8xf32>
// CHECK: linalg.generic
func.func @expand_sizes(%cls: tensor<1x1x8xf32>, %s: tensor<3xi64>) -> tensor<?x1x8xf32> {
  %0 = nn.expand %cls, %s {shape = array<i64: -1, 1, 1>} : (tensor<1x1x8xf32>, tensor<3xi64>) -> tensor<?x1x8xf32>
  return %0 : tensor<?x1x8xf32>
}

// -----

// CHECK-LABEL: func @reshape_checked
// CHECK: tensor.expand_shape
// CHECK: cf.assert %{{.*}}, "Reshape: the shape read at run time disagrees with the one resolved at import, dim 0"
// CHECK: cf.assert %{{.*}}, "Reshape: the shape read at run time disagrees with the one resolved at import, dim 3"
func.func @reshape_checked(%x: tensor<?x16x16xf32>, %s: tensor<4xi64>) -> tensor<?x16x2x8xf32> {
  %0 = nn.reshape %x, %s {shape = array<i64: -1, 16, 2, 8>} : (tensor<?x16x16xf32>, tensor<4xi64>) -> tensor<?x16x2x8xf32>
  return %0 : tensor<?x16x2x8xf32>
}
