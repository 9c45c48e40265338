// RUN: autodist-opt %s -split-input-file --autodist-innermost-dim-first | FileCheck %s

// A bias broadcast as convert-linalg-to-parallel-loops leaves it: rows
// outer, the contiguous columns inner. Rotated, the columns are the first
// dim, which the GPU mapping gives to consecutive threads.
// CHECK-LABEL: func.func @bias_add
// CHECK: scf.parallel (%[[J:.*]], %[[I:.*]]) = (%{{.*}}, %{{.*}}) to (%c512, %[[N:.*]]) step
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<?x512xf32>
// CHECK: memref.load %{{.*}}[%[[J]]] : memref<512xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<?x512xf32>
func.func @bias_add(%x: memref<?x512xf32>, %b: memref<512xf32>, %y: memref<?x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %n = memref.dim %x, %c0 : memref<?x512xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c512) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x512xf32>
    %w = memref.load %b[%j] : memref<512xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %y[%i, %j] : memref<?x512xf32>
    scf.reduce
  }
  return
}

// -----

// Three dims: the last first, the others in their order. A loop nested in
// another parallel loop is not touched.
// CHECK-LABEL: func.func @three
// CHECK: scf.parallel (%[[K:.*]], %[[I:.*]], %[[J:.*]]) = {{.*}} to (%c64, %c4, %c8)
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%c4, %c64)
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @three(%y: memref<4x8x64xf32>, %z: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c8, %c64) step (%c1, %c1, %c1) {
    scf.parallel (%p, %q) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
      memref.store %f, %z[%p, %q] : memref<4x64xf32>
      scf.reduce
    }
    memref.store %f, %y[%i, %j, %k] : memref<4x8x64xf32>
    scf.reduce
  }
  return
}

// -----

// A last dim shorter than a warp stays last (10 classes of logits).
// CHECK-LABEL: func.func @narrow
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%{{.*}}, %c10)
func.func @narrow(%y: memref<?x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %f = arith.constant 0.0 : f32
  %n = memref.dim %y, %c0 : memref<?x10xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c10) step (%c1, %c1) {
    memref.store %f, %y[%i, %j] : memref<?x10xf32>
    scf.reduce
  }
  return
}
