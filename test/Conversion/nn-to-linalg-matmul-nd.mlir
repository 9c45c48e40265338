// numpy-style nn.matmul: 2-D stays linalg.matmul (mapped to BLAS later),
// N-D x 2-D collapses the batch dims into M for one linalg.matmul, other
// shapes become one linalg.contract (a linalg.generic contraction when an
// operand broadcasts a size-1 batch dim).
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @matmul_2d
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK-NOT: linalg.generic
func.func @matmul_2d(%a: tensor<?x4xf32>, %w: tensor<4x5xf32>) -> tensor<?x5xf32> {
  %0 = nn.matmul %a, %w : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func @matmul_3d_2d
// CHECK-SAME: (%[[A:.*]]: tensor<?x3x4xf32>, %[[W:.*]]: tensor<4x5xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<?x3x4xf32> into tensor<?x4xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[C]], %[[W]] : tensor<?x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 3, 5] : tensor<?x5xf32> into tensor<?x3x5xf32>
func.func @matmul_3d_2d(%a: tensor<?x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<?x3x5xf32> {
  %0 = nn.matmul %a, %w : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// A broadcast batch dim of size 1 reads index 0.
// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d3, d2)>
// CHECK-DAG: #[[MC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_broadcast
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3x2xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x3x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[Z]] : tensor<?x3x2xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_broadcast(%a: tensor<?x3x4xf32>, %b: tensor<1x4x2xf32>) -> tensor<?x3x2xf32> {
  %0 = nn.matmul %a, %b : (tensor<?x3x4xf32>, tensor<1x4x2xf32>) -> tensor<?x3x2xf32>
  return %0 : tensor<?x3x2xf32>
}

// -----

// A 1-D lhs is a row vector whose unit dim is dropped.
// CHECK-DAG: #[[MV:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[MO:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @vector_matmul
// CHECK: linalg.contract indexing_maps = [#[[MV]], #[[MA]], #[[MO]]]
func.func @vector_matmul(%v: tensor<3xf32>, %a: tensor<?x3x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.matmul %v, %a : (tensor<3xf32>, tensor<?x3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Batched on both sides (attention scores): a linalg.contract over
// (b, h, m, n, k).
// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[MC:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @matmul_batched
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x2x8x8xf32>)
// CHECK: linalg.contract indexing_maps = [#[[MA]], #[[MB]], #[[MC]]] ins(%{{.*}}, %{{.*}} : tensor<?x2x8x16xf32>, tensor<?x2x16x8xf32>) outs(%[[Z]] : tensor<?x2x8x8xf32>)
// CHECK-NOT: linalg.generic
func.func @matmul_batched(%q: tensor<?x2x8x16xf32>, %k: tensor<?x2x16x8xf32>) -> tensor<?x2x8x8xf32> {
  %0 = nn.matmul %q, %k : (tensor<?x2x8x16xf32>, tensor<?x2x16x8xf32>) -> tensor<?x2x8x8xf32>
  return %0 : tensor<?x2x8x8xf32>
}
