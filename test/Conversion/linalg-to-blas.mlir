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

// -----

// Batched: the batch dim becomes a loop around one sgemm on 2-D subviews.
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[A:.*]]: memref<5x4x8xf32>, %[[B:.*]]: memref<5x8x3xf32>, %[[C:.*]]: memref<5x4x3xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C5]] step %[[C1]] {
// CHECK: %[[SA:.*]] = memref.subview %[[A]][%[[I]], 0, 0] [1, 4, 8] [1, 1, 1] : memref<5x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK: %[[CA:.*]] = memref.cast %[[SA]]
// CHECK: %[[SB:.*]] = memref.subview %[[B]][%[[I]], 0, 0] [1, 8, 3] [1, 1, 1]
// CHECK: %[[SC:.*]] = memref.subview %[[C]][%[[I]], 0, 0] [1, 4, 3] [1, 1, 1]
// CHECK: %[[TA:.*]] = arith.constant 0 : i32
// CHECK: %[[TB:.*]] = arith.constant 0 : i32
// CHECK: call @autodist_rt_sgemm(%[[CA]], %{{.*}}, %{{.*}}, %[[TA]], %[[TB]],
// CHECK-NOT: linalg.
func.func @batched(%a: memref<5x4x8xf32>, %b: memref<5x8x3xf32>, %c: memref<5x4x3xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<5x4x8xf32>, memref<5x8x3xf32>) outs(%c : memref<5x4x3xf32>)
  return
}

// -----

// A contraction with a transposed, broadcast operand (im2col convolution:
// [M, K] x [N, K, P] -> [N, M, P]) loops over N and reads the weight whole.
// CHECK-LABEL: func @broadcast
// CHECK-SAME: (%[[W:.*]]: memref<6x25xf32>, %[[X:.*]]: memref<?x25x100xf32>, %[[Y:.*]]: memref<?x6x100xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x25x100xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step
// CHECK: %[[CW:.*]] = memref.cast %[[W]]
// CHECK: memref.subview %[[X]][%[[I]], 0, 0] [1, 25, 100] [1, 1, 1]
// CHECK: memref.subview %[[Y]][%[[I]], 0, 0] [1, 6, 100] [1, 1, 1]
// CHECK: call @autodist_rt_sgemm(%[[CW]],
func.func @broadcast(%w: memref<6x25xf32>, %x: memref<?x25x100xf32>, %y: memref<?x6x100xf32>) {
  linalg.contract indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>]
      ins(%w, %x : memref<6x25xf32>, memref<?x25x100xf32>) outs(%y : memref<?x6x100xf32>)
  return
}

// -----

// A reduced batch dim (weight gradient dw = sum_n dy[n] col[n]^T) loops
// over n, every sgemm accumulating into the whole of C; B is read
// transposed.
// CHECK-LABEL: func @batch_reduce
// CHECK-SAME: (%[[DY:.*]]: memref<?x6x100xf32>, %[[COL:.*]]: memref<?x25x100xf32>, %[[DW:.*]]: memref<6x25xf32>)
// CHECK: scf.for %[[I:.*]] =
// CHECK: memref.subview %[[DY]][%[[I]], 0, 0] [1, 6, 100] [1, 1, 1]
// CHECK: memref.subview %[[COL]][%[[I]], 0, 0] [1, 25, 100] [1, 1, 1]
// CHECK: %[[CDW:.*]] = memref.cast %[[DW]]
// CHECK: %[[TA:.*]] = arith.constant 0 : i32
// CHECK: %[[TB:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %[[CDW]], %[[TA]], %[[TB]],
func.func @batch_reduce(%dy: memref<?x6x100xf32>, %col: memref<?x25x100xf32>, %dw: memref<6x25xf32>) {
  linalg.contract indexing_maps = [affine_map<(m, q, n, p) -> (n, m, p)>, affine_map<(m, q, n, p) -> (n, q, p)>, affine_map<(m, q, n, p) -> (m, q)>]
      ins(%dy, %col : memref<?x6x100xf32>, memref<?x25x100xf32>) outs(%dw : memref<6x25xf32>)
  return
}

// -----

