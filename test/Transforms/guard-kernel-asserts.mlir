// RUN: autodist-opt %s -split-input-file --autodist-guard-kernel-asserts | FileCheck %s
// RUN: autodist-opt %s -split-input-file --pass-pipeline="builtin.module(autodist-guard-kernel-asserts,func.func(gpu-map-parallel-loops,convert-parallel-loops-to-gpu))" | FileCheck %s --check-prefix=GPU

// A Gather's index check as convert-linalg-to-parallel-loops leaves it, in
// the body of the parallel loop: it runs where it fails, and the loop then
// maps to a kernel.
// CHECK-LABEL: func.func @gather
// CHECK: scf.parallel
// CHECK: %[[OK:.*]] = arith.cmpi sge
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: cf.assert %[[OK]], "Gather: index out of range"
// CHECK-NEXT: }
// CHECK: memref.load
// GPU-LABEL: func.func @gather
// GPU: gpu.launch
// GPU-NOT: scf.parallel
func.func @gather(%idx: memref<256xi64>, %w: memref<256x512xf32>, %out: memref<256x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c0_i64 = arith.constant 0 : i64
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c512) step (%c1, %c1) {
    %v = memref.load %idx[%i] : memref<256xi64>
    %ok = arith.cmpi sge, %v, %c0_i64 : i64
    cf.assert %ok, "Gather: index out of range"
    %k = arith.index_cast %v : i64 to index
    %x = memref.load %w[%k, %j] : memref<256x512xf32>
    memref.store %x, %out[%i, %j] : memref<256x512xf32>
    scf.reduce
  }
  return
}

// -----

// An assert outside parallel loops (host code) is left alone.
// CHECK-LABEL: func.func @host
// CHECK-NEXT: cf.assert %{{.*}}, "Range: delta is 0"
// CHECK-NEXT: return
func.func @host(%ok: i1) {
  cf.assert %ok, "Range: delta is 0"
  return
}
