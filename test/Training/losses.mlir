// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse label=target" | FileCheck %s --check-prefix=MSE
// RUN: autodist-opt %s -split-input-file --autodist-build-train-step | FileCheck %s --check-prefix=SEQ

// MSE against a target shaped like the output.
// MSE-LABEL: func.func @train_step(
// MSE-SAME: %[[T:[a-z0-9_]+]]: tensor<?x2xf32> {nn.label = "target"}
// MSE: %[[L:[a-z0-9_]+]] = nn.mse_loss %{{.*}}, %[[T]] : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<f32>
// MSE: nn.mse_loss_grad %{{.*}}, %{{.*}}, %[[T]]
module {
  func.func @forward(%w: tensor<4x2xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x2xf32> {nn.output = "y"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    return %0 : tensor<?x2xf32>
  }
}

// -----

// Cross-entropy over a sequence [B, T, V] with labels [B, T]: the mean over
// tokens.
// SEQ: %[[Y:[a-z0-9_]+]]: tensor<?x5xi64> {nn.label = "labels"}
// SEQ: nn.softmax_cross_entropy_loss %{{.*}}, %[[Y]] : (tensor<?x5x7xf32>, tensor<?x5xi64>) -> tensor<f32>
module {
  func.func @forward(%w: tensor<5x7xf32> {nn.param = "w"}, %x: tensor<?x5x7xf32> {nn.input = "x"}) -> (tensor<?x5x7xf32> {nn.output = "logits"}) {
    %0 = nn.add %x, %w : (tensor<?x5x7xf32>, tensor<5x7xf32>) -> tensor<?x5x7xf32>
    return %0 : tensor<?x5x7xf32>
  }
}
