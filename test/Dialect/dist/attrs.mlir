// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK: module attributes {dist.strategy = #dist.strategy<builder = "allreduce", nodes = [#dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>, #dist.node<"b", #dist.allreduce<spec = nccl, compressor = horovod, group = 1>>]>}
module attributes {dist.strategy = #dist.strategy<builder = "allreduce", nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
    #dist.node<"b", #dist.allreduce<spec = nccl, compressor = horovod, group = 1>>]>} {
}

// -----

// CHECK-LABEL: func @bucket
func.func @bucket(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
  // CHECK: %{{.*}}:3 = dist.all_reduce mean %{{.*}}, %{{.*}}, %{{.*}} {group = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
  %r:3 = dist.all_reduce mean %a, %b, %l {group = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
  // CHECK: dist.all_reduce sum
  %s = dist.all_reduce sum %a : tensor<4x3xf32>
  return %r#0, %r#1, %r#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}
