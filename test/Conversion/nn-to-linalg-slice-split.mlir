// Slice, Split, Expand, Trilu and Slice's gradient: extract_slice views
// for positive steps, a generic reading start + step * i for negative ones,
// zeros plus insert_slice for the gradient, broadcasting and index-masking
// generics.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @slice_positive
// CHECK-SAME: (%[[X:.*]]: tensor<?x6x8xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x6x8xf32>
// CHECK: tensor.extract_slice %[[X]][0, 1, 0] [%[[N]], 2, 3] [1, 2, 3] : tensor<?x6x8xf32> to tensor<?x2x3xf32>
func.func @slice_positive(%x: tensor<?x6x8xf32>) -> tensor<?x2x3xf32> {
  %0 = nn.slice %x {starts = array<i64: 1, -8>, ends = array<i64: -1, 9223372036854775807>, axes = array<i64: 1, 2>, steps = array<i64: 2, 3>} : (tensor<?x6x8xf32>) -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// -----

// CHECK: #[[READ:.*]] = affine_map<(d0, d1) -> (d0 * -2 + 5, d1 * -3 + 7)>
// CHECK-LABEL: func @slice_negative
// CHECK: linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<6x8xf32>) outs(%{{.*}} : tensor<2x3xf32>)
func.func @slice_negative(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  %0 = nn.slice %x {starts = array<i64: -1, 100>, ends = array<i64: -9223372036854775807, 2>, axes = array<i64: -1, 0>, steps = array<i64: -3, -2>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The gradient of a negative-step slice is reversed, then inserted from
// the last position read (index 1 along dim 1) with stride 3.
// CHECK: #[[FLIP:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 2)>
// CHECK-LABEL: func @slice_grad
// CHECK-SAME: (%[[G:.*]]: tensor<?x3xf32>, %[[X:.*]]: tensor<?x8xf32>)
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}]{{.*}} ins(%[[G]] : tensor<?x3xf32>)
// CHECK: tensor.insert_slice %[[R]] into %[[Z]][0, 1] [%{{.*}}, 3] [1, 3] : tensor<?x3xf32> into tensor<?x8xf32>
func.func @slice_grad(%g: tensor<?x3xf32>, %x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = nn.slice_grad %g, %x {starts = array<i64: -1>, ends = array<i64: 0>, axes = array<i64: 1>, steps = array<i64: -3>} : (tensor<?x3xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func @split
// CHECK-SAME: (%[[X:.*]]: tensor<?x7xf32>)
// CHECK: tensor.extract_slice %[[X]][0, 0] [%{{.*}}, 2] [1, 1] : tensor<?x7xf32> to tensor<?x2xf32>
// CHECK: tensor.extract_slice %[[X]][0, 2] [%{{.*}}, 4] [1, 1] : tensor<?x7xf32> to tensor<?x4xf32>
// CHECK: tensor.extract_slice %[[X]][0, 6] [%{{.*}}, 1] [1, 1] : tensor<?x7xf32> to tensor<?x1xf32>
func.func @split(%x: tensor<?x7xf32>) -> (tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x1xf32>) {
  %0:3 = nn.split %x {axis = 1 : i64, sizes = array<i64: 2, 4, 1>} : (tensor<?x7xf32>) -> (tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x1xf32>
}

// -----

// CHECK: #[[BC:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @expand
// CHECK: linalg.generic {indexing_maps = [#[[BC]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @expand(%w: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.expand %w {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @trilu
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK: %[[K:.*]] = arith.constant -1 : index
// CHECK: %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %[[K]] : index
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: arith.select %[[KEEP]], %{{.*}}, %[[F]] : i1
func.func @trilu(%m: tensor<?x3x4xi1>) -> tensor<?x3x4xi1> {
  %0 = nn.trilu %m {upper = false, k = -1 : i64} : (tensor<?x3x4xi1>) -> tensor<?x3x4xi1>
  return %0 : tensor<?x3x4xi1>
}

// -----

// An empty slice (its start clamped to the end of the dim) is an empty
// tensor: tensor.extract_slice would reject the offset.
// CHECK-LABEL: func @slice_empty
// CHECK-SAME: (%[[X:.*]]: tensor<?x10xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x10xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x0xf32>
// CHECK: return %[[E]]
func.func @slice_empty(%x: tensor<?x10xf32>) -> tensor<?x0xf32> {
  %0 = nn.slice %x {starts = array<i64: 1000>, ends = array<i64: 1001>, axes = array<i64: 1>, steps = array<i64: 1>} : (tensor<?x10xf32>) -> tensor<?x0xf32>
  return %0 : tensor<?x0xf32>
}
