// Bad nn.compare: an unknown predicate, bool operands, mixed element
// types, shapes that do not broadcast.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @bad_predicate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{'nn.compare' op predicate must be lt, le, gt or ge, got 'eq'}}
  %0 = nn.compare %a, %b {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @bool_operands(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'nn.compare' op compares f32, i64 or i32 operands, not i1}}
  %0 = nn.compare %a, %b {predicate = "lt"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @mixed_types(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.compare operands have different element types: 'f32' and 'i64'}}
  %0 = nn.compare %a, %b {predicate = "lt"} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @no_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xi1> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.compare operands do not broadcast: 4 and 3}}
  %0 = nn.compare %a, %b {predicate = "gt"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
