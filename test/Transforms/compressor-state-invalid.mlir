// RUN: autodist-opt %s -split-input-file -verify-diagnostics --dist-compressor-state

// Compressor state crosses steps: only @train_step has steps.
func.func @forward(%g: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{keeps compressor state across steps, so it must be in the body of @train_step}}
  %r = dist.all_reduce mean %g {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// PowerSGD keeps state per matrix: dist-split-powersgd first.
func.func @train_step(%gw: tensor<4x3xf32>, %gb: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  // expected-error@+1 {{a powersgd all-reduce must hold one matrix (run dist-split-powersgd first)}}
  %r:2 = dist.all_reduce mean %gw, %gb {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<3xf32>
}
