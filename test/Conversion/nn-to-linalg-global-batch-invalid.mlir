// RUN: autodist-opt %s -split-input-file -verify-diagnostics --convert-nn-to-linalg

// A sum over the global batch that dist-synchronize has not all-reduced is
// an error at lowering, not per-rank statistics.
func.func @sum(%x: tensor<?x4x3x3xf32>) -> (tensor<4xf32>, tensor<1xf32>) {
  // expected-error@+1 {{'nn.batch_norm_sum' op sums over the global batch (global_batch) are not synchronized: run dist-synchronize first}}
  %s, %n = nn.batch_norm_sum %x {global_batch} : (tensor<?x4x3x3xf32>) -> (tensor<4xf32>, tensor<1xf32>)
  return %s, %n : tensor<4xf32>, tensor<1xf32>
}

// -----

func.func @sq_dev(%x: tensor<?x4x3x3xf32>, %s: tensor<4xf32>, %n: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'nn.batch_norm_sq_dev' op sums over the global batch (global_batch) are not synchronized}}
  %q = nn.batch_norm_sq_dev %x, %s, %n {global_batch} : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %q : tensor<4xf32>
}

// -----

func.func @grad_sums(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x4x3x3xf32>, %m: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'nn.batch_norm_grad_sums' op sums over the global batch (global_batch) are not synchronized}}
  %a, %b = nn.batch_norm_grad_sums %dy, %x, %m {global_batch} : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
