// nn.embedding_bag and its gradient as loops over the bags and, within a
// bag, over its ids, reading (or adding into) one table row per id; the
// offsets and ids are checked where they are read.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg --canonicalize | FileCheck %s

// A mean: the rows are summed into the bag's row of the result, then
// scaled by 1 / max(size, 1) (an empty bag stays 0).
// CHECK-LABEL: func @mean
// CHECK-SAME: (%[[T:.*]]: tensor<100x16xf32>, %[[IDS:.*]]: tensor<?xi64>, %[[OFF:.*]]: tensor<?xi64>)
// CHECK: %[[B:.*]] = tensor.dim %[[OFF]], %{{.*}} : tensor<?xi64>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x16xf32>)
// CHECK: scf.for %[[BAG:.*]] = %{{.*}} to %[[B]] step %{{.*}} iter_args(%[[OUT:.*]] = %[[Z]])
// CHECK: %[[S:.*]] = tensor.extract %[[OFF]][%[[BAG]]]
// CHECK: %[[START:.*]] = arith.index_cast %[[S]] : i64 to index
// CHECK: cf.assert %{{.*}}, "EmbeddingBag: offsets must be non-decreasing and within the number of ids"
// CHECK: %[[ACC0:.*]] = tensor.extract_slice %[[OUT]][%[[BAG]], 0] [1, 16] [1, 1] : tensor<?x16xf32> to tensor<16xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = %[[START]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]])
// CHECK: tensor.extract %[[IDS]][%[[J]]]
// CHECK: cf.assert %{{.*}}, "EmbeddingBag: id out of range"
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[T]][%{{.*}}, 0] [1, 16] [1, 1] : tensor<100x16xf32> to tensor<16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[ROW]] : tensor<16xf32>) outs(%[[ACC]] : tensor<16xf32>)
// CHECK: arith.addf
// CHECK: arith.maxsi
// CHECK: arith.divf
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} outs(%[[SUM]] : tensor<16xf32>)
// CHECK: arith.mulf
// CHECK: tensor.insert_slice %[[MEAN]] into %[[OUT]][%[[BAG]], 0] [1, 16] [1, 1]
func.func @mean(%t: tensor<100x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>) -> tensor<?x16xf32> {
  %0 = nn.embedding_bag %t, %ids, %o {mode = "mean"} : (tensor<100x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// include_last_offset: one bag fewer than offsets; a max takes the first
// row as it is, then the maximum.
// CHECK-LABEL: func @max_last
// CHECK-SAME: %[[OFF:[a-z0-9]+]]: tensor<?xi32>)
// CHECK: %[[K:.*]] = tensor.dim %[[OFF]]
// CHECK: cf.assert %{{.*}}, "EmbeddingBag: include_last_offset needs an offset"
// CHECK: %[[B:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[B]]
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: scf.for %[[J:.*]] = %[[START:.*]] to
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[J]], %[[START]] : index
// CHECK: linalg.generic
// CHECK: %[[M:.*]] = arith.maximumf
// CHECK: arith.select %[[FIRST]], %{{.*}}, %[[M]] : f32
func.func @max_last(%t: tensor<100x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi32>) -> tensor<?x16xf32> {
  %0 = nn.embedding_bag %t, %ids, %o {mode = "max", include_last_offset = true} : (tensor<100x16xf32>, tensor<?xi64>, tensor<?xi32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// The gradient of a sum adds the bag's gradient row into each id's row.
// CHECK-LABEL: func @grad_sum
// CHECK-SAME: (%[[DY:.*]]: tensor<?x16xf32>,
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<100x16xf32>)
// CHECK: scf.for %[[BAG:.*]] = %{{.*}} iter_args(%[[DW0:.*]] = %[[Z]])
// CHECK: %[[G:.*]] = tensor.extract_slice %[[DY]][%[[BAG]], 0] [1, 16] [1, 1]
// CHECK: scf.for %{{.*}} iter_args(%[[DW:.*]] = %[[DW0]])
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[DW]][%[[ROW:.*]], 0] [1, 16] [1, 1] : tensor<100x16xf32> to tensor<16xf32>
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<16xf32>) outs(%[[DEST]] : tensor<16xf32>)
// CHECK: tensor.insert_slice %[[NEW]] into %[[DW]][%[[ROW]], 0] [1, 16] [1, 1]
func.func @grad_sum(%dy: tensor<?x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>) -> tensor<100x16xf32> {
  %0 = nn.embedding_bag_grad %dy, %ids, %o {mode = "sum", num_rows = 100 : i64} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// The gradient of a max: each element to the bag's first row equal to the
// forward maximum, a per-element "taken" row carried over the bag's ids.
// CHECK-LABEL: func @grad_max
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<100x16xf32>, %[[Y:[a-z0-9]+]]: tensor<?x16xf32>)
// CHECK: scf.for %[[BAG:.*]] = %{{.*}} iter_args(%[[DW0:.*]] = %{{.*}})
// CHECK: %[[YROW:.*]] = tensor.extract_slice %[[Y]][%[[BAG]], 0]
// CHECK: %[[TAKEN0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16xf32>)
// CHECK: scf.for %{{.*}} iter_args(%[[DW:.*]] = %[[DW0]], %[[TAKEN:.*]] = %[[TAKEN0]])
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[DW]]
// CHECK: %[[TROW:.*]] = tensor.extract_slice %[[T]]
// CHECK: linalg.generic {{.*}} ins(%[[TROW]], %[[YROW]], %{{.*}} : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%[[DEST]], %[[TAKEN]] : tensor<16xf32>, tensor<16xf32>)
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf oeq
// CHECK: arith.andi
func.func @grad_max(%dy: tensor<?x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>, %t: tensor<100x16xf32>, %y: tensor<?x16xf32>) -> tensor<100x16xf32> {
  %0 = nn.embedding_bag_grad %dy, %ids, %o, %t, %y {mode = "max", num_rows = 100 : i64} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>, tensor<100x16xf32>, tensor<?x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}
