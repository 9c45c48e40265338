// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="optimizer=adam loss-scale=dynamic loss-scale-growth-interval=5" | FileCheck %s
// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss-scale=dynamic loss-scale-init=1024 clip-norm=1.0" | FileCheck %s --check-prefix=SGD
// RUN: not autodist-opt %s -split-input-file --autodist-build-train-step="loss-scale=static" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not autodist-opt %s -split-input-file --autodist-build-train-step="loss-scale=dynamic loss-scale-init=0" 2>&1 | FileCheck %s --check-prefix=ZERO

// fp16 dynamic loss scaling (PyTorch GradScaler): the scale, its growth
// tracker and (Adam) the count of steps taken are state after the optimizer
// state; the scale starts at loss-scale-init (65536). The backward pass
// starts from the scale, the gradients are unscaled, a step with a
// non-finite gradient keeps the parameters and the optimizer state (the
// update holds on found_inf) and the step count, and the scale is updated.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: {nn.state = "b/adam_v"}, %[[S:[a-z0-9_]+]]: tensor<f32> {nn.state = "amp/loss_scale", nn.state_init = 6.553600e+04 : f32}, %[[T:[a-z0-9_]+]]: tensor<f32> {nn.state = "amp/growth_tracker"}, %[[N:[a-z0-9_]+]]: tensor<f32> {nn.state = "amp/optimizer_steps"},
// CHECK-SAME: tensor<f32> {nn.state_out = "amp/loss_scale"}, tensor<f32> {nn.state_out = "amp/growth_tracker"}, tensor<f32> {nn.state_out = "amp/optimizer_steps"})
// CHECK: nn.softmax_cross_entropy_loss_grad %[[S]],
// CHECK: %[[G:.*]]:2, %[[INF:.*]] = nn.unscale_gradients %[[S]], %{{.*}}, %{{.*}} :
// CHECK: %[[STEP:.*]] = nn.add %[[N]], %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: %[[NP:.*]], %[[NM:.*]], %[[NV:.*]] = nn.adam_update %arg0, %[[G]]#0, %arg2, %arg3, %{{.*}}, %[[STEP]], %[[INF]] :
// CHECK-NOT: nn.where %[[INF]], %arg
// CHECK: %[[NS:.*]], %[[NT:.*]] = nn.update_loss_scale %[[S]], %[[T]], %[[INF]] {growth_interval = 5 : i64}
// CHECK: %[[NN:.*]] = nn.where %[[INF]], %[[N]], %[[STEP]]
// CHECK: return %{{.*}}, %[[NP]], %{{.*}}, %[[NM]], %[[NV]], %{{.*}}, %{{.*}}, %[[NS]], %[[NT]], %[[NN]] :

// SGD has no step count; the gradients are unscaled before clipping (as
// GradScaler.unscale_ before clip_grad_norm_).
// SGD-LABEL: func.func @train_step(
// SGD-SAME: nn.state_init = 1.024000e+03 : f32}, %{{.*}}: tensor<f32> {nn.state = "amp/growth_tracker"}, %{{.*}}: tensor<?x4xf32> {nn.input = "x"}
// SGD: %[[G:.*]]:2, %[[INF:.*]] = nn.unscale_gradients
// SGD: nn.clip_by_global_norm %[[G]]#0, %[[G]]#1
// SGD: nn.sgd_update %{{.*}}, %{{.*}}, %{{.*}}, %[[INF]] :
// SGD-NOT: amp/optimizer_steps

// BAD: error: unsupported loss-scale 'static' (supported: none, dynamic)
// ZERO: error: the loss scale must be a finite number > 0, got 0

module {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"},
                     %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
