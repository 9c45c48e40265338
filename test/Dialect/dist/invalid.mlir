// RUN: autodist-opt %s -split-input-file -verify-diagnostics

// Attributes on their own.

// expected-error@+1 {{all-reduce group must be >= 0, got -1}}
module attributes {dist.x = #dist.allreduce<spec = auto, compressor = none, group = -1>} {
}

// -----

// expected-error@+1 {{all-reduce compressor 'powersgd' needs rank >= 1, got 0}}
module attributes {dist.x = #dist.allreduce<spec = auto, compressor = powersgd, group = 0>} {
}

// -----

// expected-error@+1 {{all-reduce field 'rank' only applies to compressor 'powersgd', not 'fp16'}}
module attributes {dist.x = #dist.allreduce<spec = auto, compressor = fp16, rank = 2, group = 0>} {
}

// -----

// expected-error@+2 {{expected ::autodist::dist::AllReduceSpec to be one of: auto, nccl, ring}}
// expected-error@+1 {{failed to parse Dist_AllReduceSynchronizerAttr parameter 'spec'}}
module attributes {dist.x = #dist.allreduce<spec = fast, compressor = none, group = 0>} {
}

// -----

// expected-error@+1 {{parameter server field 'staleness' = 2 needs sync = true}}
module attributes {dist.x = #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = false, staleness = 2>} {
}

// -----

// expected-error@+1 {{parameter server field 'staleness' must be >= 0, got -1}}
module attributes {dist.x = #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = -1>} {
}

// -----

// expected-error@+1 {{partition splits a second axis (axes 0 and 2); only one axis may be split}}
module attributes {dist.x = #dist.partition<[2, 1, 2]>} {
}

// -----

// expected-error@+1 {{partition splits no axis (every count is 1)}}
module attributes {dist.x = #dist.partition<[1, 1]>} {
}

// -----

// expected-error@+1 {{partition gives 2 shard sizes for 3 shards}}
module attributes {dist.x = #dist.partition<[3], sizes = [2, 2]>} {
}

// -----

// expected-error@+1 {{parameter 'w' field 'parts' has 1 configs for 2 shards}}
module attributes {dist.x = #dist.node<"w", partition = #dist.partition<[2]>, parts = [
    #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
}

// -----

// expected-error@+1 {{parameter 'w' shard 1 must be named 'w/part_1', got 'w/part_7'}}
module attributes {dist.x = #dist.node<"w", partition = #dist.partition<[2]>, parts = [
    #dist.node<"w/part_0", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
    #dist.node<"w/part_7", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
}

// -----

// expected-error@+1 {{parameter 'w' has neither a synchronizer nor a partition}}
module attributes {dist.x = #dist.node<"w">} {
}

// -----

// expected-error@+1 {{parameter 'w' field 'synchronizer' must be #dist.allreduce or #dist.ps, got 1 : i64}}
module attributes {dist.x = #dist.node<"w", 1 : i64>} {
}

// -----

// expected-error@+1 {{variable 'w' has more than one node config}}
module attributes {dist.x = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
}

// -----

// expected-error@+1 {{pipeline marks 'v' stale, which has no node config}}
module attributes {dist.x = #dist.strategy<id = "x", replicas = [], nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>],
    pipeline = #dist.pipeline<depth = 1, stale = ["v"], compensation = none, lambda = 0.0 : f64>>} {
}

// -----

// expected-error@+1 {{pipeline with depth 0 cannot have stale variables or compensation}}
module attributes {dist.x = #dist.pipeline<depth = 0, stale = [], compensation = weight_prediction, lambda = 0.0 : f64>} {
}

// -----

// expected-error@+1 {{a multi-node cluster needs exactly one chief, got 2}}
module attributes {dist.x = #dist.cluster<[
    #dist.node_spec<address = "10.0.0.1", cpus = [0], chief = true, bandwidth = 1.0 : f64>,
    #dist.node_spec<address = "10.0.0.2", cpus = [0], chief = true, bandwidth = 1.0 : f64>]>} {
}

// -----

// expected-error@+1 {{node 'localhost': localhost is only allowed in a single-node cluster}}
module attributes {dist.x = #dist.cluster<[
    #dist.node_spec<address = "localhost", cpus = [0], chief = true, bandwidth = 1.0 : f64>,
    #dist.node_spec<address = "10.0.0.2", cpus = [0], chief = false, bandwidth = 1.0 : f64>]>} {
}

// -----

// expected-error@+1 {{node '10.0.0.1' field 'gpus': index 1 is repeated}}
module attributes {dist.x = #dist.node_spec<address = "10.0.0.1", gpus = [1, 1], chief = true, bandwidth = 1.0 : f64>} {
}

// -----

// expected-error@+1 {{node '10.0.0.1' field 'network_bandwidth' must be > 0}}
module attributes {dist.x = #dist.node_spec<address = "10.0.0.1", cpus = [0], chief = true, bandwidth = 0.0 : f64>} {
}

