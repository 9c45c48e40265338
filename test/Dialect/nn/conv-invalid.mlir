// Bad shapes and attributes of the CNN ops.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @conv_rank(%x: tensor<?x2x8xf32>, %w: tensor<3x2x3xf32>) -> tensor<?x3x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.conv supports 2-D spatial dims only (an NCHW input of rank 4), got ?x2x8}}
  %0 = nn.conv %x, %w : (tensor<?x2x8xf32>, tensor<3x2x3xf32>) -> tensor<?x3x6xf32>
  return %0 : tensor<?x3x6xf32>
}

// -----

func.func @conv_dynamic_channels(%x: tensor<?x?x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.conv needs static channel and spatial dims, got ?x?x8x8}}
  %0 = nn.conv %x, %w : (tensor<?x?x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32>
  return %0 : tensor<?x3x6x6xf32>
}

// -----

func.func @conv_channels(%x: tensor<?x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.conv weight 3x2x3x3 has 2 input channels per group, expected 4 / group 1 = 4}}
  %0 = nn.conv %x, %w : (tensor<?x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32>
  return %0 : tensor<?x3x6x6xf32>
}

// -----

func.func @conv_group(%x: tensor<?x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.conv group 2 must divide both the input channels (4) and the output channels (3)}}
  %0 = nn.conv %x, %w {group = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32>
  return %0 : tensor<?x3x6x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<?x2x8x8xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<?x3x6x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.conv bias has shape [2], expected [3] (one per output channel)}}
  %0 = nn.conv %x, %w, %b : (tensor<?x2x8x8xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<?x3x6x6xf32>
  return %0 : tensor<?x3x6x6xf32>
}

// -----

func.func @conv_window(%x: tensor<?x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x1x1xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.conv window 5 (dilated kernel) is larger than the padded input 4 in spatial dim 0}}
  %0 = nn.conv %x, %w {dilations = array<i64: 2, 1>} : (tensor<?x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x1x1xf32>
  return %0 : tensor<?x3x1x1xf32>
}

// -----

func.func @conv_strides(%x: tensor<?x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32> {
  // expected-error@+1 {{'nn.conv' op strides must be 2 values >= 1, got [0, 1]}}
  %0 = nn.conv %x, %w {strides = array<i64: 0, 1>} : (tensor<?x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x6x6xf32>
  return %0 : tensor<?x3x6x6xf32>
}

// -----

func.func @conv_result(%x: tensor<?x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x8x8xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{'nn.conv' op inferred type(s) 'tensor<?x3x6x6xf32>' are incompatible with return type(s) of operation 'tensor<?x3x8x8xf32>'}}
  %0 = nn.conv %x, %w : (tensor<?x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

func.func @max_pool_kernel(%x: tensor<?x2x8x8xf32>) -> tensor<?x2x8x8xf32> {
  // expected-error@+1 {{'nn.max_pool' op kernel_shape must be 2 values >= 1, got [2]}}
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<?x2x8x8xf32>) -> tensor<?x2x8x8xf32>
  return %0 : tensor<?x2x8x8xf32>
}

// -----

func.func @max_pool_indices_order(%x: tensor<?x2x8x8xf32>) -> tensor<?x2x4x4xi64> {
  // expected-error@+1 {{'nn.max_pool_indices' op storage_order must be 0 or 1, got 2}}
  %0 = nn.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 2 : i64} : (tensor<?x2x8x8xf32>) -> tensor<?x2x4x4xi64>
  return %0 : tensor<?x2x4x4xi64>
}

// -----

func.func @max_pool_pads(%x: tensor<?x2x8x8xf32>) -> tensor<?x2x11x8xf32> {
  // expected-error@+1 {{'nn.max_pool' op pads [2, 0, 2, 0] must be smaller than kernel_shape [2, 1]}}
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2, 1>, pads = array<i64: 2, 0, 2, 0>} : (tensor<?x2x8x8xf32>) -> tensor<?x2x11x8xf32>
  return %0 : tensor<?x2x11x8xf32>
}

// -----

func.func @average_pool_pads(%x: tensor<?x2x8x8xf32>) -> tensor<?x2x8x8xf32> {
  // expected-error@+1 {{'nn.average_pool' op pads must be 4 values >= 0 ([top, left, bottom, right]), got [1, 1]}}
  %0 = nn.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1>} : (tensor<?x2x8x8xf32>) -> tensor<?x2x8x8xf32>
  return %0 : tensor<?x2x8x8xf32>
}

// -----

func.func @global_average_pool_rank(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.global_average_pool expects [N, C, D1, ...] (rank >= 3), got ?x2}}
  %0 = nn.global_average_pool %x : (tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

func.func @batch_norm_channels(%x: tensor<?x4x2x2xf32>, %p: tensor<4xf32>, %v: tensor<3xf32>) -> tensor<?x4x2x2xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.batch_norm var has shape [3], expected [4] (one per channel)}}
  %0 = nn.batch_norm %x, %p, %p, %p, %v : (tensor<?x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<?x4x2x2xf32>
  return %0 : tensor<?x4x2x2xf32>
}

// -----

func.func @batch_norm_epsilon(%x: tensor<?x4xf32>, %p: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error@+1 {{'nn.batch_norm' op epsilon must be finite and >= 0, got -1.000000e+00}}
  %0 = nn.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @conv_input_grad_group(%dy: tensor<?x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error@+1 {{'nn.conv_input_grad' op group must be >= 1, got 0}}
  %0 = nn.conv_input_grad %dy, %w {group = 0 : i64, input_size = array<i64: 8, 8>} : (tensor<?x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @conv_weight_grad_strides(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x4x8x8xf32>) -> tensor<4x2x3x3xf32> {
  // expected-error@+1 {{'nn.conv_weight_grad' op strides must be 2 values >= 1, got [0, 1]}}
  %0 = nn.conv_weight_grad %dy, %x {group = 2 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 0, 1>} : (tensor<?x4x6x6xf32>, tensor<?x4x8x8xf32>) -> tensor<4x2x3x3xf32>
  return %0 : tensor<4x2x3x3xf32>
}
