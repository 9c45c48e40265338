// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// A CNN block. Training: batch norm takes its training form (batch
// statistics), whose running mean/var are the outputs of the parameters
// "mean" and "var" (not trained: no optimizer update). Each op's VJP is its
// gradient op: conv (weight: conv_weight_grad, bias: reduce_sum; the input
// is not differentiated), pools, batch norm (full backward).

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x2x3x3xf32> {nn.param = "w"}, %[[B:[^:]*]]: tensor<4xf32> {nn.param = "b"}
// CHECK-SAME: %[[SCALE:[^:]*]]: tensor<4xf32> {nn.param = "scale"}, %[[BIAS:[^:]*]]: tensor<4xf32> {nn.param = "bias"}
// CHECK-SAME: %[[MEAN:[^:]*]]: tensor<4xf32> {nn.param = "mean"}, %[[VAR:[^:]*]]: tensor<4xf32> {nn.param = "var"}
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x2x8x8xf32> {nn.input = "x"}
// CHECK: %[[C:.*]] = nn.conv %[[X]], %[[W]], %[[B]]
// CHECK: %[[Y:.*]], %[[NM:.*]], %[[NV:.*]], %[[BM:.*]], %[[BV:.*]] = nn.batch_norm_train %[[C]], %[[SCALE]], %[[BIAS]], %[[MEAN]], %[[VAR]] {epsilon = 1.000000e-03 : f32, momentum = 8.000000e-01 : f32}
// CHECK: %[[M:.*]] = nn.max_pool %[[Y]]
// CHECK: %[[A:.*]] = nn.average_pool %[[M]]
// CHECK: nn.global_average_pool %[[A]]
// CHECK: %[[INV:.*]] = arith.constant dense<2.500000e-01> : tensor<1x1x2x2xf32>
// CHECK: %[[DG:.*]] = nn.mul %{{.*}}, %[[INV]] : (tensor<?x4x1x1xf32>, tensor<1x1x2x2xf32>) -> tensor<?x4x2x2xf32>
// CHECK: %[[DA:.*]] = nn.average_pool_grad %[[DG]] {count_include_pad = true, input_size = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>}
// CHECK: %[[DM:.*]] = nn.max_pool_grad %[[DA]], %[[Y]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
// CHECK: %[[DC:.*]], %[[DSCALE:.*]], %[[DBIAS:.*]] = nn.batch_norm_grad %[[DM]], %[[C]], %[[SCALE]], %[[BM]], %[[BV]] {epsilon = 1.000000e-03 : f32, training_mode = true}
// CHECK-NOT: nn.conv_input_grad
// CHECK: %[[DW:.*]] = nn.conv_weight_grad %[[DC]], %[[X]] {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<?x2x8x8xf32>) -> tensor<4x2x3x3xf32>
// CHECK: %[[DB:.*]] = nn.reduce_sum %[[DC]] {axes = array<i64: 0, 2, 3>, keepdims = false}
// CHECK: %[[NW:.*]] = nn.sgd_update %[[W]], %[[DW]]
// CHECK: %[[NB:.*]] = nn.sgd_update %[[B]], %[[DB]]
// CHECK: %[[NS:.*]] = nn.sgd_update %[[SCALE]], %[[DSCALE]]
// CHECK: %[[NBI:.*]] = nn.sgd_update %[[BIAS]], %[[DBIAS]]
// CHECK-NOT: nn.sgd_update
// CHECK: return %{{.*}}, %[[NW]], %[[NB]], %[[NS]], %[[NBI]], %[[NM]], %[[NV]]

