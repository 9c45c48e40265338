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

// -----

// A future that crosses a function boundary (a staleness pipeline's) is not
// lowered yet.
func.func @wait_argument(%f: !dist.future<tensor<4xf32>>) -> tensor<4xf32> {
  // expected-error@+1 {{waits for a future that is not started in its block (a future that crosses blocks or functions cannot be lowered yet)}}
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r : tensor<4xf32>
}

// -----

func.func @never_waited(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{starts a collective that is never waited for in its block}}
  %f = dist.all_reduce_start sum %a : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  return %a : tensor<4xf32>
}

// -----

func.func @future_returned(%a: tensor<4xf32>) -> (tensor<4xf32>, !dist.future<tensor<4xf32>>) {
  // expected-error@+1 {{its future is used by more than its dist.wait, which cannot be lowered yet}}
  %f = dist.all_reduce_start sum %a : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r, %f : tensor<4xf32>, !dist.future<tensor<4xf32>>
}
