// RUN: autodist-opt %s -split-input-file --convert-dist-to-runtime | FileCheck %s

// A blocking all-reduce: a bucket of two tensors flattened,
// concatenated, reduced in place by one runtime call on a private copy,
// sliced back.
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

// -----

// Compressed buckets call their compressor's function; each error-feedback
// bucket also passes the index of its residual (0, 1, ... in program order).
// CHECK-LABEL: func @compressed
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_allreduce_fp16_f32(%{{.*}}, %[[MEAN]]) : (memref<?xf32>, i32) -> ()
// CHECK: %[[M0:.*]] = arith.constant 1 : i32
// CHECK: %[[E0:.*]] = arith.constant 0 : i32
// CHECK: call @autodist_rt_allreduce_fp16_ef_f32(%{{.*}}, %[[M0]], %[[E0]]) : (memref<?xf32>, i32, i32) -> ()
// CHECK: %[[M1:.*]] = arith.constant 1 : i32
// CHECK: %[[E1:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_allreduce_fp16_ef_f32(%{{.*}}, %[[M1]], %[[E1]])
// CHECK: call @autodist_rt_allreduce_f32(
// CHECK-DAG: func.func private @autodist_rt_allreduce_fp16_f32(memref<?xf32>, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @autodist_rt_allreduce_fp16_ef_f32(memref<?xf32>, i32, i32) attributes {llvm.emit_c_interface}
func.func @compressed(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<f32>) {
  %h = dist.all_reduce mean %a {compressor = #dist.compressor<fp16>} : tensor<4x3xf32>
  %e = dist.all_reduce mean %b {compressor = #dist.compressor<fp16_ef>} : tensor<3xf32>
  %f = dist.all_reduce mean %a {compressor = #dist.compressor<fp16_ef>, group = 1 : i64} : tensor<4x3xf32>
  %r = dist.all_reduce mean %l : tensor<f32>
  return %h, %e, %f, %r : tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<f32>
}

// -----

// PowerSGD (one matrix per all-reduce, dist-split-powersgd): rows = first
// dimension, cols = the rest, and two state slots, numbered after the
// error-feedback buckets before it.
// CHECK-LABEL: func @powersgd
// CHECK: call @autodist_rt_allreduce_fp16_ef_f32(
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: %[[SLOT:.*]] = arith.constant 1 : i32
// CHECK: %[[ROWS:.*]] = arith.constant 4 : i32
// CHECK: %[[COLS:.*]] = arith.constant 6 : i32
// CHECK: %[[RANK:.*]] = arith.constant 2 : i32
// CHECK: call @autodist_rt_allreduce_powersgd_f32(%{{.*}}, %[[MEAN]], %[[SLOT]], %[[ROWS]], %[[COLS]], %[[RANK]]) : (memref<?xf32>, i32, i32, i32, i32, i32) -> ()
// CHECK: %[[SLOT2:.*]] = arith.constant 3 : i32
// CHECK: call @autodist_rt_allreduce_powersgd_f32(%{{.*}}, %{{.*}}, %[[SLOT2]],
// CHECK: func.func private @autodist_rt_allreduce_powersgd_f32(memref<?xf32>, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface}
func.func @powersgd(%a: tensor<4x3x2xf32>, %b: tensor<3xf32>, %c: tensor<5x5xf32>) -> (tensor<3xf32>, tensor<4x3x2xf32>, tensor<5x5xf32>) {
  %e = dist.all_reduce mean %b {compressor = #dist.compressor<fp16_ef>} : tensor<3xf32>
  %p = dist.all_reduce mean %a {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3x2xf32>
  %q = dist.all_reduce mean %c {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<5x5xf32>
  return %e, %p, %q : tensor<3xf32>, tensor<4x3x2xf32>, tensor<5x5xf32>
}

// -----

// Reduce and broadcast pass their root as the index of its device in the
// cluster (10.0.0.2:CPU:1 is device 2) and whether to go through node
// proxies (local replication).
// CHECK-LABEL: func @rooted
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<13xf32>
// CHECK-DAG: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[DEV:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[FLAT:.*]] = arith.constant 0 : i32
// CHECK: call @autodist_rt_reduce_f32(%{{.*}}, %[[MEAN]], %[[DEV]], %[[FLAT]])
// CHECK: %[[BBUF:.*]] = memref.alloc() : memref<12xf32>
// CHECK-DAG: %[[DEV2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[PROXY:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_broadcast_f32(%{{.*}}, %[[DEV2]], %[[PROXY]])
// CHECK-DAG: func.func private @autodist_rt_reduce_f32(memref<?xf32>, i32, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @autodist_rt_broadcast_f32(memref<?xf32>, i32, i32) attributes {llvm.emit_c_interface}
module attributes {dist.cluster = #dist.cluster<[
    #dist.node_spec<address = "10.0.0.1", cpus = [0], chief = true, bandwidth = 1.000000e+00 : f64>,
    #dist.node_spec<address = "10.0.0.2", cpus = [0, 1], chief = false, bandwidth = 1.000000e+00 : f64>]>} {
  func.func @rooted(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
    %r:2 = dist.reduce mean %a, %l {root = "10.0.0.2:CPU:1"} : tensor<4x3xf32>, tensor<f32>
    %b = dist.broadcast %r#0 {local_replication, root = "10.0.0.2:CPU:1"} : tensor<4x3xf32>
    return %b, %r#1 : tensor<4x3xf32>, tensor<f32>
  }
}
