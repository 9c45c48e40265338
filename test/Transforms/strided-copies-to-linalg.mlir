// RUN: autodist-opt %s -split-input-file --autodist-strided-copies-to-linalg | FileCheck %s

// A copy from a strided view (static or dynamic shape) becomes linalg.copy,
// compiled to loops, instead of a call of the generic runtime memrefCopy.
// CHECK-LABEL: func.func @strided(
// CHECK: linalg.copy ins(%{{.*}} : memref<4x4xf32, strided<[8, 1]>>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK-NOT: memref.copy
func.func @strided(%a: memref<4x4xf32, strided<[8, 1]>>, %b: memref<4x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @dynamic_batch(
// CHECK: linalg.copy ins(%{{.*}} : memref<?x4xf32, strided<[8, 1]>>) outs(%{{.*}} : memref<?x4xf32>)
func.func @dynamic_batch(%a: memref<?x4xf32, strided<[8, 1]>>, %b: memref<?x4xf32>) {
  memref.copy %a, %b : memref<?x4xf32, strided<[8, 1]>> to memref<?x4xf32>
  return
}

// -----

// Contiguous copies stay memref.copy (they lower to memcpy), dynamic
// identity layouts included.
// CHECK-LABEL: func.func @contiguous(
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<?x4xf32> to memref<?x4xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<?x4xf32>, %b: memref<?x4xf32>, %c: memref<4xf32, strided<[1], offset: 4>>, %d: memref<4xf32>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  memref.copy %c, %d : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32>
  return
}
