// RUN: autodist-opt %s -split-input-file -verify-diagnostics --autodist-host-access-to-kernels | FileCheck %s

// A cross-entropy loss's end as convert-linalg-to-parallel-loops leaves it:
// the full reduction over the batch (a serial scf.for) and the mean's scalar
// arithmetic read and write device buffers from the host. Each run becomes a
// one-iteration scf.parallel; the allocations and the host's own arithmetic
// (the batch size) stay outside.
// CHECK-LABEL: func.func @loss_mean
// CHECK: %[[SUM:.*]] = memref.alloc() {{.*}} : memref<f32>
// CHECK: scf.parallel (%{{.*}}) = (%[[Z:.*]]) to (%[[O:.*]]) step (%[[O]]) {
// CHECK-NEXT: memref.store %{{.*}}, %[[SUM]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK: memref.load
// CHECK: arith.addf
// CHECK: memref.store
// CHECK: scf.reduce
// CHECK: arith.sitofp
// CHECK: %[[LOSS:.*]] = memref.alloc() {{.*}} : memref<f32>
// CHECK: scf.parallel
// CHECK-NEXT: memref.load %[[SUM]][] : memref<f32>
// CHECK-NEXT: arith.divf
// CHECK-NEXT: memref.store %{{.*}}, %[[LOSS]][] : memref<f32>
// CHECK-NEXT: scf.reduce
// CHECK: memref.dealloc %[[SUM]]
func.func @loss_mean(%per_row: memref<?xf32>) -> memref<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %per_row, %c0 : memref<?xf32>
  %sum = memref.alloc() {alignment = 64 : i64} : memref<f32>
  memref.store %zero, %sum[] : memref<f32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %per_row[%i] : memref<?xf32>
    %acc = memref.load %sum[] : memref<f32>
    %s = arith.addf %v, %acc : f32
    memref.store %s, %sum[] : memref<f32>
  }
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %loss = memref.alloc() {alignment = 64 : i64} : memref<f32>
  %t = memref.load %sum[] : memref<f32>
  %m = arith.divf %t, %nf : f32
  memref.store %m, %loss[] : memref<f32>
  memref.dealloc %sum : memref<f32>
  return %loss : memref<f32>
}

// -----

// Parallel loops are kernels already, and a host loop around a runtime call
// (a batched sgemm) stays on the host; the accesses inside it are wrapped.
// CHECK-LABEL: func.func @host_loop
// CHECK: scf.for
// CHECK-NEXT: func.call @autodist_rt_sgemm
// CHECK: scf.parallel
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.reduce
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
func.func private @autodist_rt_sgemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32)
func.func @host_loop(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %x: memref<4xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : i32
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @autodist_rt_sgemm(%a, %a, %a, %i0, %i0, %f0, %f0) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32) -> ()
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
  }
  scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%j] : memref<4xf32>
    memref.store %v, %y[%j] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// A value read from device memory that the host needs (a loop bound, from a
// run-time shape) goes through a device buffer the host reads back with the
// runtime's autodist_rt_read_i64; one a later kernel needs, through a buffer
// the kernel loads.
// CHECK-LABEL: func.func private @autodist_rt_read_i64(memref<i64>) -> i64 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bound_from_memory
// CHECK-DAG: %[[N:.*]] = memref.alloc() : memref<i64>
// CHECK-DAG: %[[SCALE:.*]] = memref.alloc() : memref<f32>
// CHECK: scf.parallel
// CHECK: %[[UB:.*]] = memref.load %{{.*}}[] : memref<index>
// CHECK: %[[S:.*]] = arith.mulf
// CHECK-DAG: %[[W:.*]] = arith.index_cast %[[UB]] : index to i64
// CHECK-DAG: memref.store %[[W]], %[[N]][] : memref<i64>
// CHECK-DAG: memref.store %[[S]], %[[SCALE]][] : memref<f32>
// CHECK: scf.reduce
// CHECK: %[[R:.*]] = call @autodist_rt_read_i64(%[[N]]) : (memref<i64>) -> i64
// CHECK: %[[B:.*]] = arith.index_cast %[[R]] : i64 to index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[B]])
// CHECK-NEXT: %[[S2:.*]] = memref.load %[[SCALE]][] : memref<f32>
// CHECK-NEXT: memref.store %[[S2]]
// CHECK-DAG: memref.dealloc %[[N]]
// CHECK-DAG: memref.dealloc %[[SCALE]]
func.func @bound_from_memory(%n: memref<index>, %k: memref<f32>, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %ub = memref.load %n[] : memref<index>
  %kv = memref.load %k[] : memref<f32>
  %scale = arith.mulf %kv, %two : f32
  scf.parallel (%i) = (%c0) to (%ub) step (%c1) {
    memref.store %scale, %x[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A float the host needs (here a runtime call's scalar) is not read back.
func.func private @autodist_rt_sgemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32)
func.func @float_to_host(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %alpha: memref<f32>) {
  %i0 = arith.constant 0 : i32
  %f0 = arith.constant 0.0 : f32
  %s = memref.load %alpha[] : memref<f32>
  // expected-error@+1 {{reads a value the cuda target computes in device memory on the host (memref.load at}}
  func.call @autodist_rt_sgemm(%a, %a, %a, %i0, %i0, %s, %f0) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, f32, f32) -> ()
  return
}

// -----

// A view whose offset was read from device memory, used by a kernel of its
// own: a buffer cannot be passed between kernels.
func.func @view_from_memory(%i: memref<index>, %x: memref<16x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %row = memref.load %i[] : memref<index>
  %v = memref.subview %x[%row, 0] [1, 4] [1, 1] : memref<16x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  // expected-error@+1 {{uses a view computed from device memory outside the kernel that computes it (memref.subview at}}
  scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
    memref.store %f, %v[%j] : memref<4xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  return
}
