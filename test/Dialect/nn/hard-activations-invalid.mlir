// Bad bounds, attributes and types of Clip, HardSigmoid, HardSwish and
// their gradient ops.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @clip_min_above_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.clip' op min (6.000000e+00) is greater than max (0.000000e+00)}}
  %0 = nn.clip %x {min = 6.0 : f32, max = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clip_max_minus_inf(%x: tensor<4xf32>) -> tensor<4xf32> {
  // An infinite bound is still a bound: -inf for max is below any min.
  // expected-error@+1 {{'nn.clip' op min (-1.000000e+00) is greater than max (-INF)}}
  %0 = nn.clip %x {min = -1.0 : f32, max = 0xFF800000 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clip_nan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.clip' op min and max must not be NaN}}
  %0 = nn.clip %x {max = 0x7FC00000 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clip_type(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{requires the same type for all operands and results}}
  %0 = nn.clip %x {max = 6.0 : f32} : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @clip_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = nn.clip %x {max = 6.0 : f32} : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @hard_sigmoid_alpha(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.hard_sigmoid' op alpha must be finite}}
  %0 = nn.hard_sigmoid %x {alpha = 0x7F800000 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hard_sigmoid_beta(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.hard_sigmoid' op beta must be finite}}
  %0 = nn.hard_sigmoid %x {beta = 0x7FC00000 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hard_swish_type(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{requires the same type for all operands and results}}
  %0 = nn.hard_swish %x : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @clip_grad_bounds(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.clip_grad' op min (1.000000e+00) is greater than max (5.000000e-01)}}
  %0 = nn.clip_grad %g, %x {min = 1.0 : f32, max = 0.5 : f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clip_grad_shape(%g: tensor<3xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.clip_grad' op grad and input shapes differ}}
  %0 = nn.clip_grad %g, %x {max = 6.0 : f32} : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hard_sigmoid_grad_alpha(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.hard_sigmoid_grad' op alpha must be finite}}
  %0 = nn.hard_sigmoid_grad %g, %x {alpha = 0xFF800000 : f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hard_sigmoid_grad_shape(%g: tensor<2x4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.hard_sigmoid_grad' op grad and input shapes differ}}
  %0 = nn.hard_sigmoid_grad %g, %x : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hard_swish_grad_shape(%g: tensor<3xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.hard_swish_grad' op grad and input shapes differ}}
  %0 = nn.hard_swish_grad %g, %x : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hard_swish_grad_result(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{all of {input, result} have same type}}
  %0 = nn.hard_swish_grad %g, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