// C transposed ([n, m]): computed as C^T = B^T A^T, so B supplies C's rows.
// CHECK-LABEL: func @transposed_result
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x3xf32>, %[[C:.*]]: memref<3x4xf32>)
// CHECK: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: %[[CA:.*]] = memref.cast %[[A]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: %[[TX:.*]] = arith.constant 1 : i32
// CHECK: %[[TY:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_sgemm(%[[CB]], %[[CA]], %[[CC]], %[[TX]], %[[TY]],
func.func @transposed_result(%a: memref<4x8xf32>, %b: memref<8x3xf32>, %c: memref<3x4xf32>) {
  linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>]
      ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<3x4xf32>)
  return
}

// -----

// A matrix-vector product has no n dim: left for the loop lowering.
// CHECK-LABEL: func @matvec
// CHECK: linalg.matvec
// CHECK-NOT: call
func.func @matvec(%a: memref<4x8xf32>, %x: memref<8xf32>, %y: memref<4xf32>) {
  linalg.matvec ins(%a, %x : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// C zero-filled just before: the fill goes and the sgemm overwrites C
// (beta = 0).
// CHECK-LABEL: func @zero_filled
// CHECK-NOT: linalg.fill
// CHECK: %[[ALPHA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %[[BETA]])
func.func @zero_filled(%a: memref<4x8xf32>, %b: memref<8x3xf32>) -> memref<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x3xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return %c : memref<4x3xf32>
}

// -----

// C a copy of a zero-filled buffer (one fill shared by two contractions
// after CSE, copied by bufferization): both copies and the fill go, both
// sgemm calls overwrite their C.
// CHECK-LABEL: func @zero_copies
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BETA]])
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BETA2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BETA2]])
func.func @zero_copies(%a: memref<4x8xf32>, %b: memref<8x3xf32>, %c1: memref<4x3xf32>, %c2: memref<4x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x3xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x3xf32>)
  memref.copy %z, %c1 : memref<4x3xf32> to memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c1 : memref<4x3xf32>)
  memref.copy %z, %c2 : memref<4x3xf32> to memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c2 : memref<4x3xf32>)
  return
}

// -----

// Kept: a reduced loop outside the sgemm (each call adds into all of C), a
// nonzero fill, and a C read after its fill.
// CHECK-LABEL: func @accumulating
// CHECK: linalg.fill
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BETA]])
// CHECK: linalg.fill
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BETA2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BETA2]])
// CHECK: linalg.fill
// CHECK: memref.load
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BETA3:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: call @autodist_rt_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BETA3]])
func.func @accumulating(%dy: memref<?x6x100xf32>, %col: memref<?x25x100xf32>, %dw: memref<6x25xf32>, %a: memref<4x8xf32>, %b: memref<8x3xf32>, %c: memref<4x3xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %i0 = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%dw : memref<6x25xf32>)
  linalg.contract indexing_maps = [affine_map<(m, q, n, p) -> (n, m, p)>, affine_map<(m, q, n, p) -> (n, q, p)>, affine_map<(m, q, n, p) -> (m, q)>]
      ins(%dy, %col : memref<?x6x100xf32>, memref<?x25x100xf32>) outs(%dw : memref<6x25xf32>)
  linalg.fill ins(%one : f32) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<4x3xf32>)
  %v = memref.load %c[%i0, %i0] : memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return %v : f32
}

// -----

// --precision: 16-bit A and B with an f32 C go to the runtime's bf16 and
// f16 GEMMs (f32 accumulation); mixed A and B stay loops.
// CHECK-LABEL: func @half_operands
// CHECK: %[[A:.*]] = memref.cast %arg0 : memref<4x8xbf16> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK: call @autodist_rt_gemm_bf16(%[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32) -> ()
// CHECK: call @autodist_rt_gemm_f16(
// CHECK: linalg.matmul ins(%arg0, %arg5 : memref<4x8xbf16>, memref<8x3xf32>)
// CHECK: func.func private @autodist_rt_gemm_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @autodist_rt_gemm_f16(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32
func.func @half_operands(%a: memref<4x8xbf16>, %b: memref<8x3xbf16>, %c: memref<4x3xf32>,
                         %x: memref<4x8xf16>, %y: memref<8x3xf16>, %z: memref<8x3xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x3xbf16>) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%x, %y : memref<4x8xf16>, memref<8x3xf16>) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%a, %z : memref<4x8xbf16>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return
}
