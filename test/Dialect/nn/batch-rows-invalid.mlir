// Bad nn.range and nn.gather_grad of a dynamic axis.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @mixed_types(%s: tensor<i64>, %l: tensor<i32>, %d: tensor<i64>) -> tensor<?xi64> {
  // expected-error@+1 {{start, limit and delta must have one element type}}
  %r = nn.range %s, %l, %d : (tensor<i64>, tensor<i32>, tensor<i64>) -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

func.func @dynamic_axis_without_data(%g: tensor<?x10xf32>, %i: tensor<?xi64>) -> tensor<?x10xf32> {
  // expected-error@+1 {{takes the data operand exactly when its axis is dynamic (axis_size = -1)}}
  %dd = nn.gather_grad %g, %i {axis = 0 : i64, axis_size = -1 : i64} : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<?x10xf32>
  return %dd : tensor<?x10xf32>
}
