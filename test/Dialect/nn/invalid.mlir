// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @gemm_inner_mismatch(%a: tensor<4x8xf32>, %b: tensor<9x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.gemm inner dims differ: op(A) is 4x8, op(B) is 9x3}}
  %0 = nn.gemm %a, %b : (tensor<4x8xf32>, tensor<9x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @gemm_bad_bias(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<5xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.gemm C of shape 5 does not broadcast to 4x3}}
  %0 = nn.gemm %a, %b, %c : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<5xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @gemm_zero_alpha(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{alpha must be non-zero}}
  %0 = nn.gemm %a, %b {alpha = 0.0 : f32} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) -> tensor<2x4x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.matmul batch dims do not broadcast: 2x4x8 x 3x8x3}}
  %0 = nn.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

func.func @add_no_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.add operands do not broadcast: 4x3 and 4}}
  %0 = nn.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @wrong_result_type(%a: tensor<4x3xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{requires the same type for all operands and results}}
  %0 = nn.relu %a : (tensor<4x3xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @reshape_two_inferred(%a: tensor<4x3xf32>) -> tensor<?x?xf32> {
  // expected-error@+1 {{shape has more than one -1}}
  %0 = nn.reshape %a {shape = array<i64: -1, -1>} : (tensor<4x3xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_count(%a: tensor<4x3xf32>) -> tensor<5x2xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.reshape cannot reshape 4x3 into 5x2}}
  %0 = nn.reshape %a {shape = array<i64: 5, 2>} : (tensor<4x3xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @flatten_axis(%a: tensor<4x3xf32>) -> tensor<12x1xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.flatten axis 3 is out of range for rank 2}}
  %0 = nn.flatten %a {axis = 3 : i64} : (tensor<4x3xf32>) -> tensor<12x1xf32>
  return %0 : tensor<12x1xf32>
}

// -----

func.func @reduce_axis(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.reduce_sum axis 2 is out of range for rank 2}}
  %0 = nn.reduce_sum %a {axes = array<i64: 2>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @loss_rows(%l: tensor<8x10xf32>, %y: tensor<4xi64>) -> tensor<f32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.softmax_cross_entropy_loss has logits 8x10 but labels 4 (labels must be the logits' shape without the class dim)}}
  %0 = nn.softmax_cross_entropy_loss %l, %y : (tensor<8x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @loss_labels_type(%l: tensor<8x10xf32>, %y: tensor<8xf32>) -> tensor<f32> {
  // expected-error@+1 {{operand #1 must be ranked tensor of 64-bit signless integer values}}
  %0 = nn.softmax_cross_entropy_loss %l, %y : (tensor<8x10xf32>, tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @sgd_type(%p: tensor<10xf32>, %g: tensor<5xf32>, %lr: tensor<f32>) -> tensor<10xf32> {
  // expected-error@+1 {{gradient type 'tensor<5xf32>' differs from parameter type 'tensor<10xf32>'}}
  %0 = nn.sgd_update %p, %g, %lr : (tensor<10xf32>, tensor<5xf32>, tensor<f32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @reshape_changes_element_type(%a: tensor<4x3xi64>) -> tensor<12xf32> {
  // expected-error@+2 {{inferred type(s) 'tensor<12xi64>' are incompatible with return type(s) of operation 'tensor<12xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: 12>} : (tensor<4x3xi64>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}