module {
  func.func @forward(%w: tensor<4x2x3x3xf32> {nn.param = "w"}, %b: tensor<4xf32> {nn.param = "b"},
                     %scale: tensor<4xf32> {nn.param = "scale"}, %bias: tensor<4xf32> {nn.param = "bias"},
                     %mean: tensor<4xf32> {nn.param = "mean"}, %var: tensor<4xf32> {nn.param = "var"},
                     %x: tensor<?x2x8x8xf32> {nn.input = "x"}) -> (tensor<?x4x1x1xf32> {nn.output = "y"}) {
    %c = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<?x2x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    %n = nn.batch_norm %c, %scale, %bias, %mean, %var {epsilon = 1.000000e-03 : f32, momentum = 0.8 : f32}
        : (tensor<?x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
    %m = nn.max_pool %n {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x4x4x4xf32>) -> tensor<?x4x2x2xf32>
    %a = nn.average_pool %m {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, count_include_pad = true}
        : (tensor<?x4x2x2xf32>) -> tensor<?x4x2x2xf32>
    %g = nn.global_average_pool %a : (tensor<?x4x2x2xf32>) -> tensor<?x4x1x1xf32>
    return %g : tensor<?x4x1x1xf32>
  }
}

// -----

// Grouped convolution after a parameterized one, so its input gradient is
// needed: conv_input_grad, transposed with the group.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W1:[^:]*]]: tensor<4x2x1x1xf32> {nn.param = "w1"}, %[[W2:[^:]*]]: tensor<4x2x2x1xf32> {nn.param = "w2"}, %[[X:[^:]*]]: tensor<?x2x6x6xf32>
// CHECK: %[[C1:.*]] = nn.conv %[[X]], %[[W1]] :
// CHECK: nn.conv %[[C1]], %[[W2]] {dilations = array<i64: 2, 1>, group = 2 : i64}
// CHECK: %[[DY:.*]] = nn.mse_loss_grad
// CHECK-DAG: %[[DC1:.*]] = nn.conv_input_grad %[[DY]], %[[W2]] {dilations = array<i64: 2, 1>, group = 2 : i64, input_size = array<i64: 6, 6>} : (tensor<?x4x4x6xf32>, tensor<4x2x2x1xf32>) -> tensor<?x4x6x6xf32>
// CHECK-DAG: %[[DW2:.*]] = nn.conv_weight_grad %[[DY]], %[[C1]] {dilations = array<i64: 2, 1>, group = 2 : i64, kernel_shape = array<i64: 2, 1>}
// CHECK-DAG: %[[DW1:.*]] = nn.conv_weight_grad %[[DC1]], %[[X]] {kernel_shape = array<i64: 1, 1>}
// CHECK: nn.sgd_update %[[W1]], %[[DW1]]
// CHECK: nn.sgd_update %[[W2]], %[[DW2]]
module {
  func.func @forward(%w1: tensor<4x2x1x1xf32> {nn.param = "w1"}, %w2: tensor<4x2x2x1xf32> {nn.param = "w2"},
                     %x: tensor<?x2x6x6xf32> {nn.input = "x"}) -> (tensor<?x4x4x6xf32> {nn.output = "y"}) {
    %c1 = nn.conv %x, %w1 : (tensor<?x2x6x6xf32>, tensor<4x2x1x1xf32>) -> tensor<?x4x6x6xf32>
    %c2 = nn.conv %c1, %w2 {dilations = array<i64: 2, 1>, group = 2 : i64}
        : (tensor<?x4x6x6xf32>, tensor<4x2x2x1xf32>) -> tensor<?x4x4x6xf32>
    return %c2 : tensor<?x4x4x6xf32>
  }
}

// -----

// An embedding lookup (gather_grad: scatter-add into the table; the ids get
// none) and layer norm, whose scale [1, 4] broadcasts: its gradient is
// summed to that shape.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[T:[^:]*]]: tensor<10x4xf32> {nn.param = "table"}, %[[G:[^:]*]]: tensor<1x4xf32> {nn.param = "g"}, %[[B:[^:]*]]: tensor<4xf32> {nn.param = "b"}, %[[IDS:[^:]*]]: tensor<?x3xi64>
// CHECK: %[[E:.*]] = nn.gather %[[T]], %[[IDS]] :
// CHECK: nn.layer_norm %[[E]], %[[G]], %[[B]] {axis = -2 : i64
// CHECK: %[[DY:.*]] = nn.mse_loss_grad
// CHECK: %[[DE:.*]], %[[DGF:.*]], %[[DBF:.*]] = nn.layer_norm_grad %[[DY]], %[[E]], %[[G]] {axis = -2 : i64, epsilon = 1.000000e-03 : f32} : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<1x4xf32>) -> (tensor<?x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
// CHECK: %[[DGS:.*]] = nn.reduce_sum %[[DGF]] {axes = array<i64: 0>, keepdims = false} : (tensor<3x4xf32>) -> tensor<4xf32>
// CHECK: %[[DG:.*]] = nn.reshape %[[DGS]] {shape = array<i64: 1, 4>}
// CHECK: %[[DB:.*]] = nn.reduce_sum %[[DBF]] {axes = array<i64: 0>, keepdims = false} : (tensor<3x4xf32>) -> tensor<4xf32>
// CHECK: %[[DT:.*]] = nn.gather_grad %[[DE]], %[[IDS]] {axis = 0 : i64, axis_size = 10 : i64} : (tensor<?x3x4xf32>, tensor<?x3xi64>) -> tensor<10x4xf32>
// CHECK: nn.sgd_update %[[T]], %[[DT]]
// CHECK: nn.sgd_update %[[G]], %[[DG]]
// CHECK: nn.sgd_update %[[B]], %[[DB]]
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %g: tensor<1x4xf32> {nn.param = "g"},
                     %b: tensor<4xf32> {nn.param = "b"}, %ids: tensor<?x3xi64> {nn.input = "ids"})
      -> (tensor<?x3x4xf32> {nn.output = "z"}) {
    %e = nn.gather %t, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<?x3xi64>) -> tensor<?x3x4xf32>
    %l = nn.layer_norm %e, %g, %b {axis = -2 : i64, epsilon = 1.0e-03 : f32}
        : (tensor<?x3x4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
    return %l : tensor<?x3x4xf32>
  }
}

