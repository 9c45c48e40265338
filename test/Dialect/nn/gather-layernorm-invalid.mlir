// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @gather_axis(%t: tensor<100x16xf32>, %ids: tensor<8xi64>) -> tensor<8xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.gather axis 2 is out of range for rank 2}}
  %0 = nn.gather %t, %ids {axis = 2 : i64} : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_f32_indices(%t: tensor<100x16xf32>, %ids: tensor<8xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values}}
  %0 = nn.gather %t, %ids : (tensor<100x16xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @ln_scale(%x: tensor<?x8x16xf32>, %g: tensor<8xf32>) -> tensor<?x8x16xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.layer_norm scale/bias of shape 8 does not broadcast to 16}}
  %0 = nn.layer_norm %x, %g : (tensor<?x8x16xf32>, tensor<8xf32>) -> tensor<?x8x16xf32>
  return %0 : tensor<?x8x16xf32>
}

// -----

func.func @ln_dynamic(%x: tensor<?x8x16xf32>, %g: tensor<8x16xf32>) -> tensor<?x8x16xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.layer_norm normalizes over a dynamic dim of ?x8x16}}
  %0 = nn.layer_norm %x, %g {axis = 0 : i64} : (tensor<?x8x16xf32>, tensor<8x16xf32>) -> tensor<?x8x16xf32>
  return %0 : tensor<?x8x16xf32>
}

// -----

func.func @ln_eps(%x: tensor<?x16xf32>, %g: tensor<16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{epsilon must be >= 0}}
  %0 = nn.layer_norm %x, %g {epsilon = -1.0 : f32} : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
