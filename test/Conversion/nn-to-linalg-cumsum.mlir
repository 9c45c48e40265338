// nn.cumsum lowers to an scf.for over the axis carrying the output and the
// running sum of one slice; reverse counts down, exclusive writes the sum
// before the slice is added. int32 casts extend or wrap.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @cumsum_f32
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c1
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}})
// CHECK: %[[PART:.*]] = tensor.extract_slice %{{.*}}[0, %[[I]]] [%{{.*}}, 1] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[PART]] : tensor<?x1xf32>) outs(%[[ACC]] : tensor<?x1xf32>)
// CHECK: arith.addf
// CHECK: tensor.insert_slice %[[SUM]] into %[[OUT]][0, %[[I]]]
// CHECK: scf.yield
func.func @cumsum_f32(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = nn.cumsum %x {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func @cumsum_i32_reverse_exclusive
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}})
// CHECK: %[[POS:.*]] = arith.subi %{{.*}}, %[[I]]
// CHECK: tensor.extract_slice %{{.*}}[%[[POS]]] [1] [1]
// CHECK: tensor.insert_slice %[[ACC]] into %[[OUT]][%[[POS]]]
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
func.func @cumsum_i32_reverse_exclusive(%x: tensor<16xi32>) -> tensor<16xi32> {
  %0 = nn.cumsum %x {axis = 0 : i64, exclusive = true, reverse = true} : (tensor<16xi32>) -> tensor<16xi32>
  return %0 : tensor<16xi32>
}

// -----

// CHECK-LABEL: func @casts_i32
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @casts_i32(%b: tensor<4xi1>) -> tensor<4xi32> {
  %0 = nn.cast %b {to = i32} : (tensor<4xi1>) -> tensor<4xi32>
  %1 = nn.cast %0 {to = i64} : (tensor<4xi32>) -> tensor<4xi64>
  %2 = nn.cast %1 {to = i32} : (tensor<4xi64>) -> tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// An axis computed at run time: checked against the rank, then one case of
// an scf.index_switch per axis, each the static lowering.
// CHECK-LABEL: func @runtime_axis
// CHECK: %[[A:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: cf.assert %{{.*}}, "CumSum: the axis input is outside [-rank, rank)"
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: scf.index_switch %[[I]] -> tensor<4x6xf64>
// CHECK: case 0 {
// CHECK: scf.for
// CHECK: case 1 {
// CHECK: scf.for
// CHECK: default {
func.func @runtime_axis(%x: tensor<4x6xf64>, %a: tensor<i32>) -> tensor<4x6xf64> {
  %0 = nn.cumsum %x, %a {axis = 0 : i64, exclusive = false, reverse = false} : (tensor<4x6xf64>, tensor<i32>) -> tensor<4x6xf64>
  return %0 : tensor<4x6xf64>
}