// -----

// A batch norm imported in training form (training_mode = 1) stays as it
// is; its new running statistics are the running-statistic outputs.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[SCALE:[^:]*]]: tensor<3xf32> {nn.param = "s"}, %[[BIAS:[^:]*]]: tensor<3xf32> {nn.param = "b"}
// CHECK-SAME: %[[MEAN:[^:]*]]: tensor<3xf32> {nn.param = "m"}, %[[VAR:[^:]*]]: tensor<3xf32> {nn.param = "v"}
// CHECK: %[[Y:.*]], %[[NM:.*]], %[[NV:.*]], %[[BM:.*]], %[[BV:.*]] = nn.batch_norm_train %{{.*}}, %[[SCALE]], %[[BIAS]], %[[MEAN]], %[[VAR]]
// CHECK-NOT: nn.batch_norm_train
// CHECK: nn.batch_norm_grad %{{.*}}, %{{.*}}, %[[SCALE]], %[[BM]], %[[BV]]
// CHECK: %[[NS:.*]] = nn.sgd_update %[[SCALE]]
// CHECK: %[[NB:.*]] = nn.sgd_update %[[BIAS]]
// CHECK: return %{{.*}}, %[[NS]], %[[NB]], %[[NM]], %[[NV]]

module {
  func.func @forward(%s: tensor<3xf32> {nn.param = "s"}, %b: tensor<3xf32> {nn.param = "b"},
                     %m: tensor<3xf32> {nn.param = "m"}, %v: tensor<3xf32> {nn.param = "v"},
                     %x: tensor<?x3xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "y"}) {
    %y, %nm, %nv, %bm, %bv = nn.batch_norm_train %x, %s, %b, %m, %v
        : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
        -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
    return %y : tensor<?x3xf32>
  }
}
