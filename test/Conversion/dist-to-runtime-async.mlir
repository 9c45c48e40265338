// RUN: autodist-opt %s -split-input-file --convert-dist-to-runtime | FileCheck %s

// A started all-reduce calls the runtime's start where it stands, on the
// packed private buffer, and the wait where its dist.wait stands: the
// computation in between (%e) overlaps the communication. The wait takes
// the buffer and the handle; the slices are taken after it.
// CHECK-LABEL: func @start_wait
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<13xf32>
// CHECK: memref.subview %[[BUF]][0] [12] [1]
// CHECK: memref.subview %[[BUF]][12] [1] [1]
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
// CHECK-NOT: dist.
// CHECK-DAG: func.func private @autodist_rt_allreduce_start_f32(memref<?xf32>) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @autodist_rt_allreduce_wait_f32(memref<?xf32>, i32, i32) attributes {llvm.emit_c_interface}
func.func @start_wait(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
  %fut = dist.all_reduce_start mean %a, %l : tensor<4x3xf32>, tensor<f32> -> !dist.future<tensor<4x3xf32>, tensor<f32>>
  %e = arith.mulf %a, %a : tensor<4x3xf32>
  %r:2 = dist.wait %fut : !dist.future<tensor<4x3xf32>, tensor<f32>>
  %f = arith.addf %r#0, %e : tensor<4x3xf32>
  return %f, %r#1 : tensor<4x3xf32>, tensor<f32>
}

// -----

// Two buckets in flight at once: each wait takes its own buffer and handle.
// CHECK-LABEL: func @two_in_flight
// CHECK: %[[H0:.*]] = call @autodist_rt_allreduce_start_f32(%[[V0:[^)]*]])
// CHECK: %[[H1:.*]] = call @autodist_rt_allreduce_start_f32(%[[V1:[^)]*]])
// CHECK: call @autodist_rt_allreduce_wait_f32(%[[V0]], %[[H0]], %{{.*}})
// CHECK: call @autodist_rt_allreduce_wait_f32(%[[V1]], %[[H1]], %{{.*}})
func.func @two_in_flight(%a: tensor<5xf32>, %b: tensor<3xf32>) -> (tensor<5xf32>, tensor<3xf32>) {
  %f0 = dist.all_reduce_start sum %a : tensor<5xf32> -> !dist.future<tensor<5xf32>>
  %f1 = dist.all_reduce_start sum %b : tensor<3xf32> -> !dist.future<tensor<3xf32>>
  %r0 = dist.wait %f0 : !dist.future<tensor<5xf32>>
  %r1 = dist.wait %f1 : !dist.future<tensor<3xf32>>
  return %r0, %r1 : tensor<5xf32>, tensor<3xf32>
}
