// RUN: autodist-opt %s -split-input-file --convert-dist-to-runtime | FileCheck %s

// A blocking all-reduce: a bucket of two tensors flattened, each copied
// from where it is (a read-only view) into its place in a private buffer
// (no concatenation of its own), reduced in place by one runtime call,
// sliced back.
// CHECK-LABEL: func @bucket
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<13xf32>
// CHECK: %[[F0:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x3xf32> into tensor<12xf32>
// CHECK: %[[S0:.*]] = bufferization.to_buffer %[[F0]] read_only
// CHECK: %[[D0:.*]] = memref.subview %[[BUF]][0] [12] [1]
// CHECK: memref.copy %[[S0]], %[[D0]]
// CHECK: %[[F1:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[S1:.*]] = bufferization.to_buffer %[[F1]] read_only
// CHECK: %[[D1:.*]] = memref.subview %[[BUF]][12] [1] [1]
// CHECK: memref.copy %[[S1]], %[[D1]]
// CHECK-NOT: tensor.concat
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

// Compressed buckets call their compressor's function; an error-feedback
// bucket also passes its residual (a state operand, dist-compressor-state),
// copied into a buffer the call updates in place: the op's new state.
// CHECK-LABEL: func @compressed
// CHECK-SAME: %[[E0:[a-z0-9]+]]: tensor<3xf32>, %[[E1:[a-z0-9]+]]: tensor<12xf32>)
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_allreduce_fp16_f32(%{{.*}}, %[[MEAN]]) : (memref<?xf32>, i32) -> ()
// CHECK: %[[M0:.*]] = arith.constant 1 : i32
// CHECK: %[[B0:.*]] = memref.alloc() : memref<3xf32>
// CHECK: %[[R0:.*]] = bufferization.to_buffer %[[E0]] read_only
// CHECK: memref.copy %[[R0]], %[[B0]]
// CHECK: %[[V0:.*]] = memref.cast %[[B0]] : memref<3xf32> to memref<?xf32>
// CHECK: call @autodist_rt_allreduce_fp16_ef_f32(%{{.*}}, %[[V0]], %[[M0]]) : (memref<?xf32>, memref<?xf32>, i32) -> ()
// CHECK: %[[N0:.*]] = bufferization.to_tensor %[[B0]] restrict writable : memref<3xf32> to tensor<3xf32>
// CHECK: bufferization.to_buffer %[[E1]]
// CHECK: call @autodist_rt_allreduce_fp16_ef_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?xf32>, memref<?xf32>, i32) -> ()
// CHECK: %[[N1:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<12xf32> to tensor<12xf32>
// CHECK: call @autodist_rt_allreduce_f32(
// CHECK: return {{.*}}, %[[N0]], %[[N1]] :
// CHECK-DAG: func.func private @autodist_rt_allreduce_fp16_f32(memref<?xf32>, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @autodist_rt_allreduce_fp16_ef_f32(memref<?xf32>, memref<?xf32>, i32) attributes {llvm.emit_c_interface}
func.func @compressed(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %l: tensor<f32>, %e0: tensor<3xf32>, %e1: tensor<12xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<3xf32>, tensor<12xf32>) {
  %h = dist.all_reduce mean %a {compressor = #dist.compressor<fp16>} : tensor<4x3xf32>
  %e:2 = dist.all_reduce mean %b state(%e0 : tensor<3xf32>) {compressor = #dist.compressor<fp16_ef>} : tensor<3xf32>
  %f:2 = dist.all_reduce mean %a state(%e1 : tensor<12xf32>) {compressor = #dist.compressor<fp16_ef>, group = 1 : i64} : tensor<4x3xf32>
  %r = dist.all_reduce mean %l : tensor<f32>
  return %h, %e#0, %f#0, %r, %e#1, %f#1 : tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<3xf32>, tensor<12xf32>
}

// -----

// PowerSGD (one matrix per all-reduce, dist-split-powersgd): rows = first
// dimension, cols = the rest; its state is the residual and Q, passed after
// the bucket.
// CHECK-LABEL: func @powersgd
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: %[[ROWS:.*]] = arith.constant 4 : i32
// CHECK: %[[COLS:.*]] = arith.constant 6 : i32
// CHECK: %[[RANK:.*]] = arith.constant 2 : i32
// CHECK: %[[BUF:.*]] = memref.cast %{{.*}} : memref<24xf32> to memref<?xf32>
// CHECK: %[[RES:.*]] = memref.cast %{{.*}} : memref<24xf32> to memref<?xf32>
// CHECK: %[[Q:.*]] = memref.cast %{{.*}} : memref<12xf32> to memref<?xf32>
// CHECK: call @autodist_rt_allreduce_powersgd_f32(%[[BUF]], %[[RES]], %[[Q]], %[[MEAN]], %[[ROWS]], %[[COLS]], %[[RANK]]) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32, i32) -> ()
// CHECK: %[[NRES:.*]] = bufferization.to_tensor %{{.*}} : memref<24xf32> to tensor<24xf32>
// CHECK: %[[NQ:.*]] = bufferization.to_tensor %{{.*}} : memref<12xf32> to tensor<12xf32>
// CHECK: return %{{.*}}, %[[NRES]], %[[NQ]] :
// CHECK: func.func private @autodist_rt_allreduce_powersgd_f32(memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32, i32) attributes {llvm.emit_c_interface}
func.func @powersgd(%a: tensor<4x3x2xf32>, %res: tensor<24xf32>, %q: tensor<12xf32>) -> (tensor<4x3x2xf32>, tensor<24xf32>, tensor<12xf32>) {
  %p:3 = dist.all_reduce mean %a state(%res, %q : tensor<24xf32>, tensor<12xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3x2xf32>
  return %p#0, %p#1, %p#2 : tensor<4x3x2xf32>, tensor<24xf32>, tensor<12xf32>
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
