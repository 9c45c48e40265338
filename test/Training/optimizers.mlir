// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum momentum=0.8 nesterov=true weight-decay=0.01" | FileCheck %s --check-prefix=MOM
// RUN: autodist-opt %s --autodist-build-train-step="optimizer=adam beta1=0.8 weight-decay=0.1" | FileCheck %s --check-prefix=ADAM
// RUN: autodist-opt %s --autodist-build-train-step="optimizer=adamw weight-decay=0.1 lr-schedule=cosine warmup-steps=5 total-steps=100 min-lr=0.001" | FileCheck %s --check-prefix=ADAMW
// RUN: autodist-opt %s --autodist-build-train-step="freeze=b clip-norm=2.5" | FileCheck %s --check-prefix=FREEZE

// Optimizer state becomes arguments and results of @train_step, tagged
// with its name; the state of a parameter follows its parameter's order.
// MOM-LABEL: func.func @train_step(
// MOM-SAME: %[[W:[a-z0-9_]+]]: tensor<4x3xf32> {nn.param = "w"}, %[[B:[a-z0-9_]+]]: tensor<3xf32> {nn.param = "b"},
// MOM-SAME: %[[VW:[a-z0-9_]+]]: tensor<4x3xf32> {nn.state = "w/momentum_buffer"}, %[[VB:[a-z0-9_]+]]: tensor<3xf32> {nn.state = "b/momentum_buffer"},
// MOM-SAME: %[[LR:[a-z0-9_]+]]: tensor<f32> {nn.lr}, %{{.*}}: tensor<f32> {nn.step})
// MOM-SAME: tensor<4x3xf32> {nn.state_out = "w/momentum_buffer"}, tensor<3xf32> {nn.state_out = "b/momentum_buffer"})
// MOM: %[[PW:[a-z0-9_]+]], %[[NVW:[a-z0-9_]+]] = nn.momentum_update %[[W]], %{{.*}}, %[[VW]], %[[LR]] {momentum = 8.000000e-01 : f32, nesterov = true, weight_decay = 0.00999999977 : f32}
// MOM: %[[PB:[a-z0-9_]+]], %[[NVB:[a-z0-9_]+]] = nn.momentum_update %[[B]], %{{.*}}, %[[VB]], %[[LR]]
// MOM: return %{{.*}}, %[[PW]], %[[PB]], %[[NVW]], %[[NVB]]

// ADAM: {nn.state = "w/adam_m"}, %{{.*}}: tensor<4x3xf32> {nn.state = "w/adam_v"}
// ADAM: nn.adam_update %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {beta1 = 8.000000e-01 : f32, weight_decay = 1.000000e-01 : f32}

// The schedule is recorded for the runtime, which computes each step's lr.
// ADAMW: autodist.train = {label = "labels", loss = "cross_entropy", lr = 1.000000e-02 : f64, min_lr = 1.000000e-03 : f64, optimizer = "adamw", schedule = "cosine", total_steps = 100 : i64, warmup_steps = 5 : i64}
// ADAMW: nn.adam_update {{.*}} {decoupled = true, weight_decay = 1.000000e-01 : f32}

// A frozen parameter is passed through unchanged; clipping sees only the
// trained gradients.
// FREEZE: %[[C:[a-z0-9_]+]] = nn.clip_by_global_norm %{{.*}} {max_norm = 2.500000e+00 : f32} : (tensor<4x3xf32>) -> tensor<4x3xf32>
// FREEZE: %[[NW:[a-z0-9_]+]] = nn.sgd_update %{{.*}}, %[[C]], %{{.*}}
// FREEZE: return %{{.*}}, %[[NW]], %arg1 :
module {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"},
                     %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
