// RUN: autodist-opt %s -split-input-file --autodist-outline-loops | FileCheck %s
// RUN: autodist-opt %s -split-input-file --autodist-outline-loops --duplicate-function-elimination | FileCheck %s --check-prefix=DFE

// Each top-level loop nest moves into a private function of its own (tagged
// for noinline), called where the nest was with the values it uses; the
// constants it uses are cloned into it, not passed.
// CHECK-LABEL: func.func private @copy_twice_loop0(
// CHECK-SAME: %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {autodist.outlined}
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 4 : index
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store
// CHECK-LABEL: func.func private @copy_twice_loop1(
// CHECK-SAME: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {autodist.outlined}
// CHECK: scf.for
// CHECK-LABEL: func.func @copy_twice(
// CHECK-SAME: %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<4xf32>)
// CHECK-NOT: scf.for
// CHECK: scf.execute_region {
// CHECK-NEXT: func.call @copy_twice_loop0(%[[A]], %[[B]]) :
// CHECK: scf.execute_region {
// CHECK-NEXT: func.call @copy_twice_loop1(%[[B]], %[[A]]) :
// CHECK-NOT: scf.for
// CHECK: return

// The two nests do the same thing on different buffers: one function.
// DFE-LABEL: func.func @copy_twice(
// DFE: func.call @[[F:copy_twice_loop[0-9]]](
// DFE: func.call @[[F]](
func.func @copy_twice(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%i] : memref<4xf32>
    memref.store %v, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %b[%i] : memref<4xf32>
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Slices at static offsets of one buffer reach the nests with a dynamic
// offset (a cast at the call), so equal nests over different slices (the
// gradients of equal layers in one bucket) are equal functions, which
// duplicate-function-elimination merges. Subviews inside follow.
// CHECK-LABEL: func.func private @slices_loop0(
// CHECK-SAME: %{{.*}}: memref<4xf32, strided<[1], offset: ?>>, %{{.*}}: memref<2xf32>)
// CHECK: memref.subview %{{.*}}[0] [2] [1] : memref<4xf32, strided<[1], offset: ?>> to memref<2xf32, strided<[1], offset: ?>>
// CHECK-LABEL: func.func @slices(
// CHECK: %[[S0:.*]] = memref.subview %{{.*}}[4] [4] [1]
// CHECK: %[[C0:.*]] = memref.cast %[[S0]] : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: func.call @slices_loop0(%[[C0]], %{{.*}})
// CHECK: %[[S1:.*]] = memref.subview %{{.*}}[8] [4] [1]
// CHECK: %[[C1:.*]] = memref.cast %[[S1]] : memref<4xf32, strided<[1], offset: 8>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: func.call @slices_loop1(%[[C1]], %{{.*}})

// DFE-LABEL: func.func @slices(
// DFE: func.call @[[G:slices_loop[0-9]]](
// DFE: func.call @[[G]](
func.func @slices(%buf: memref<16xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s0 = memref.subview %buf[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c2 step %c1 {
    %h = memref.subview %s0[0] [2] [1] : memref<4xf32, strided<[1], offset: 4>> to memref<2xf32, strided<[1], offset: 4>>
    %v = memref.load %h[%i] : memref<2xf32, strided<[1], offset: 4>>
    memref.store %v, %out[%i] : memref<2xf32>
  }
  %s1 = memref.subview %buf[8] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 8>>
  scf.for %i = %c0 to %c2 step %c1 {
    %h = memref.subview %s1[0] [2] [1] : memref<4xf32, strided<[1], offset: 8>> to memref<2xf32, strided<[1], offset: 8>>
    %v = memref.load %h[%i] : memref<2xf32, strided<[1], offset: 8>>
    memref.store %v, %out[%i] : memref<2xf32>
  }
  return
}

// -----

// A slice that the nest passes on (here to a call) keeps its static offset:
// the callee's type depends on it.
// CHECK-LABEL: func.func private @passed_on_loop0(
// CHECK-SAME: %{{.*}}: memref<4xf32, strided<[1], offset: 4>>)
// CHECK-LABEL: func.func @passed_on(
// CHECK-NOT: memref.cast
// CHECK: return
func.func private @use(memref<4xf32, strided<[1], offset: 4>>)
func.func @passed_on(%buf: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s0 = memref.subview %buf[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c2 step %c1 {
    func.call @use(%s0) : (memref<4xf32, strided<[1], offset: 4>>) -> ()
  }
  return
}

// -----

// A loop that carries a buffer (the scatter-add of a gather gradient) is
// outlined too: the function returns the loop's result.
// CHECK-LABEL: func.func private @carried_loop0(
// CHECK-SAME: %{{.*}}: memref<4xf32>) -> memref<4xf32> attributes {autodist.outlined}
// CHECK: %[[R:.*]] = scf.for
// CHECK: return %[[R]] : memref<4xf32>
// CHECK-LABEL: func.func @carried(
// CHECK-NOT: scf.for
// CHECK: %[[C:.*]] = scf.execute_region -> memref<4xf32> {
// CHECK-NEXT: %[[V:.*]] = func.call @carried_loop0(%{{.*}}) : (memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT: scf.yield %[[V]]
// CHECK: memref.copy %[[C]], %{{.*}}
func.func @carried(%a: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %a) -> (memref<4xf32>) {
    memref.store %f, %m[%i] : memref<4xf32>
    scf.yield %m : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}
