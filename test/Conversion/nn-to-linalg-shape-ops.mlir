// Transpose, Squeeze, Unsqueeze and Concat: linalg.transpose, reshapes,
// and per-operand copies into slices of the result.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x5xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x5xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<5x?x4xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<?x4x5xf32>) outs(%[[E]] : tensor<5x?x4xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<?x4x5xf32>) -> tensor<5x?x4xf32> {
  %0 = nn.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<?x4x5xf32>) -> tensor<5x?x4xf32>
  return %0 : tensor<5x?x4xf32>
}

// -----

// CHECK-LABEL: func @squeeze_unsqueeze
// CHECK: %[[S:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<?x1x4xf32> into tensor<?x4xf32>
// CHECK: tensor.expand_shape %[[S]] {{\[\[}}0], [1, 2, 3]] output_shape [%{{.*}}, 1, 4, 1] : tensor<?x4xf32> into tensor<?x1x4x1xf32>
func.func @squeeze_unsqueeze(%x: tensor<?x1x4xf32>) -> tensor<?x1x4x1xf32> {
  %0 = nn.squeeze %x {axes = array<i64: 1>} : (tensor<?x1x4xf32>) -> tensor<?x4xf32>
  %1 = nn.unsqueeze %0 {axes = array<i64: 1, 3>} : (tensor<?x4xf32>) -> tensor<?x1x4x1xf32>
  return %1 : tensor<?x1x4x1xf32>
}

// -----

// CHECK-LABEL: func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x3xf32>)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x7xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0] [%{{.*}}, 4] [1, 1] : tensor<?x7xf32> to tensor<?x4xf32>
// CHECK: %[[C0:.*]] = linalg.copy ins(%[[A]] : tensor<?x4xf32>) outs(%[[S0]] : tensor<?x4xf32>)
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [%{{.*}}, 4] [1, 1]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[I0]][0, 4] [%{{.*}}, 3] [1, 1] : tensor<?x7xf32> to tensor<?x3xf32>
// CHECK: %[[C1:.*]] = linalg.copy ins(%[[B]] : tensor<?x3xf32>) outs(%[[S1]] : tensor<?x3xf32>)
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[C1]] into %[[I0]][0, 4] [%{{.*}}, 3] [1, 1]
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<?x4xf32>, %b: tensor<?x3xf32>) -> tensor<?x7xf32> {
  %0 = nn.concat %a, %b {axis = -1} : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x7xf32>
  return %0 : tensor<?x7xf32>
}

// -----

// Along the dynamic axis the offset of the second operand is the run-time
// size of the first.
// CHECK-LABEL: func @concat_batch
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[T:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK: tensor.empty(%[[T]]) : tensor<?x4xf32>
// CHECK: %[[N1:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[%[[N1]], 0] [2, 4] [1, 1] : tensor<?x4xf32> to tensor<2x4xf32>
func.func @concat_batch(%a: tensor<?x4xf32>, %b: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.concat %a, %b {axis = 0} : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
