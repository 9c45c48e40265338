// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// An embedding lookup: one generic over the result, reading the index,
// wrapping negative ones, asserting the range, extracting the row element.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @embed
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<?x8xi64>)
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: cf.assert %{{.*}}, "Gather: index out of range"
// CHECK: %[[ROW:.*]] = arith.index_cast
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %[[COL]]] : tensor<100x16xf32>
func.func @embed(%t: tensor<100x16xf32>, %ids: tensor<?x8xi64>) -> tensor<?x8x16xf32> {
  %0 = nn.gather %t, %ids : (tensor<100x16xf32>, tensor<?x8xi64>) -> tensor<?x8x16xf32>
  return %0 : tensor<?x8x16xf32>
}

// -----

// Mean and variance over the last dim, then scale and shift.
// CHECK-LABEL: func @ln
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x8x16xf32>) outs(%{{.*}} : tensor<?x8xf32>) dimensions = [2]
// CHECK: arith.subf
// CHECK: linalg.reduce
// CHECK: math.rsqrt
func.func @ln(%x: tensor<?x8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<?x8x16xf32> {
  %0 = nn.layer_norm %x, %g, %b : (tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x8x16xf32>
  return %0 : tensor<?x8x16xf32>
}
