// RUN: autodist-opt %s -split-input-file --convert-dist-to-runtime | FileCheck %s

// An all-reduce is started where it stands (after the last value of its
// bucket) on the packed private buffer, and waited for right before the
// first use of a reduced value: the computation in between (%e) overlaps
// the communication. The wait takes the buffer and the handle; the slices
// are taken after it.
// CHECK-LABEL: func @overlap
// CHECK: %[[CAT:.*]] = tensor.concat dim(0)
// CHECK: %[[SRC:.*]] = bufferization.to_buffer %[[CAT]]
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<13xf32>
// CHECK: memref.copy %[[SRC]], %[[BUF]]
// CHECK: %[[DYN:.*]] = memref.cast %[[BUF]] : memref<13xf32> to memref<?xf32>
// CHECK: %[[H:.*]] = call @autodist_rt_allreduce_start_f32(%[[DYN]]) : (memref<?xf32>) -> i32
// CHECK-NEXT: %[[E:.*]] = arith.mulf %arg0, %arg0
// CHECK-NEXT: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @autodist_rt_allreduce_wait_f32(%[[DYN]], %[[H]], %[[MEAN]])
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK: %[[S:.*]] = tensor.extract_slice %[[T]][0] [12] [1]
// CHECK: %[[R0:.*]] = tensor.expand_shape %[[S]]
// CHECK: tensor.extract_slice %[[T]][12] [1] [1]
// CHECK: arith.addf %[[R0]], %[[E]]
// CHECK-DAG: func.func private @autodist_rt_allreduce_start_f32(memref<?xf32>) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @autodist_rt_allreduce_wait_f32(memref<?xf32>, i32, i32) attributes {llvm.emit_c_interface}
func.func @overlap(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
  %r:2 = dist.all_reduce mean %a, %l : tensor<4x3xf32>, tensor<f32>
  %e = arith.mulf %a, %a : tensor<4x3xf32>
  %f = arith.addf %r#0, %e : tensor<4x3xf32>
  return %f, %r#1 : tensor<4x3xf32>, tensor<f32>
}

// -----

// Nothing to overlap (only constants and empty tensors before the first
// use, or no use at all): the blocking call.
// CHECK-LABEL: func @adjacent
// CHECK-NOT: allreduce_start
// CHECK: call @autodist_rt_allreduce_f32
// CHECK-NOT: allreduce_start
// CHECK: call @autodist_rt_allreduce_f32
// CHECK-NOT: allreduce_start
// CHECK: return
func.func @adjacent(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = dist.all_reduce sum %a : tensor<5xf32>
  %c = arith.constant dense<1.0> : tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %f = arith.addf %r, %c : tensor<5xf32>
  %u = dist.all_reduce sum %f : tensor<5xf32>
  return %f : tensor<5xf32>
}

// -----

// A use inside a region: the wait goes before the op holding the region.
// CHECK-LABEL: func @nested
// CHECK: %[[H:.*]] = call @autodist_rt_allreduce_start_f32
// CHECK-NEXT: %[[E:.*]] = arith.addf
// CHECK: call @autodist_rt_allreduce_wait_f32(%{{.*}}, %[[H]], %{{.*}})
// CHECK: scf.if
func.func @nested(%a: tensor<5xf32>, %c: i1) -> tensor<5xf32> {
  %r = dist.all_reduce sum %a : tensor<5xf32>
  %e = arith.addf %a, %a : tensor<5xf32>
  %s = scf.if %c -> tensor<5xf32> {
    scf.yield %r : tensor<5xf32>
  } else {
    scf.yield %e : tensor<5xf32>
  }
  return %s : tensor<5xf32>
}
