// nn.range lowers to max(ceildiv(limit - start, delta), 0) elements
// start + i * delta (a linalg.generic over linalg.index), stopping the
// program on a delta of 0; a gather along a dynamic axis bounds its
// indices by the run-time size.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @range
// CHECK: cf.assert %{{.*}}, "Range: delta is 0"
// CHECK: %[[Q:.*]] = arith.ceildivsi
// CHECK: %[[N:.*]] = arith.maxsi %[[Q]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?xi64>)
// CHECK: linalg.index 0
// CHECK: arith.muli
// CHECK: arith.addi
func.func @range(%s: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>) -> tensor<?xi64> {
  %r = nn.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

// CHECK-LABEL: func @gather_dynamic_axis
// CHECK: %[[ROWS:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x10xf32>
// CHECK: linalg.generic
// CHECK: arith.index_cast %[[ROWS]] : index to i64
// CHECK: cf.assert %{{.*}}, "Gather: index out of range"
func.func @gather_dynamic_axis(%flat: tensor<?x10xf32>, %i: tensor<3xi64>) -> tensor<3x10xf32> {
  %g = nn.gather %flat, %i {axis = 0 : i64} : (tensor<?x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return %g : tensor<3x10xf32>
}
