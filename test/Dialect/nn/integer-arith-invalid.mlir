// Bad integer arithmetic: mixed element types, bool operands, float Mod
// without fmod.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @mixed_add(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.add operands have different element types: 'f32' and 'i64'}}
  %0 = nn.add %a, %b : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bool_mul(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'nn.mul' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 64-bit unsigned integer or 32-bit unsigned integer or 16-bit unsigned integer or 8-bit unsigned integer values}}
  %0 = nn.mul %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @float_mod_sign_of_divisor(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.mod' op on floats needs fmod = true (the sign of the dividend)}}
  %0 = nn.mod %a, %a {fmod = false} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pow_not_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'nn.pow' op operand #0 must be ranked tensor of}}
  %0 = nn.pow %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
