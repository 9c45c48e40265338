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

// Error feedback needs its state across steps (dist-compressor-state).
func.func @no_state(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{compressor 'fp16_ef' keeps state across steps, which the op does not carry (run dist-compressor-state first)}}
  %r = dist.all_reduce mean %a {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @powersgd_no_state(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{compressor 'powersgd' keeps state across steps, which the op does not carry (run dist-compressor-state first)}}
  %r = dist.all_reduce mean %a {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// A future argument must be in-flight state of the step (tagged, waited
// for once, started again and returned).
// expected-error@+1 {{future argument #0 must be tagged dist.inflight and waited for once in the function's body}}
func.func @wait_argument(%f: !dist.future<tensor<4xf32>>) -> tensor<4xf32> {
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r : tensor<4xf32>
}

// -----

// expected-error@+1 {{in-flight state 'inflight.0' is waited for but never started again}}
func.func @never_restarted(%f: !dist.future<tensor<4xf32>> {dist.inflight = "inflight.0"}) -> tensor<4xf32> {
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r : tensor<4xf32>
}

// -----

func.func @start_before_wait(%f: !dist.future<tensor<4xf32>> {dist.inflight = "inflight.0"}, %a: tensor<4xf32>) -> (tensor<4xf32>, !dist.future<tensor<4xf32>> {dist.inflight = "inflight.0"}) {
  // expected-error@+1 {{starts in-flight state 'inflight.0' before the step waits for its previous value (they share one buffer)}}
  %o = dist.all_reduce_start mean %a : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r, %o : tensor<4xf32>, !dist.future<tensor<4xf32>>
}

// -----

func.func @never_waited(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{starts a collective that is never waited for in its block}}
  %f = dist.all_reduce_start sum %a : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  return %a : tensor<4xf32>
}

// -----

// A returned future must be in-flight state (tagged like an argument).
// expected-error@+1 {{future result #1 must be started in the function's body, returned only, and tagged dist.inflight like a future argument}}
func.func @future_returned(%a: tensor<4xf32>) -> (tensor<4xf32>, !dist.future<tensor<4xf32>>) {
  %f = dist.all_reduce_start sum %a : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r, %f : tensor<4xf32>, !dist.future<tensor<4xf32>>
}
