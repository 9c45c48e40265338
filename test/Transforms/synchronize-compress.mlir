// RUN: autodist-opt %s -split-input-file --dist-partition --dist-synchronize | FileCheck %s

// fp16: the compressed gradients of a group travel in their own bucket,
// marked with the compressor; the loss joins the first uncompressed bucket,
// so it stays exact.

// CHECK-LABEL: func.func @train_step
// CHECK-DAG: %[[H:.*]] = dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16>} : tensor<4x3xf32>
// CHECK-DAG: %[[N:.*]]:2 = dist.all_reduce mean %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<f32>
// CHECK: nn.sgd_update %{{.*}}, %[[H]],
// CHECK: nn.sgd_update %{{.*}}, %[[N]]#0,
// CHECK: return %[[N]]#1,
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = fp16, group = 0>>,
    #dist.node<"b", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"},
                        %gw: tensor<4x3xf32>, %gb: tensor<3xf32>, %loss: tensor<f32>, %lr: tensor<f32>)
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}, tensor<3xf32> {nn.param_out = "b"}) {
    %0 = nn.sgd_update %w, %gw, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    %1 = nn.sgd_update %b, %gb, %lr : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    return %loss, %0, %1 : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>
  }
}

// -----

// fp16 with error feedback, every gradient compressed: one bucket per group
// and compressor, and the loss alone in an uncompressed bucket of the first
// group.

// CHECK-LABEL: func.func @train_step
// CHECK-DAG: %[[E:.*]]:2 = dist.all_reduce mean %{{.*}}, %{{.*}} {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>, tensor<3xf32>
// CHECK-DAG: %[[L:.*]] = dist.all_reduce mean %{{.*}} : tensor<f32>
// CHECK-DAG: %[[F:.*]] = dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16>, group = 1 : i64} : tensor<2xf32>
// CHECK-DAG: nn.sgd_update %{{.*}}, %[[E]]#0,
// CHECK-DAG: nn.sgd_update %{{.*}}, %[[E]]#1,
// CHECK-DAG: nn.sgd_update %{{.*}}, %[[F]],
// CHECK: return %[[L]],
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = fp16_ef, group = 0>>,
    #dist.node<"b", #dist.allreduce<spec = auto, compressor = fp16_ef, group = 0>>,
    #dist.node<"c", #dist.allreduce<spec = auto, compressor = fp16, group = 1>>]>} {
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}, %c: tensor<2xf32> {nn.param = "c"},
                        %gw: tensor<4x3xf32>, %gb: tensor<3xf32>, %gc: tensor<2xf32>, %loss: tensor<f32>, %lr: tensor<f32>)
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}, tensor<3xf32> {nn.param_out = "b"}, tensor<2xf32> {nn.param_out = "c"}) {
    %0 = nn.sgd_update %w, %gw, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    %1 = nn.sgd_update %b, %gb, %lr : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = nn.sgd_update %c, %gc, %lr : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    return %loss, %0, %1, %2 : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<2xf32>
  }
}

// -----

// A partitioned gradient: each shard joins the bucket of its own
// compressor, even within one group.

// CHECK-LABEL: func.func @train_step
// CHECK-DAG: %[[S0:.*]] = dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16>} : tensor<2x3xf32>
// CHECK-DAG: %[[S1:.*]]:2 = dist.all_reduce mean %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32>
// CHECK: %[[W:.*]] = tensor.concat dim(0) %[[S0]], %[[S1]]#0
// CHECK: nn.sgd_update %{{.*}}, %[[W]],
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", partition = #dist.partition<[2, 1]>, parts = [
      #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = fp16, group = 0>>,
      #dist.node<"w/part_1", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>]>} {
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %gw: tensor<4x3xf32>, %loss: tensor<f32>, %lr: tensor<f32>)
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}) {
    %0 = nn.sgd_update %w, %gw, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    return %loss, %0 : tensor<f32>, tensor<4x3xf32>
  }
}

// -----

// PowerSGD: buckets also split by rank; the bucket carries its rank.

// CHECK-LABEL: func.func @train_step
// CHECK-DAG: %[[P2:.*]]:2 = dist.all_reduce mean %{{.*}}, %{{.*}} {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>
// CHECK-DAG: %[[P1:.*]] = dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<powersgd>, powersgd_rank = 1 : i64} : tensor<2x2xf32>
// CHECK-DAG: dist.all_reduce mean %{{.*}} : tensor<f32>
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = powersgd, rank = 2, group = 0>>,
    #dist.node<"b", #dist.allreduce<spec = auto, compressor = powersgd, rank = 2, group = 0>>,
    #dist.node<"c", #dist.allreduce<spec = auto, compressor = powersgd, rank = 1, group = 0>>]>} {
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}, %c: tensor<2x2xf32> {nn.param = "c"},
                        %gw: tensor<4x3xf32>, %gb: tensor<3xf32>, %gc: tensor<2x2xf32>, %loss: tensor<f32>, %lr: tensor<f32>)
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}, tensor<3xf32> {nn.param_out = "b"}, tensor<2x2xf32> {nn.param_out = "c"}) {
    %0 = nn.sgd_update %w, %gw, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    %1 = nn.sgd_update %b, %gb, %lr : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = nn.sgd_update %c, %gc, %lr : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    return %loss, %0, %1, %2 : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<2x2xf32>
  }
}
