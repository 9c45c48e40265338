// Softmax/LogSoftmax along any axis and ReduceSum/Mean/Max: linalg.reduce
// over the axes, read back through maps that drop them.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func @softmax_middle_axis
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x5xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%[[X]] : tensor<?x3x5xf32>) outs(%{{.*}} : tensor<?x5xf32>) dimensions = [1]
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], {{.*}} ins(%[[X]], %[[MAX]] : tensor<?x3x5xf32>, tensor<?x5xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.reduce ins(%[[E]] : tensor<?x3x5xf32>) outs(%{{.*}} : tensor<?x5xf32>) dimensions = [1]
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], {{.*}} ins(%[[E]], %[[SUM]] : tensor<?x3x5xf32>, tensor<?x5xf32>)
// CHECK: arith.divf
func.func @softmax_middle_axis(%x: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  %0 = nn.softmax %x {axis = 1} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// CHECK-LABEL: func @log_softmax_last_axis
// CHECK: linalg.reduce {{.*}} dimensions = [1]
// CHECK: linalg.reduce {{.*}} dimensions = [1]
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: math.log
// CHECK: arith.subf
func.func @log_softmax_last_axis(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %0 = nn.log_softmax %x : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// The mean over a dynamic dim divides by its run-time size.
// CHECK-LABEL: func @reduce_mean_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[S:.*]] = linalg.reduce ins(%[[X]] : tensor<?x3xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0]
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[N64]] : i64 to f32
// CHECK: %[[CNT:.*]] = arith.mulf %[[NF]], %{{.*}} : f32
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<3xf32>)
// CHECK: arith.divf %{{.*}}, %[[CNT]] : f32
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
func.func @reduce_mean_batch(%x: tensor<?x3xf32>) -> tensor<1x3xf32> {
  %0 = nn.reduce_mean %x {axes = array<i64: 0>} : (tensor<?x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// Empty axes reduce over everything, or nothing with noop_with_empty_axes.
// CHECK-LABEL: func @reduce_max_all_and_noop
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%[[X]] : tensor<?x3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: arith.maximumf
// CHECK: %[[K:.*]] = tensor.expand_shape %[[R]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: return %[[K]], %[[X]]
func.func @reduce_max_all_and_noop(%x: tensor<?x3xf32>) -> (tensor<1x1xf32>, tensor<?x3xf32>) {
  %0 = nn.reduce_max %x : (tensor<?x3xf32>) -> tensor<1x1xf32>
  %1 = nn.reduce_sum %x {noop_with_empty_axes = true} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<1x1xf32>, tensor<?x3xf32>
}
