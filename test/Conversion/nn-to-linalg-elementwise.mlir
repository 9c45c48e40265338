// Elementwise ops of the ONNX coverage: arith/math bodies in linalg.generic.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// math.erf has no LLVM lowering: erf is a rational approximation in arith
// on the input clamped to [-4, 4].
// CHECK-LABEL: func @erf
// CHECK: linalg.generic
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf
// CHECK-NOT: math.erf
func.func @erf(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.erf %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: math.tanh
// CHECK: arith.constant 5.000000e-01 : f32
func.func @gelu_tanh(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.gelu %x {approximate = "tanh"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @unary
// CHECK: math.sqrt
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: math.log
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: math.powf
// CHECK: arith.divf
func.func @unary(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = nn.sqrt %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = nn.neg %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = nn.exp %1 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = nn.log %2 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = nn.leaky_relu %3 {alpha = 0.2 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %5 = nn.pow %4, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %6 = nn.div %5, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %6 : tensor<?x4xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @cast_equal_where_dropout
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[K:.*]]: tensor<4xi64>)
// CHECK: %[[I:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x4xf32>) outs(%{{.*}} : tensor<?x4xi64>)
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: %[[EQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], {{.*}} ins(%[[I]], %[[K]] : tensor<?x4xi64>, tensor<4xi64>) outs(%{{.*}} : tensor<?x4xi1>)
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%[[EQ]] : tensor<?x4xi1>)
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%[[EQ]], %[[X]], %[[F]] : tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[MASK:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<?x4xi1>)
// CHECK: return %[[W]], %[[MASK]]
func.func @cast_equal_where_dropout(%x: tensor<?x4xf32>, %k: tensor<4xi64>) -> (tensor<?x4xf32>, tensor<?x4xi1>) {
  %0 = nn.cast %x {to = i64} : (tensor<?x4xf32>) -> tensor<?x4xi64>
  %1 = nn.equal %0, %k : (tensor<?x4xi64>, tensor<4xi64>) -> tensor<?x4xi1>
  %2 = nn.cast %1 {to = f32} : (tensor<?x4xi1>) -> tensor<?x4xf32>
  %3 = nn.where %1, %x, %2 : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %4, %5 = nn.dropout %3 : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  return %4, %5 : tensor<?x4xf32>, tensor<?x4xi1>
}

// -----

// To bool is x != 0 (unordered, so NaN is true); i1 to i64 zero-extends.
// CHECK-LABEL: func @casts_to_bool
// CHECK: arith.cmpf une
// CHECK: arith.extui %{{.*}} : i1 to i64
func.func @casts_to_bool(%x: tensor<4xf32>) -> tensor<4xi64> {
  %0 = nn.cast %x {to = i1} : (tensor<4xf32>) -> tensor<4xi1>
  %1 = nn.cast %0 {to = i64} : (tensor<4xi1>) -> tensor<4xi64>
  return %1 : tensor<4xi64>
}
