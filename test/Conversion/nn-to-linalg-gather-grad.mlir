// nn.gather_grad as a scatter-add: loops over the indices, each adding its
// slice of the gradient into the result's (wrapped) row in place.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg --canonicalize | FileCheck %s

// CHECK-LABEL: func @embedding
// CHECK-SAME: (%[[DY:.*]]: tensor<?x8x16xf32>, %[[IDS:.*]]: tensor<?x8xi64>)
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<100x16xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[IDS]], %{{.*}} : tensor<?x8xi64>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[A0:.*]] = %[[Z]])
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[A0]])
// CHECK: %[[ID:.*]] = tensor.extract %[[IDS]][%[[I]], %[[J]]] : tensor<?x8xi64>
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[ID]]
// CHECK: %[[WRAP:.*]] = arith.select %[[NEG]]
// CHECK: %[[ROW:.*]] = arith.index_cast %[[WRAP]] : i64 to index
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[DY]][%[[I]], %[[J]], 0] [1, 1, 16] [1, 1, 1] : tensor<?x8x16xf32> to tensor<16xf32>
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[A]][%[[ROW]], 0] [1, 16] [1, 1] : tensor<100x16xf32> to tensor<16xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[PART]] : tensor<16xf32>) outs(%[[DEST]] : tensor<16xf32>)
// CHECK: arith.addf
// CHECK: %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[A]][%[[ROW]], 0] [1, 16] [1, 1]
// CHECK: scf.yield %[[NEW]]
func.func @embedding(%dy: tensor<?x8x16xf32>, %ids: tensor<?x8xi64>) -> tensor<100x16xf32> {
  %0 = nn.gather_grad %dy, %ids {axis = 0 : i64, axis_size = 100 : i64} : (tensor<?x8x16xf32>, tensor<?x8xi64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// Along an inner axis the slices are strided ([N, 5] at row `ids[j]`).
// CHECK-LABEL: func @inner_axis
// CHECK-SAME: (%[[DY:.*]]: tensor<?x3x5xf32>, %[[IDS:.*]]: tensor<3xi64>)
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<?x7x5xf32>)
// CHECK: tensor.extract %[[IDS]][%[[J]]]
// CHECK: tensor.extract_slice %[[DY]][0, %[[J]], 0] [%{{.*}}, 1, 5] [1, 1, 1] : tensor<?x3x5xf32> to tensor<?x5xf32>
// CHECK: tensor.extract_slice %[[A]][0, %{{.*}}, 0] [%{{.*}}, 1, 5] [1, 1, 1] : tensor<?x7x5xf32> to tensor<?x5xf32>
func.func @inner_axis(%dy: tensor<?x3x5xf32>, %ids: tensor<3xi64>) -> tensor<?x7x5xf32> {
  %0 = nn.gather_grad %dy, %ids {axis = 1 : i64, axis_size = 7 : i64} : (tensor<?x3x5xf32>, tensor<3xi64>) -> tensor<?x7x5xf32>
  return %0 : tensor<?x7x5xf32>
}
