// nn.arg_max and nn.arg_min lower to one linalg.generic reducing the axis
// that carries the best value (from -inf for a max, +inf for a min) and its
// index (linalg.index of the axis); a float NaN wins over numbers.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @arg_max_rows
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BEST:.*]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[IDX:.*]] = linalg.fill ins(%[[ZERO]] : i64)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x10xf32>) outs(%[[BEST]], %[[IDX]] : tensor<?xf32>, tensor<?xi64>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[CUR:.*]]: f32, %[[AT:.*]]: i64):
// CHECK: %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[CUR]]
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: arith.select %{{.*}}, %[[X]], %[[CUR]]
// CHECK: return %[[R]]#1 : tensor<?xi64>
func.func @arg_max_rows(%x: tensor<?x10xf32>) -> tensor<?xi64> {
  %0 = nn.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<?x10xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// ArgMin of int64 with the last index among ties: from the largest int64,
// sle; keepdims expands the result.
// CHECK-LABEL: func @arg_min_last
// CHECK: arith.constant 9223372036854775807 : i64
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
// CHECK: arith.cmpi sle
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 6] : tensor<6xi64> into tensor<1x6xi64>
func.func @arg_min_last(%x: tensor<4x6xi64>) -> tensor<1x6xi64> {
  %0 = nn.arg_min %x {axis = 0 : i64, select_last_index = true} : (tensor<4x6xi64>) -> tensor<1x6xi64>
  return %0 : tensor<1x6xi64>
}
