// RUN: autodist-opt %s -split-input-file -verify-diagnostics --convert-dist-to-runtime

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{operand of dynamic shape 'tensor<?xf32>' cannot be bucketed}}
  %r = dist.all_reduce mean %a : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Roots are devices of the module's cluster (here the local one: CPU 0).
func.func @unknown_root(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{root device 'localhost:CPU:1' is not a device of the cluster}}
  %r = dist.reduce mean %a {root = "localhost:CPU:1"} : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// PowerSGD buckets are split into one matrix each before lowering.
func.func @powersgd_bucket(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  // expected-error@+1 {{a powersgd all-reduce must hold one matrix of static shape (run dist-split-powersgd first)}}
  %r:2 = dist.all_reduce mean %a, %b {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3xf32>, tensor<3xf32>
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<3xf32>
}
