// RUN: autodist-opt %s -split-input-file --convert-dist-to-runtime | FileCheck %s

// A bucket of two tensors: flattened, concatenated, reduced in place by one
// runtime call on a private copy, sliced back.
// CHECK-LABEL: func @bucket
// CHECK: %[[F0:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x3xf32> into tensor<12xf32>
// CHECK: %[[F1:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[CAT:.*]] = tensor.concat dim(0) %[[F0]], %[[F1]]
// CHECK: %[[SRC:.*]] = bufferization.to_buffer %[[CAT]]
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<13xf32>
// CHECK: memref.copy %[[SRC]], %[[BUF]]
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: %[[DYN:.*]] = memref.cast %[[BUF]] : memref<13xf32> to memref<?xf32>
// CHECK: call @autodist_rt_allreduce_f32(%[[DYN]], %[[MEAN]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK: tensor.extract_slice %[[T]][0] [12] [1]
// CHECK: tensor.extract_slice %[[T]][12] [1] [1]
// CHECK: func.func private @autodist_rt_allreduce_f32(memref<?xf32>, i32) attributes {llvm.emit_c_interface}
func.func @bucket(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
  %r:2 = dist.all_reduce mean %a, %l : tensor<4x3xf32>, tensor<f32>
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<f32>
}

// -----

// A single 1-D tensor needs no concatenation; sum is reduction kind 0.
// CHECK-LABEL: func @single_sum
// CHECK-NOT: tensor.concat
// CHECK: %[[SUM:.*]] = arith.constant 0 : i32
// CHECK: call @autodist_rt_allreduce_f32(%{{.*}}, %[[SUM]])
func.func @single_sum(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = dist.all_reduce sum %a : tensor<5xf32>
  return %r : tensor<5xf32>
}
