// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// Every strategy attribute round-trips through the printer and the parser.

// CHECK: dist.cluster = #dist.cluster<[#dist.node_spec<address = "10.0.0.1", cpus = [0, 1], gpus = [0, 1], chief = true, bandwidth = 2.500000e+01 : f64>, #dist.node_spec<address = "10.0.0.2", gpus = [0], chief = false, bandwidth = 1.000000e+00 : f64>]>
// CHECK-SAME: dist.strategy = #dist.strategy<id = "mixed", replicas = ["10.0.0.1:GPU:0", "10.0.0.1:GPU:1", "10.0.0.2:GPU:0"], nodes = [
// CHECK-SAME: #dist.node<"w", #dist.allreduce<spec = nccl, compressor = powersgd, rank = 4, group = 1>>,
// CHECK-SAME: #dist.node<"b", #dist.ps<server = "10.0.0.1:CPU:1", local_replication = true, sync = true, staleness = 2>>,
// CHECK-SAME: #dist.node<"e", partition = #dist.partition<[3, 1], sizes = [2, 1, 1]>, parts = [
// CHECK-SAME: #dist.node<"e/part_0", #dist.ps<server = "10.0.0.1:CPU:0", local_replication = false, sync = true, staleness = 0>>,
// CHECK-SAME: #dist.node<"e/part_1", #dist.allreduce<spec = auto, compressor = fp16, group = 0>>,
// CHECK-SAME: #dist.node<"e/part_2", #dist.allreduce<spec = ring, compressor = fp16_ef, group = 0>>]>],
// CHECK-SAME: pipeline = <depth = 1, stale = ["w"], compensation = delay_compensation, lambda = 5.000000e-01 : f64>>
module attributes {
  dist.cluster = #dist.cluster<[
    #dist.node_spec<address = "10.0.0.1", cpus = [0, 1], gpus = [0, 1], chief = true, bandwidth = 25.0 : f64>,
    #dist.node_spec<address = "10.0.0.2", gpus = [0], chief = false, bandwidth = 1.0 : f64>]>,
  dist.strategy = #dist.strategy<id = "mixed", replicas = ["10.0.0.1:GPU:0", "10.0.0.1:GPU:1", "10.0.0.2:GPU:0"], nodes = [
    #dist.node<"w", #dist.allreduce<spec = nccl, compressor = powersgd, rank = 4, group = 1>>,
    #dist.node<"b", #dist.ps<server = "10.0.0.1:CPU:1", local_replication = true, sync = true, staleness = 2>>,
    #dist.node<"e", partition = #dist.partition<[3, 1], sizes = [2, 1, 1]>, parts = [
      #dist.node<"e/part_0", #dist.ps<server = "10.0.0.1:CPU:0", local_replication = false, sync = true, staleness = 0>>,
      #dist.node<"e/part_1", #dist.allreduce<spec = auto, compressor = fp16, group = 0>>,
      #dist.node<"e/part_2", #dist.allreduce<spec = ring, compressor = fp16_ef, group = 0>>]>],
    pipeline = #dist.pipeline<depth = 1, stale = ["w"], compensation = delay_compensation, lambda = 0.5 : f64>>} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}, %e: tensor<4x8xf32> {nn.param = "e"}) {
    return
  }
}

// -----

// CHECK-LABEL: func @bucket
func.func @bucket(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
  // CHECK: %{{.*}}:3 = dist.all_reduce mean %{{.*}}, %{{.*}}, %{{.*}} {group = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
  %r:3 = dist.all_reduce mean %a, %b, %l {group = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
  // CHECK: dist.all_reduce sum
  %s = dist.all_reduce sum %a : tensor<4x3xf32>
  // A compressed bucket names its compressor.
  // CHECK: dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16>} : tensor<4x3xf32>
  %h = dist.all_reduce mean %a {compressor = #dist.compressor<fp16>} : tensor<4x3xf32>
  // CHECK: dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16_ef>, group = 1 : i64} : tensor<3xf32>
  %e = dist.all_reduce mean %b {compressor = #dist.compressor<fp16_ef>, group = 1 : i64} : tensor<3xf32>
  // CHECK: dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3xf32>
  %p = dist.all_reduce mean %a {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3xf32>
  return %r#0, %r#1, %r#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}

// Parameter-server collectives name their root device.
// CHECK-LABEL: func @rooted
func.func @rooted(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
  // CHECK: %{{.*}}:2 = dist.reduce mean %{{.*}}, %{{.*}} {root = "localhost:CPU:1"} : tensor<4x3xf32>, tensor<f32>
  %r:2 = dist.reduce mean %a, %l {root = "localhost:CPU:1"} : tensor<4x3xf32>, tensor<f32>
  // CHECK: dist.broadcast %{{.*}} {local_replication, root = "localhost:CPU:1"} : tensor<4x3xf32>
  %b = dist.broadcast %r#0 {local_replication, root = "localhost:CPU:1"} : tensor<4x3xf32>
  return %b, %r#1 : tensor<4x3xf32>, tensor<f32>
}
