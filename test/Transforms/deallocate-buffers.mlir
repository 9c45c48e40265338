// RUN: autodist-opt %s -split-input-file --autodist-deallocate-buffers | FileCheck %s

// Each buffer is freed right after the last use of it or of a view of it,
// not at the end of the function.
// CHECK-LABEL: func.func @straight_line(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.fill {{.*}} outs(%[[A]] :
// CHECK: %[[V:.*]] = memref.subview %[[A]][0] [2] [1]
// CHECK: memref.copy %[[V]], %{{.*}} :
// CHECK-NEXT: memref.dealloc %[[A]] : memref<4xf32>
// CHECK: linalg.fill {{.*}} outs(%[[B]] :
// CHECK-NEXT: memref.copy %[[B]], %{{.*}} :
// CHECK-NEXT: memref.dealloc %[[B]] : memref<4xf32>
// CHECK-NEXT: return
func.func @straight_line(%out: memref<2xf32>, %out2: memref<4xf32>) {
  %c0 = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%c0 : f32) outs(%a : memref<4xf32>)
  %v = memref.subview %a[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  memref.copy %v, %out : memref<2xf32, strided<[1]>> to memref<2xf32>
  linalg.fill ins(%c0 : f32) outs(%b : memref<4xf32>)
  memref.copy %b, %out2 : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A buffer carried through a loop lives until the last use of the loop's
// result.
// CHECK-LABEL: func.func @loop_carried(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[R:.*]] = scf.for
// CHECK: memref.copy %[[R]], %{{.*}} :
// CHECK-NEXT: memref.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT: return
func.func @loop_carried(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %a) -> (memref<4xf32>) {
    memref.store %f, %m[%i] : memref<4xf32>
    scf.yield %m : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A buffer that is returned escapes: the upstream ownership-based pipeline
// runs instead (it does not free a returned buffer).
// CHECK-LABEL: func.func @returned(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return %[[A]]
func.func @returned() -> memref<4xf32> {
  %c0 = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%c0 : f32) outs(%a : memref<4xf32>)
  return %a : memref<4xf32>
}

// -----

// Control flow between blocks: the upstream pipeline runs instead (it
// frees the buffer on each path).
// CHECK-LABEL: func.func @branches(
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc
// CHECK: cf.cond_br
// CHECK: ^bb1:
// CHECK: memref.copy
// CHECK-NEXT: memref.dealloc
func.func @branches(%c: i1, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
^bb2:
  return
}
