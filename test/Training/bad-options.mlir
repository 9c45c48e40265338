// RUN: not autodist-opt %s --autodist-build-train-step="loss=hinge" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not autodist-opt %s --autodist-build-train-step="optimizer=lion" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not autodist-opt %s --autodist-build-train-step="lr=-1" 2>&1 | FileCheck %s --check-prefix=LR

// LOSS: error: unsupported loss 'hinge' (supported: cross_entropy, mse, output)
// OPT: error: unsupported optimizer 'lion' (supported: sgd, momentum, adam, adamw)
// LR: error: learning rate must be > 0, got -1
// RUN: not autodist-opt %s --autodist-build-train-step="lr-schedule=cosine warmup-steps=10 total-steps=5" 2>&1 | FileCheck %s --check-prefix=COS
// COS: error: the cosine schedule needs 0 <= warmup-steps < total-steps and min-lr >= 0
// RUN: not autodist-opt %s --autodist-build-train-step="freeze=nothere" 2>&1 | FileCheck %s --check-prefix=FREEZE
// FREEZE: error: --freeze names 'nothere', which is not a parameter
// RUN: not autodist-opt %s --autodist-build-train-step="loss=output" 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: error: loss 'output' needs the first output to be a scalar f32 loss, got 'tensor<?x4xf32>'
// RUN: not autodist-opt %s --autodist-build-train-step="optimizer=adam beta1=1.5" 2>&1 | FileCheck %s --check-prefix=BETA
// BETA: error: Adam needs 0 <= beta1, beta2 < 1 and epsilon > 0
module {
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}
