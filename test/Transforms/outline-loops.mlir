// RUN: autodist-opt %s --autodist-outline-loops | FileCheck %s

// Each top-level loop nest moves into a private function of its own (tagged
// for noinline), called where the nest was with the values it uses.
// CHECK: func.func private @copy_twice_loop0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, {{.*}}) attributes {autodist.outlined}
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store
// CHECK: func.func private @copy_twice_loop1({{.*}}) attributes {autodist.outlined}
// CHECK: scf.for
// CHECK-LABEL: func.func @copy_twice(
// CHECK-SAME: %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<4xf32>)
// CHECK-NOT: scf.for
// CHECK: scf.execute_region {
// CHECK-NEXT: func.call @copy_twice_loop0(%[[A]], %[[B]],
// CHECK: scf.execute_region {
// CHECK-NEXT: func.call @copy_twice_loop1(%[[B]], %[[A]],
// CHECK-NOT: scf.for
// CHECK: return
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
