// Bad pads of nn.pad: the wrong count, negative pads (crops are an
// nn.slice), padding a dynamic dim.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @pad_count(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'nn.pad' op has 2 pads for rank 2 (2 x rank expected)}}
  %0 = nn.pad %x {pads = array<i64: 0, 1>, value = 0.0 : f32} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @pad_negative(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'nn.pad' op pads of dim 1 are negative}}
  %0 = nn.pad %x {pads = array<i64: 0, -1, 0, 1>, value = 0.0 : f32} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @pad_dynamic(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-error@+1 {{'nn.pad' op pads the dynamic dim 0}}
  %0 = nn.pad %x {pads = array<i64: 1, 0, 0, 0>, value = 0.0 : f32} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}
