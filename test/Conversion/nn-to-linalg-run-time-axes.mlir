// The run-time-axes ops compute their result shape from the index vectors
// in scalar arith, assert it against the declared result type, then move
// the data: tensor.reshape for (un)squeeze, an scf.if per dim for
// ReduceSum, a gather-style linalg.generic for Slice.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @unsqueeze
// CHECK: cf.assert %{{.*}}, "Unsqueeze: an axis is out of range for rank 4"
// CHECK: cf.assert %{{.*}}, "Unsqueeze: an axis is repeated"
// CHECK: cf.assert %{{.*}}, "Unsqueeze: the run-time inputs give result dim 0 another size than the declared output shape 3x1x4x1"
// CHECK: cf.assert %{{.*}}, "Unsqueeze: the run-time inputs give result dim 3 another size than the declared output shape 3x1x4x1"
// CHECK: %[[S:.*]] = tensor.from_elements %{{.*}} : tensor<4xindex>
// CHECK: tensor.reshape %arg0(%[[S]]) : (tensor<3x4xf32>, tensor<4xindex>) -> tensor<3x1x4x1xf32>
func.func @unsqueeze(%x: tensor<3x4xf32>, %a: tensor<2xi64>) -> tensor<3x1x4x1xf32> {
  %0 = nn.unsqueeze_dynamic %x, %a {shape = array<i64: 3, 1, 4, 1>} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x1x4x1xf32>
  return %0 : tensor<3x1x4x1xf32>
}

// -----

// A dynamic result dim is not checked; i32 axes are read as index.
// CHECK-LABEL: func @squeeze
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: cf.assert %{{.*}}, "Squeeze: squeezes a dim whose size is not 1"
// CHECK-NOT: result dim 0
// CHECK: cf.assert %{{.*}}, "Squeeze: the run-time inputs give result dim 1 another size than the declared output shape ?x4"
// CHECK: tensor.reshape %arg0(%{{.*}}) : (tensor<?x1x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
func.func @squeeze(%x: tensor<?x1x4xf32>, %a: tensor<1xi32>) -> tensor<?x4xf32> {
  %0 = nn.squeeze_dynamic %x, %a {shape = array<i64: -1, 4>} : (tensor<?x1x4xf32>, tensor<1xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @reduce_sum
// CHECK: %[[A:.*]] = scf.if %{{.*}} -> (tensor<?x?x?xf32>) {
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x?x?xf32>) {{.*}} dimensions = [0]
// CHECK: } else {
// CHECK: %[[B:.*]] = scf.if %{{.*}} -> (tensor<?x?x?xf32>) {
// CHECK: linalg.reduce ins(%[[A]] : tensor<?x?x?xf32>) {{.*}} dimensions = [1]
// CHECK: %[[C:.*]] = scf.if %{{.*}} -> (tensor<?x?x?xf32>) {
// CHECK: linalg.reduce ins(%[[B]] : tensor<?x?x?xf32>) {{.*}} dimensions = [2]
// CHECK: cf.assert %{{.*}}, "ReduceSum: the axes remove another number of dims than the declared output shape 3x2"
// CHECK: tensor.reshape %[[C]](%{{.*}}) : (tensor<?x?x?xf32>, tensor<2xindex>) -> tensor<3x2xf32>
func.func @reduce_sum(%x: tensor<3x2x2xf32>, %a: tensor<1xi64>) -> tensor<3x2xf32> {
  %0 = nn.reduce_sum_dynamic %x, %a {keepdims = false, shape = array<i64: 3, 2>} : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @slice
// CHECK: cf.assert %{{.*}}, "Slice: a step is 0"
// CHECK: cf.assert %{{.*}}, "Slice: an axis is repeated"
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<6x5xf32>
func.func @slice(%x: tensor<6x5xf32>, %s: tensor<1xi64>, %e: tensor<1xi64>, %a: tensor<1xi64>, %t: tensor<1xi64>) -> tensor<3x5xf32> {
  %0 = nn.slice_dynamic %x, %s, %e, %a, %t {shape = array<i64: 3, 5>} : (tensor<6x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
