// Bad nn.logical and nn.not: an unknown kind, non-bool operands.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @bad_kind(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'nn.logical' op kind must be and, or or xor, got 'nand'}}
  %0 = nn.logical %a, %a {kind = "nand"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @int_and(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{'nn.logical' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = nn.logical %a, %a {kind = "and"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @float_not(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.not' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = nn.not %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
