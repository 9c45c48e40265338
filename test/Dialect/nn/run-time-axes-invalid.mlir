// Bad run-time-axes ops: a result rank the axes cannot give, an element
// count that differs, a dynamic-length axes vector, empty ReduceSum axes,
// bound vectors of different lengths.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @unsqueeze_rank(%x: tensor<3x4xf32>, %a: tensor<2xi64>) -> tensor<3x1x4xf32> {
  // expected-error@+1 {{'nn.unsqueeze_dynamic' op result rank 3 is not the input rank 2 + 2 axes}}
  %0 = nn.unsqueeze_dynamic %x, %a {shape = array<i64: 3, 1, 4>} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x1x4xf32>
  return %0 : tensor<3x1x4xf32>
}

// -----

func.func @squeeze_count(%x: tensor<3x1x4xf32>, %a: tensor<1xi64>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'nn.squeeze_dynamic' op result 3x5 has 15 elements but the input 3x1x4 has 12}}
  %0 = nn.squeeze_dynamic %x, %a {shape = array<i64: 3, 5>} : (tensor<3x1x4xf32>, tensor<1xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @axes_length(%x: tensor<3x1x4xf32>, %a: tensor<?xi64>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'nn.squeeze_dynamic' op axes must have a static length}}
  %0 = nn.squeeze_dynamic %x, %a {shape = array<i64: 3, 4>} : (tensor<3x1x4xf32>, tensor<?xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @reduce_empty(%x: tensor<3x2xf32>, %a: tensor<0xi64>) -> tensor<3x2xf32> {
  // expected-error@+1 {{'nn.reduce_sum_dynamic' op needs at least one axis}}
  %0 = nn.reduce_sum_dynamic %x, %a {shape = array<i64: 3, 2>} : (tensor<3x2xf32>, tensor<0xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reduce_kept_dim(%x: tensor<3x2xf32>, %a: tensor<1xi64>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'nn.reduce_sum_dynamic' op result dim 1 is 5, neither 1 nor the input's 2}}
  %0 = nn.reduce_sum_dynamic %x, %a {shape = array<i64: 3, 5>} : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @slice_lengths(%x: tensor<6x5xf32>, %s: tensor<1xi64>, %e: tensor<2xi64>, %a: tensor<1xi64>, %t: tensor<1xi64>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'nn.slice_dynamic' op ends has 2 entries but starts has 1}}
  %0 = nn.slice_dynamic %x, %s, %e, %a, %t {shape = array<i64: 3, 5>} : (tensor<6x5xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
