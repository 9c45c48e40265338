// RUN: autodist-opt %s -split-input-file --convert-linalg-to-blas | FileCheck %s

// CHECK-LABEL: func @plain
// CHECK-SAME: (%[[A:.*]]: memref<?x8xf32>, %[[B:.*]]: memref<8x3xf32>, %[[C:.*]]: memref<?x3xf32>)
// CHECK: %[[CA:.*]] = memref.cast %[[A]] : memref<?x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: %[[TA:.*]] = arith.constant 0 : i32
// CHECK: %[[TB:.*]] = arith.constant 0 : i32
// CHECK: %[[ALPHA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @autodist_rt_sgemm(%[[CA]], %[[CB]], %[[CC]], %[[TA]], %[[TB]], %[[ALPHA]], %[[BETA]])
// CHECK-NOT: linalg.matmul
func.func @plain(%a: memref<?x8xf32>, %b: memref<8x3xf32>, %c: memref<?x3xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x3xf32>) outs(%c : memref<?x3xf32>)
  return
}

// -----

// Transposes come from the indexing maps: A^T (k, m) and B^T (n, k).
// CHECK-LABEL: func @transposed
// CHECK: %[[TA:.*]] = arith.constant 1 : i32
// CHECK: %[[TB:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[TA]], %[[TB]],
// CHECK: func.func private @autodist_rt_sgemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32) attributes {llvm.emit_c_interface}
func.func @transposed(%a: memref<8x4xf32>, %b: memref<3x8xf32>, %c: memref<4x3xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8x4xf32>, memref<3x8xf32>) outs(%c : memref<4x3xf32>)
  return
}

// -----

// Not f32 (or still on tensors): left for the loop lowering.
// CHECK-LABEL: func @other_types
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @other_types(%a: memref<4x8xf64>, %b: memref<8x3xf64>, %c: memref<4x3xf64>, %t: tensor<4x8xf32>, %u: tensor<8x3xf32>, %v: tensor<4x3xf32>) -> tensor<4x3xf32> {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x3xf64>) outs(%c : memref<4x3xf64>)
  %0 = linalg.matmul ins(%t, %u : tensor<4x8xf32>, tensor<8x3xf32>) outs(%v : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
