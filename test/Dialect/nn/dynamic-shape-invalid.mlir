// Bad run-time shapes: a -1 in nn.expand without sizes, sizes of the wrong
// length, an nn.shape range outside the rank.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @expand_needs_sizes(%x: tensor<1x8xf32>) -> tensor<?x8xf32> {
  // expected-error@+1 {{'nn.expand' op a -1 entry in shape needs the sizes operand}}
  %0 = nn.expand %x {shape = array<i64: -1, 1>} : (tensor<1x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @expand_sizes_length(%x: tensor<1x8xf32>, %s: tensor<3xi64>) -> tensor<?x8xf32> {
  // expected-error@+1 {{'nn.expand' op sizes must be a tensor<2xi64> (one entry per shape dim), got 'tensor<3xi64>'}}
  %0 = nn.expand %x, %s {shape = array<i64: -1, 1>} : (tensor<1x8xf32>, tensor<3xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @reshape_sizes_length(%x: tensor<?x16xf32>, %t: tensor<2xi64>) -> tensor<?x2x8xf32> {
  // expected-error@+1 {{'nn.reshape' op sizes must be a tensor<3xi64> (one entry per result dim), got 'tensor<2xi64>'}}
  %0 = nn.reshape %x, %t {shape = array<i64: -1, 2, 8>} : (tensor<?x16xf32>, tensor<2xi64>) -> tensor<?x2x8xf32>
  return %0 : tensor<?x2x8xf32>
}

// -----

func.func @shape_range(%x: tensor<?x16xf32>) -> tensor<3xi64> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.shape range [0, 3) is not within the rank 2}}
  %0 = nn.shape %x {start = 0, end = 3} : (tensor<?x16xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
