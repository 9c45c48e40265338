// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @mode(%t: tensor<100x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>) -> tensor<?x16xf32> {
  // expected-error@+1 {{mode must be "sum", "mean" or "max", not "min"}}
  %0 = nn.embedding_bag %t, %ids, %o {mode = "min"} : (tensor<100x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

func.func @ids_2d(%t: tensor<100x16xf32>, %ids: tensor<?x3xi64>, %o: tensor<?xi64>) -> tensor<?x16xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.embedding_bag expects a 2-D table and 1-D ids and offsets}}
  %0 = nn.embedding_bag %t, %ids, %o {mode = "sum"} : (tensor<100x16xf32>, tensor<?x3xi64>, tensor<?xi64>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

func.func @no_offset(%t: tensor<100x16xf32>, %ids: tensor<?xi64>, %o: tensor<0xi64>) -> tensor<0x16xf32> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.embedding_bag with include_last_offset needs an offset}}
  %0 = nn.embedding_bag %t, %ids, %o {mode = "sum", include_last_offset = true} : (tensor<100x16xf32>, tensor<?xi64>, tensor<0xi64>) -> tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}

// -----

func.func @dynamic_rows(%t: tensor<?x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>) -> tensor<?x16xf32> {
  // expected-error@+1 {{table has a dynamic number of rows}}
  %0 = nn.embedding_bag %t, %ids, %o {mode = "sum"} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

func.func @max_without_inputs(%dy: tensor<?x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>) -> tensor<100x16xf32> {
  // expected-error@+1 {{takes the table and the forward result for mode "max" only, got 0 for "max"}}
  %0 = nn.embedding_bag_grad %dy, %ids, %o {mode = "max", num_rows = 100 : i64} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @sum_with_inputs(%dy: tensor<?x16xf32>, %ids: tensor<?xi64>, %o: tensor<?xi64>, %t: tensor<100x16xf32>) -> tensor<100x16xf32> {
  // expected-error@+1 {{got 2 for "sum"}}
  %0 = nn.embedding_bag_grad %dy, %ids, %o, %t, %dy {mode = "sum", num_rows = 100 : i64} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>, tensor<100x16xf32>, tensor<?x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}
