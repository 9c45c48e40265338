// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @gemm_trans_b
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x32xf32>
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<32xf32>) outs(%[[E]] : tensor<?x32xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%[[X]], %[[W]] : tensor<?x64xf32>, tensor<32x64xf32>) outs(%[[BIAS]] : tensor<?x32xf32>)
func.func @gemm_trans_b(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %0 = nn.gemm %x, %w, %b {transB = true} : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// alpha != 1 scales the product, not the bias.
// CHECK-LABEL: func @gemm_alpha
// CHECK: %[[P:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4x3xf32>, tensor<3xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf
func.func @gemm_alpha(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = nn.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32} : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-DAG: #[[BC:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BC]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<4x1xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = nn.add %a, %b : (tensor<4x1xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func @relu_and_grad
// CHECK: arith.maximumf
// CHECK: arith.cmpf ogt
// CHECK: arith.select
func.func @relu_and_grad(%x: tensor<?x8xf32>, %g: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = nn.relu %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = nn.relu_grad %g, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func @shapes
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<?x8x8xf32> into tensor<?x64xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 32] : tensor<64xf32> into tensor<2x32xf32>
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x64xf32>) outs(%{{.*}} : tensor<64xf32>) dimensions = [0]
func.func @shapes(%x: tensor<?x8x8xf32>, %v: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<2x32xf32>, tensor<64xf32>) {
  %0 = nn.flatten %x : (tensor<?x8x8xf32>) -> tensor<?x64xf32>
  %1 = nn.reshape %v {shape = array<i64: 2, -1>} : (tensor<64xf32>) -> tensor<2x32xf32>
  %2 = nn.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : (tensor<?x64xf32>) -> tensor<64xf32>
  return %0, %1, %2 : tensor<?x64xf32>, tensor<2x32xf32>, tensor<64xf32>
}

// -----

// Stable softmax cross-entropy: row max, exp(x - max), row sums, the
// label's logit by a masked reduction, the mean over the dynamic batch.
// CHECK-LABEL: func @loss
// CHECK: linalg.reduce
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: linalg.index 1
// CHECK: arith.cmpi eq
// CHECK: math.log
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @loss(%l: tensor<?x10xf32>, %y: tensor<?xi64>) -> tensor<f32> {
  %0 = nn.softmax_cross_entropy_loss %l, %y : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func @sgd
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<10xf32>, tensor<10xf32>, tensor<f32>)
// CHECK: %[[S:.*]] = arith.mulf
// CHECK: arith.subf %{{.*}}, %[[S]]
func.func @sgd(%p: tensor<10xf32>, %g: tensor<10xf32>, %lr: tensor<f32>) -> tensor<10xf32> {
  %0 = nn.sgd_update %p, %g, %lr : (tensor<10xf32>, tensor<10xf32>, tensor<f32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
