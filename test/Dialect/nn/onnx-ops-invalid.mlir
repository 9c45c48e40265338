// Bad shapes and attributes of the ONNX operator-coverage ops.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @div_no_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.div operands do not broadcast: 4x3 and 4}}
  %0 = nn.div %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @pow_int(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.pow exponent of type 'i64' for a base of type 'f32' (the base's type, or f32 or f64 for an integer base)}}
  %0 = nn.pow %a, %b : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sqrt_type(%a: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{requires the same type for all operands and results}}
  %0 = nn.sqrt %a : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @exp_int(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = nn.exp %a : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @leaky_relu_alpha(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{alpha must be finite}}
  %0 = nn.leaky_relu %a {alpha = 0x7F800000 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gelu_approximate(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{approximate must be "none" or "tanh", got "erf"}}
  %0 = nn.gelu %a {approximate = "erf"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @equal_types(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.equal operands have different element types: 'f32' and 'i64'}}
  %0 = nn.equal %a, %b : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @equal_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = nn.equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = nn.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_broadcast(%c: tensor<3x1xi1>, %a: tensor<4xf32>, %b: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.where operands do not broadcast: 3x1, 4 and 2x4}}
  %0 = nn.where %c, %a, %b : (tensor<3x1xi1>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @where_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.where x and y have different element types: 'f32' and 'i64'}}
  %0 = nn.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_to(%a: tensor<4xf32>) -> tensor<4xi4> {
  // expected-error@+1 {{'nn.cast' op result #0 must be ranked tensor of}}
  %0 = nn.cast %a {to = i4} : (tensor<4xf32>) -> tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

func.func @cast_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  %0 = nn.cast %a {to = i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_mask(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{result #1 must be ranked tensor of 1-bit signless integer values}}
  %0, %1 = nn.dropout %a : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_ratio_rank(%a: tensor<4xf32>, %r: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{runtime_ratio must be a scalar (rank 0), got 'tensor<1xf32>'}}
  %0, %1 = nn.dropout %a, %r : (tensor<4xf32>, tensor<1xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %0 : tensor<4xf32>
}

// -----

func.func @softmax_axis(%a: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.softmax %a {axis = 2} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

func.func @log_softmax_axis(%a: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error@+1 {{axis -3 is out of range for rank 2}}
  %0 = nn.log_softmax %a {axis = -3} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

func.func @reduce_mean_repeated(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.reduce_mean axis -1 is repeated}}
  %0 = nn.reduce_mean %a {axes = array<i64: 1, -1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_max_axis(%a: tensor<4x3xf32>) -> tensor<4x1xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.reduce_max axis -3 is out of range for rank 2}}
  %0 = nn.reduce_max %a {axes = array<i64: -3>} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduce_all_shape(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{inferred type(s) 'tensor<1x1xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  %0 = nn.reduce_sum %a : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @transpose_perm(%a: tensor<4x3x2xf32>) -> tensor<3x3x2xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.transpose perm is not a permutation of 0..2}}
  %0 = nn.transpose %a {perm = array<i64: 1, 1, 2>} : (tensor<4x3x2xf32>) -> tensor<3x3x2xf32>
  return %0 : tensor<3x3x2xf32>
}

// -----

func.func @transpose_rank(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.transpose perm has 3 entries for rank 2}}
  %0 = nn.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @squeeze_not_one(%a: tensor<?x3x1xf32>) -> tensor<?x1xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.squeeze dim 1 of ?x3x1 is not a static 1}}
  %0 = nn.squeeze %a {axes = array<i64: 1>} : (tensor<?x3x1xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

func.func @squeeze_dynamic(%a: tensor<?x3x1xf32>) -> tensor<3x1xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.squeeze dim 0 of ?x3x1 is not a static 1}}
  %0 = nn.squeeze %a {axes = array<i64: 0>} : (tensor<?x3x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @unsqueeze_axis(%a: tensor<4x3xf32>) -> tensor<4x3x1xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.unsqueeze axis 3 is out of range for rank 3}}
  %0 = nn.unsqueeze %a {axes = array<i64: 3>} : (tensor<4x3xf32>) -> tensor<4x3x1xf32>
  return %0 : tensor<4x3x1xf32>
}

// -----

func.func @concat_dims(%a: tensor<?x4xf32>, %b: tensor<?x3xf32>) -> tensor<?x4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.concat operands differ in dim 1 (not the axis): ?x4 and ?x3}}
  %0 = nn.concat %a, %b {axis = 0} : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @concat_types(%a: tensor<2x4xf32>, %b: tensor<2x4xi64>) -> tensor<2x8xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.concat operands differ in rank or element type}}
  %0 = nn.concat %a, %b {axis = 1} : (tensor<2x4xf32>, tensor<2x4xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @concat_axis(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.concat axis 2 is out of range for rank 2}}
  %0 = nn.concat %a {axis = 2} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_inner(%a: tensor<?x3x4xf32>, %b: tensor<5xf32>) -> tensor<?x3xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.matmul inner dims differ: ?x3x4 x 5}}
  %0 = nn.matmul %a, %b : (tensor<?x3x4xf32>, tensor<5xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<5xf32>) -> tensor<f32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.matmul operands must be at least 1-D, got 0-D and 1-D}}
  %0 = nn.matmul %a, %b : (tensor<f32>, tensor<5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