// -----

func.func @empty_bucket() {
  // expected-error@+1 {{needs at least one tensor to reduce}}
  "dist.all_reduce"() <{group = 0 : i64, kind = 1 : i32}> : () -> ()
  return
}

// -----

func.func @int_bucket(%a: tensor<4xi32>) {
  // expected-error@+1 {{must be variadic of ranked tensor of 32-bit float values}}
  %0 = dist.all_reduce mean %a : tensor<4xi32>
  return
}

// -----

func.func @powersgd_without_rank(%a: tensor<4xf32>) {
  // expected-error@+1 {{compressor 'powersgd' needs powersgd_rank >= 1, got 0}}
  %0 = dist.all_reduce mean %a {compressor = #dist.compressor<powersgd>} : tensor<4xf32>
  return
}

// -----

func.func @rank_without_powersgd(%a: tensor<4xf32>) {
  // expected-error@+1 {{powersgd_rank only applies to compressor 'powersgd'}}
  %0 = dist.all_reduce mean %a {compressor = #dist.compressor<fp16>, powersgd_rank = 2 : i64} : tensor<4xf32>
  return
}

// -----

func.func @no_root(%a: tensor<4xf32>) {
  // expected-error@+1 {{needs a root device}}
  %0 = dist.reduce mean %a {root = ""} : tensor<4xf32>
  return
}

// -----

func.func @empty_broadcast() {
  // expected-error@+1 {{needs at least one tensor}}
  "dist.broadcast"() <{root = "localhost:CPU:0"}> : () -> ()
  return
}

// -----

func.func @start_future_mismatch(%a: tensor<4xf32>) {
  // expected-error@+1 {{future type '!dist.future<tensor<5xf32>>' does not hold the operand types}}
  %f = dist.all_reduce_start sum %a : tensor<4xf32> -> !dist.future<tensor<5xf32>>
  return
}

// -----

func.func @start_negative_group(%a: tensor<4xf32>) {
  // expected-error@+1 {{group must be >= 0, got -2}}
  %f = dist.all_reduce_start sum %a {group = -2 : i64} : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  return
}

// -----

// expected-error@+1 {{a future holds ranked f32 tensors, not 'tensor<4xi32>'}}
func.func @future_of_i32(%f: !dist.future<tensor<4xi32>>) {
  return
}

// -----

// expected-error@+2 {{expected non-function type}}
// expected-error@+1 {{failed to parse Dist_FutureType parameter 'valueTypes'}}
func.func @empty_future(%f: !dist.future<>) {
  return
}

// -----

func.func @waited_twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %f = dist.all_reduce_start sum %a : tensor<4xf32> -> !dist.future<tensor<4xf32>>
  // expected-error@+1 {{waits for a future that is waited 2 times (a future is waited once)}}
  %r = dist.wait %f : !dist.future<tensor<4xf32>>
  %s = dist.wait %f : !dist.future<tensor<4xf32>>
  return %r : tensor<4xf32>
}

// -----

func.func @state_without_feedback(%a: tensor<4xf32>, %e: tensor<4xf32>) {
  // expected-error@+1 {{compressor 'fp16' keeps no state, but the op has 1 state operand(s)}}
  %0:2 = dist.all_reduce mean %a state(%e : tensor<4xf32>) {compressor = #dist.compressor<fp16>} : tensor<4xf32>
  return
}

// -----

func.func @residual_of_another_size(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %e: tensor<12xf32>) {
  // expected-error@+1 {{state operand #0 must be tensor<15xf32>, got 'tensor<12xf32>'}}
  %0:3 = dist.all_reduce mean %a, %b state(%e : tensor<12xf32>) {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @powersgd_without_q(%a: tensor<4x6xf32>, %e: tensor<24xf32>) {
  // expected-error@+1 {{compressor 'powersgd' keeps 2 state tensor(s), got 1}}
  %0:2 = dist.all_reduce mean %a state(%e : tensor<24xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x6xf32>
  return
}

// -----

func.func @powersgd_q_of_another_rank(%a: tensor<4x6xf32>, %e: tensor<24xf32>, %q: tensor<18xf32>) {
  // expected-error@+1 {{state operand #1 must be tensor<12xf32>, got 'tensor<18xf32>'}}
  %0:3 = dist.all_reduce mean %a state(%e, %q : tensor<24xf32>, tensor<18xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x6xf32>
  return
}

// -----

func.func @powersgd_state_of_a_bucket(%a: tensor<4x6xf32>, %b: tensor<6xf32>, %e: tensor<24xf32>, %q: tensor<12xf32>) {
  // expected-error@+1 {{a powersgd all-reduce with state must hold one matrix of static shape (dist-split-powersgd)}}
  %0:4 = dist.all_reduce mean %a, %b state(%e, %q : tensor<24xf32>, tensor<12xf32>) {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64} : tensor<4x6xf32>, tensor<6xf32>
  return
}
