// RUN: autodist-opt %s -split-input-file -verify-diagnostics --autodist-build-train-step

// expected-error@+1 {{no @forward function to build a training step from}}
module {
}

// -----

module {
  // expected-error@+1 {{cross_entropy loss needs f32 logits [N..., C] as the first output, got 'tensor<?xf32>'}}
  func.func @forward(%w: tensor<4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?xf32> {
    %0 = nn.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<?x4xf32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}

// -----

module {
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    // expected-error@+1 {{'nn.relu_grad' op has no gradient (it does not implement DifferentiableOpInterface)}}
    %1 = nn.relu_grad %0, %0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %2 = nn.add %0, %1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    return %2 : tensor<?x4xf32>
  }
}

// -----

module {
  // expected-warning@+1 {{parameter 'unused' does not affect the loss; it is not trained}}
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %u: tensor<4xf32> {nn.param = "unused"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}

// -----

// A ratio given at run time (a graph input) is fine for inference, which does
// not read it; the training form needs a constant one.
module {
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}, %r: tensor<f32> {nn.input = "r"}) -> tensor<?x4xf32> {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    // expected-error@+1 {{'nn.dropout' op has its ratio given at run time (a graph input); the training step needs a constant ratio (a Constant or an initializer)}}
    %1, %m = nn.dropout %0, %r : (tensor<?x4xf32>, tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
    return %1 : tensor<?x4xf32>
  }
}
