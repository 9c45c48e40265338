// RUN: autodist-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{all-reduce group must be >= 0, got -1}}
module attributes {dist.sync = #dist.allreduce<spec = auto, compressor = none, group = -1>} {
}

// -----

// expected-error@+1 {{variable 'w' has more than one node config}}
module attributes {dist.strategy = #dist.strategy<builder = "x", nodes = [
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
    #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>} {
}

// -----

// expected-error@+1 {{synchronizer of 'w' must be a #dist.allreduce, got 1 : i64}}
module attributes {dist.n = #dist.node<"w", 1 : i64>} {
}

// -----

// expected-error@+1 {{strategy nodes must be #dist.node, got "w"}}
module attributes {dist.strategy = #dist.strategy<builder = "x", nodes = ["w"]>} {
}

// -----

// expected-error@+2 {{expected ::autodist::dist::AllReduceSpec to be one of: auto, nccl, ring}}
// expected-error@+1 {{failed to parse Dist_AllReduceSynchronizerAttr parameter 'spec'}}
module attributes {dist.sync = #dist.allreduce<spec = fast, compressor = none, group = 0>} {
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
