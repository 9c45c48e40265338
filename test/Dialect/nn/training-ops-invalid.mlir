// Bad dropout ratios, masks and batch-norm global statistics.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @dropout_ratio(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{ratio must be in [0, 1), got 1}}
  %y, %m = nn.dropout %x {ratio = 1.0 : f32} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %y : tensor<4xf32>
}

// -----

func.func @mask_ratio(%x: tensor<4xf32>, %s: tensor<i64>, %st: tensor<f32>) -> tensor<4xi1> {
  // expected-error@+1 {{ratio must be in [0, 1), got -5.000000e-01}}
  %m = nn.dropout_mask %x, %s, %s, %st {ratio = -0.5 : f32, stream = 0 : i64}
      : (tensor<4xf32>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<4xi1>
  return %m : tensor<4xi1>
}

// -----

func.func @mask_shape(%x: tensor<4xf32>, %m: tensor<5xi1>) -> tensor<4xf32> {
  // expected-error@+1 {{mask shape 5 differs from input shape 4}}
  %y = nn.masked_scale %x, %m {scale = 2.0 : f32} : (tensor<4xf32>, tensor<5xi1>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @global_stats_count(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>) -> tensor<?x4x3x3xf32> {
  // expected-error@+1 {{expects 0 or 3 global_stats operands, got 2}}
  %y:5 = nn.batch_norm_train %x, %c, %c, %c, %c, %c, %c
      : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y#0 : tensor<?x4x3x3xf32>
}

// -----

func.func @global_stats_shape(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>) -> tensor<?x4x3x3xf32> {
  // expected-error@+1 {{expects global_stats of shapes [4], [4], [1], got 'tensor<4xf32>'}}
  %y:5 = nn.batch_norm_train %x, %c, %c, %c, %c, %c, %c, %c
      : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y#0 : tensor<?x4x3x3xf32>
}

// -----

func.func @global_sums_inference(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>, %n: tensor<1xf32>) -> tensor<?x4x3x3xf32> {
  // expected-error@+1 {{global_sums need training_mode}}
  %g:3 = nn.batch_norm_grad %x, %x, %c, %c, %c, %c, %c, %n
      : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %g#0 : tensor<?x4x3x3xf32>
}

// -----

func.func @sq_dev_count(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expects sum [4] and count [1], got 'tensor<4xf32>' and 'tensor<4xf32>'}}
  %q = nn.batch_norm_sq_dev %x, %c, %c : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %q : tensor<4xf32>
}
