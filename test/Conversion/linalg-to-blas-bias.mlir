// RUN: autodist-opt %s -split-input-file --convert-linalg-to-blas=bias-epilogue | FileCheck %s
// RUN: autodist-opt %s -split-input-file --convert-linalg-to-blas | FileCheck %s --check-prefix=PLAIN

// A Gemm's bias as bufferized convert-nn-to-linalg leaves it: copied into
// every row of C, then accumulated into. With bias-epilogue one call adds it.
// CHECK-LABEL: func @gemm_bias
// CHECK-SAME: (%[[X:.*]]: memref<?x64xf32>, %[[W:.*]]: memref<32x64xf32>, %[[B:.*]]: memref<32xf32>, %[[C:.*]]: memref<?x32xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[CX:.*]] = memref.cast %[[X]]
// CHECK: %[[CW:.*]] = memref.cast %[[W]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: %[[CB:.*]] = memref.cast %[[B]] : memref<32xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK: %[[TX:.*]] = arith.constant 0 : i32
// CHECK: %[[TW:.*]] = arith.constant 1 : i32
// CHECK: %[[ALPHA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @autodist_rt_sgemm_bias(%[[CX]], %[[CW]], %[[CB]], %[[CC]], %[[TX]], %[[TW]], %[[ALPHA]])
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @autodist_rt_sgemm_bias(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32) attributes {llvm.emit_c_interface}
// Without the option: the broadcast stays and sgemm accumulates (beta 1).
// PLAIN-LABEL: func @gemm_bias
// PLAIN: linalg.generic
// PLAIN: %[[ALPHA:.*]] = arith.constant 1.000000e+00 : f32
// PLAIN: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// PLAIN: call @autodist_rt_sgemm({{.*}}, %[[ALPHA]], %[[BETA]])
func.func @gemm_bias(%x: memref<?x64xf32>, %w: memref<32x64xf32>, %b: memref<32xf32>, %c: memref<?x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%c : memref<?x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : memref<?x64xf32>, memref<32x64xf32>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// --precision=bf16's operands: the 16-bit call, the bias still f32.
// CHECK-LABEL: func @gemm_bias_bf16
// CHECK: call @autodist_rt_gemm_bias_bf16(
// CHECK-NOT: linalg.generic
func.func @gemm_bias_bf16(%x: memref<?x64xbf16>, %w: memref<64x32xbf16>, %b: memref<32xf32>, %c: memref<?x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%c : memref<?x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul ins(%x, %w : memref<?x64xbf16>, memref<64x32xbf16>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// Not a plain copy of the bias (Gemm's beta scales it): not fused.
// CHECK-LABEL: func @scaled_bias
// CHECK: linalg.generic
// CHECK: call @autodist_rt_sgemm(
func.func @scaled_bias(%x: memref<?x64xf32>, %w: memref<64x32xf32>, %b: memref<32xf32>, %c: memref<?x32xf32>) {
  %half = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%c : memref<?x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %half : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// A bias per row of C (indexed by d0) is not cuBLASLt's per-column bias.
// CHECK-LABEL: func @row_bias
// CHECK: linalg.generic
// CHECK: call @autodist_rt_sgemm(
func.func @row_bias(%x: memref<16x64xf32>, %w: memref<64x32xf32>, %b: memref<16xf32>, %c: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<16xf32>) outs(%c : memref<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul ins(%x, %w : memref<16x64xf32>, memref<64x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Another write between the broadcast and the product (of any buffer: the
// check does not reason about aliasing): not fused.
// CHECK-LABEL: func @written_between
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: call @autodist_rt_sgemm(
func.func @written_between(%x: memref<?x64xf32>, %w: memref<64x32xf32>, %b: memref<32xf32>, %c: memref<?x32xf32>, %d: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%c : memref<?x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%zero : f32) outs(%d : memref<4xf32>)
  linalg.matmul ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  return
}
