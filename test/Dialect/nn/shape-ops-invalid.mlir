// Bad shapes and attributes of nn.slice, nn.slice_grad, nn.split,
// nn.expand and nn.trilu.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @slice_lengths(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'nn.slice' op starts, ends, axes and steps differ in length}}
  %0 = nn.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2>, axes = array<i64: 0>, steps = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_zero_step(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'nn.slice' op steps must be non-zero}}
  %0 = nn.slice %x {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 0>, steps = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_axis(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.slice of 4x6: axis 2 is out of range for rank 2}}
  %0 = nn.slice %x {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 2>, steps = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_repeated_axis(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.slice of 4x6: axis -1 is repeated}}
  %0 = nn.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, axes = array<i64: 1, -1>, steps = array<i64: 1, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_dynamic(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.slice of ?x6: slices dynamic dim 0}}
  %0 = nn.slice %x {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 0>, steps = array<i64: 1>} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

func.func @slice_result(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{'nn.slice' op inferred type(s) 'tensor<4x2xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = nn.slice %x {starts = array<i64: 1>, ends = array<i64: 5>, axes = array<i64: 1>, steps = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @slice_grad_shape(%g: tensor<4x3xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.slice_grad gradient 4x3 is not shaped like the slice 4x2}}
  %0 = nn.slice_grad %g, %x {starts = array<i64: 1>, ends = array<i64: 5>, axes = array<i64: 1>, steps = array<i64: 2>} : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @split_sum(%x: tensor<4x6xf32>) -> tensor<4x2xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.split sizes add up to 5, not to dim 1 of 4x6}}
  %0:2 = nn.split %x {axis = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
  return %0#0 : tensor<4x2xf32>
}

// -----

func.func @split_dynamic(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.split along dynamic dim 0 of ?x6}}
  %0 = nn.split %x {axis = 0 : i64, sizes = array<i64: 4>} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

func.func @split_empty(%x: tensor<0x6xf32>) {
  // expected-error@+1 {{'nn.split' op needs at least one size}}
  nn.split %x {axis = 0 : i64, sizes = array<i64>} : (tensor<0x6xf32>) -> ()
  return
}

// -----

func.func @expand_bad(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.expand cannot broadcast 3x4 to 2x4}}
  %0 = nn.expand %x {shape = array<i64: 2, 4>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @expand_dynamic(%x: tensor<?x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.expand of dynamic dim 0 of ?x4 to 3}}
  %0 = nn.expand %x {shape = array<i64: 3, 4>} : (tensor<?x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @trilu_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.trilu' op needs rank >= 2, got 4}}
  %0 = nn.trilu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
