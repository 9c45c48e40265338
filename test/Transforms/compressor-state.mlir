// RUN: autodist-opt %s -split-input-file --dist-partition --dist-synchronize --dist-split-powersgd --dist-compressor-state | FileCheck %s

// The compressors' state becomes state of the step, after the optimizer
// state, in program order: PowerSGD's matrix (group 1) first, its residual
// and Q (slots 0 and 1; Q seeded 0x5eed0000 + 1 = 1592590337), then the
// fp16_ef bucket of group 0 (slot 2). Each rank keeps its own
// (dist.per_rank); the new values are returned after the new optimizer
// state, in the same order.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: {nn.state = "w/momentum_buffer"}
// CHECK-SAME: %[[PRES:[a-z0-9]+]]: tensor<30xf32> {dist.per_rank, nn.state = "powersgd.0/residual"}
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<10xf32> {dist.init = "powersgd_q", dist.init_seed = 1592590337 : i64, dist.per_rank, nn.state = "powersgd.0/q"}
// CHECK-SAME: %[[ERES:[a-z0-9]+]]: tensor<15xf32> {dist.per_rank, nn.state = "fp16_ef.2/residual"}
// CHECK-SAME: {nn.state_out = "w/momentum_buffer"}, tensor<30xf32> {nn.state_out = "powersgd.0/residual"}, tensor<10xf32> {nn.state_out = "powersgd.0/q"}, tensor<15xf32> {nn.state_out = "fp16_ef.2/residual"})
// CHECK: %[[P:.*]]:3 = dist.all_reduce mean %{{.*}} state(%[[PRES]], %[[Q]] : tensor<30xf32>, tensor<10xf32>) {compressor = #dist.compressor<powersgd>, group = 1 : i64, powersgd_rank = 2 : i64} : tensor<6x5xf32>
// CHECK: %[[E:.*]]:3 = dist.all_reduce mean %{{.*}}, %{{.*}} state(%[[ERES]] : tensor<15xf32>) {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>, tensor<3xf32>
// CHECK: %[[L:.*]] = dist.all_reduce mean %{{.*}} : tensor<f32>
// CHECK: nn.momentum_update %{{.*}}, %[[E]]#0,
// CHECK: nn.sgd_update %{{.*}}, %[[E]]#1,
// CHECK: nn.sgd_update %{{.*}}, %[[P]]#0,
// CHECK: return %[[L]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[P]]#1, %[[P]]#2, %[[E]]#2 :
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = fp16_ef, group = 0>>,
    #dist.node<"b", #dist.allreduce<spec = auto, compressor = fp16_ef, group = 0>>,
    #dist.node<"v", #dist.allreduce<spec = auto, compressor = powersgd, rank = 2, group = 1>>]>} {
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}, %v: tensor<6x5xf32> {nn.param = "v"},
                        %m: tensor<4x3xf32> {nn.state = "w/momentum_buffer"},
                        %gw: tensor<4x3xf32>, %gb: tensor<3xf32>, %gv: tensor<6x5xf32>, %loss: tensor<f32>, %lr: tensor<f32>)
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}, tensor<3xf32> {nn.param_out = "b"}, tensor<6x5xf32> {nn.param_out = "v"}, tensor<4x3xf32> {nn.state_out = "w/momentum_buffer"}) {
    %0, %nm = nn.momentum_update %w, %gw, %m, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    %1 = nn.sgd_update %b, %gb, %lr : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = nn.sgd_update %v, %gv, %lr : (tensor<6x5xf32>, tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
    return %loss, %0, %1, %2, %nm : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<6x5xf32>, tensor<4x3xf32>
  }
}

// -----

// Without error feedback (fp16, none) nothing changes.

// CHECK-LABEL: func.func @train_step
// CHECK-NOT: dist.per_rank
// CHECK: dist.all_reduce mean %{{.*}} {compressor = #dist.compressor<fp16>} : tensor<4x3xf32>
// CHECK-NOT: state(
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = fp16, group = 0>>]>} {
  func.func @train_step(%w: tensor<4x3xf32> {nn.param = "w"}, %gw: tensor<4x3xf32>, %loss: tensor<f32>, %lr: tensor<f32>)
      -> (tensor<f32> {nn.loss}, tensor<4x3xf32> {nn.param_out = "w"}) {
    %0 = nn.sgd_update %w, %gw, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    return %loss, %0 : tensor<f32>, tensor<4x3xf32>
  }
}
