// RUN: not autodist-opt %s --autodist-build-train-step="loss=mse" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not autodist-opt %s --autodist-build-train-step="optimizer=adam" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not autodist-opt %s --autodist-build-train-step="lr=-1" 2>&1 | FileCheck %s --check-prefix=LR

// LOSS: error: unsupported loss 'mse' (supported: cross_entropy)
// OPT: error: unsupported optimizer 'adam' (supported: sgd)
// LR: error: learning rate must be > 0, got -1
module {
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}
