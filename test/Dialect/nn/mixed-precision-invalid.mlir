// 16-bit operands of products and convolutions, and the ops of fp16 loss
// scaling: what the verifiers refuse.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @mixed_operands(%a: tensor<2x4xbf16>, %b: tensor<4x3xf16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'nn.matmul' op operands must have the same element type, got 'bf16' and 'f16'}}
  %0 = nn.matmul %a, %b : (tensor<2x4xbf16>, tensor<4x3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @half_and_f32(%a: tensor<2x4xbf16>, %b: tensor<3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'nn.gemm' op operands must have the same element type, got 'bf16' and 'f32'}}
  %0 = nn.gemm %a, %b {transB = true} : (tensor<2x4xbf16>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @no_gradients(%s: tensor<f32>) -> tensor<i1> {
  // expected-error @+1 {{'nn.unscale_gradients' op needs at least one gradient}}
  %inf = nn.unscale_gradients %s : (tensor<f32>) -> tensor<i1>
  return %inf : tensor<i1>
}

// -----

func.func @bad_backoff(%s: tensor<f32>, %t: tensor<f32>, %inf: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'nn.update_loss_scale' op backoff_factor must be in (0, 1)}}
  %s1, %t1 = nn.update_loss_scale %s, %t, %inf {backoff_factor = 1.5 : f32}
      : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>)
  return %s1 : tensor<f32>
}

// -----

func.func @bad_growth(%s: tensor<f32>, %t: tensor<f32>, %inf: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'nn.update_loss_scale' op growth_factor must be > 1}}
  %s1, %t1 = nn.update_loss_scale %s, %t, %inf {growth_factor = 1.0 : f32}
      : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>)
  return %s1 : tensor<f32>
}

// -----

func.func @bad_interval(%s: tensor<f32>, %t: tensor<f32>, %inf: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'nn.update_loss_scale' op growth_interval must be >= 1}}
  %s1, %t1 = nn.update_loss_scale %s, %t, %inf {growth_interval = 0 : i64}
      : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>)
  return %s1 : tensor<f32>
}

// -----

func.func @grouped_half(%x: tensor<?x4x8x8xbf16>, %w: tensor<4x2x1x1xbf16>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'nn.conv' op takes 'bf16' operands only with group 1, got group 2}}
  %0 = nn.conv %x, %w {group = 2 : i64} : (tensor<?x4x8x8xbf16>, tensor<4x2x1x1xbf16>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @conv_mixed(%dy: tensor<?x4x8x8xbf16>, %w: tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32> {
  // expected-error @+1 {{'nn.conv_input_grad' op operands must have the same element type, got 'bf16' and 'f32'}}
  %0 = nn.conv_input_grad %dy, %w {input_size = array<i64: 8, 8>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x8x8xbf16>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}
