// Bad nn.arg_max / nn.arg_min: an axis outside the rank, an empty axis, an
// unsigned or bool input.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%x: tensor<?x10xf32>) -> tensor<?xi64> {
  // expected-error@+2 {{nn.arg_max axis 2 is out of range for rank 2}}
  // expected-error@+1 {{'nn.arg_max' op failed to infer returned types}}
  %0 = nn.arg_max %x {axis = 2 : i64, keepdims = false} : (tensor<?x10xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @empty_axis(%x: tensor<4x0xf32>) -> tensor<4xi64> {
  // expected-error@+1 {{'nn.arg_min' op reduces an axis of size 0}}
  %0 = nn.arg_min %x {axis = 1 : i64, keepdims = false} : (tensor<4x0xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @unsigned(%x: tensor<4x3xui8>) -> tensor<4xi64> {
  // expected-error@+1 {{'nn.arg_max' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer values}}
  %0 = nn.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<4x3xui8>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
