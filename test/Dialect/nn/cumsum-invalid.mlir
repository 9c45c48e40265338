// Bad nn.cumsum: an axis outside the rank, a bool input.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{'nn.cumsum' op axis 2 is not in [0, 2)}}
  %0 = nn.cumsum %x {axis = 2 : i64, exclusive = false, reverse = false} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

func.func @bool_input(%x: tensor<16xi1>) -> tensor<16xi1> {
  // expected-error@+1 {{'nn.cumsum' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 64-bit unsigned integer or 32-bit unsigned integer or 16-bit unsigned integer or 8-bit unsigned integer values}}
  %0 = nn.cumsum %x {axis = 0 : i64, exclusive = false, reverse = false} : (tensor<16xi1>) -> tensor<16xi1>
  return %0 : tensor<16xi1>
}
