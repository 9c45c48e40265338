// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @gather_nd_tuple(%x: tensor<5x4xf32>, %i: tensor<3x3xi64>) -> tensor<3xf32> {
  // expected-error@+2 {{nn.gather_nd: tuple size 3 with 0 batch dims does not fit data of rank 2 and indices of rank 2}}
  // expected-error@+1 {{'nn.gather_nd' op failed to infer returned types}}
  %0 = nn.gather_nd %x, %i : (tensor<5x4xf32>, tensor<3x3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @gather_nd_dynamic(%x: tensor<?x4xf32>, %i: tensor<3x1xi64>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'nn.gather_nd' op indexes the dynamic data dim 0}}
  %0 = nn.gather_nd %x, %i : (tensor<?x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_nd_batch(%x: tensor<2x3x4xf32>, %i: tensor<3x1x2xi64>) -> tensor<3x1xf32> {
  // expected-error@+1 {{'nn.gather_nd' op batch dim 0 differs: data 2, indices 3}}
  %0 = nn.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x1x2xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @scatter_nd_updates(%x: tensor<8x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x5xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'nn.scatter_nd' op updates dim 1 is 5, expected 4 (indices.shape[:-1] + data.shape[k:])}}
  %0 = nn.scatter_nd %x, %i, %u : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x5xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @scatter_nd_reduction(%x: tensor<8x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'nn.scatter_nd' op reduction 'sub' must be none, add, mul, max or min}}
  %0 = nn.scatter_nd %x, %i, %u {reduction = "sub"} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
