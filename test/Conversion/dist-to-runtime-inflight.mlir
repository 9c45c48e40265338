// RUN: autodist-opt %s --convert-dist-to-runtime | FileCheck %s

// In-flight state (a future that crosses steps, dist-staleness-pipeline):
// the future argument becomes the buffer the step keeps across steps and
// the handle of the all-reduce running in it; the wait completes it and
// copies it out, the start packs this step's bucket into the same buffer
// (each gradient copied once, into its place) and returns the new handle.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3xf32>,
// CHECK-SAME: %[[BUF:[a-z0-9]+]]: memref<14xf32> {dist.inflight_buffer = "inflight.0"},
// CHECK-SAME: %[[H:[a-z0-9]+]]: tensor<i64> {dist.inflight_handle = "inflight.0"},
// CHECK-SAME: -> (tensor<4x3xf32>, tensor<i64> {dist.inflight = "inflight.0"})
// CHECK: %[[VIEW:.*]] = memref.cast %[[BUF]] : memref<14xf32> to memref<?xf32>
// CHECK: %[[H64:.*]] = tensor.extract %[[H]][] : tensor<i64>
// CHECK: %[[H32:.*]] = arith.trunci %[[H64]] : i64 to i32
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: call @autodist_rt_allreduce_wait_f32(%[[VIEW]], %[[H32]], %[[MEAN]])
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<14xf32>
// CHECK: memref.copy %[[BUF]], %[[COPY]]
// CHECK: %[[PREV:.*]] = bufferization.to_tensor %[[COPY]]
// CHECK: %[[G:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<12xf32> to memref<12xf32>
// CHECK: %[[DG:.*]] = memref.subview %[[BUF]][0] [12] [1]
// CHECK: memref.copy %[[G]], %[[DG]]
// CHECK: %[[B:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<2xf32> to memref<2xf32>
// CHECK: %[[DB:.*]] = memref.subview %[[BUF]][12] [2] [1]
// CHECK: memref.copy %[[B]], %[[DB]]
// CHECK: %[[NEW:.*]] = call @autodist_rt_allreduce_start_f32(%[[VIEW]]) : (memref<?xf32>) -> i32
// CHECK: %[[NEW64:.*]] = arith.extsi %[[NEW]] : i32 to i64
// CHECK: %[[OUT:.*]] = tensor.from_elements %[[NEW64]] : tensor<i64>
// CHECK: return %{{.*}}, %[[OUT]] : tensor<4x3xf32>, tensor<i64>
func.func @train_step(%w: tensor<4x3xf32>, %in: !dist.future<tensor<4x3xf32>, tensor<2xf32>> {dist.inflight = "inflight.0"}, %g: tensor<4x3xf32>, %b: tensor<2xf32>) -> (tensor<4x3xf32>, !dist.future<tensor<4x3xf32>, tensor<2xf32>> {dist.inflight = "inflight.0"}) {
  %prev:2 = dist.wait %in : !dist.future<tensor<4x3xf32>, tensor<2xf32>>
  %out = dist.all_reduce_start mean %g, %b : tensor<4x3xf32>, tensor<2xf32> -> !dist.future<tensor<4x3xf32>, tensor<2xf32>>
  %u = arith.subf %w, %prev#0 : tensor<4x3xf32>
  return %u, %out : tensor<4x3xf32>, !dist.future<tensor<4x3xf32>, tensor<2xf32>>
}
