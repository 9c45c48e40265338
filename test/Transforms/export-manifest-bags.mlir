// RUN: autodist-opt %s -split-input-file --autodist-export-manifest -verify-diagnostics | FileCheck %s

// Bag ids and their offsets name each other in the manifest, so the runtime
// batches them as one ragged input (docs/abi.md "Bag inputs").
// CHECK: \22inputs\22:[{\22bag_offsets\22:\22offsets\22,\22dtype\22:\22i64\22,\22index_bound\22:10,\22name\22:\22ids\22,\22shape\22:[-1]},{\22bag_ids\22:\22ids\22,\22dtype\22:\22i64\22,\22include_last_offset\22:true,\22name\22:\22offsets\22,\22shape\22:[-1]},{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22shape\22:[-1,4]}]
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %ids: tensor<?xi64> {nn.input = "ids"},
                     %o: tensor<?xi64> {nn.input = "offsets"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x4xf32> {nn.output = "z"}) {
    %e = nn.embedding_bag %t, %ids, %o {mode = "sum", include_last_offset = true} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
    %z = nn.add %e, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    return %z : tensor<?x4xf32>
  }
}

// -----

// Fixed ids and offsets are one call's: nothing to batch, no bag entries.
// CHECK: \22inputs\22:[{\22dtype\22:\22i64\22,\22index_bound\22:10,\22name\22:\22ids\22,\22shape\22:[6]},{\22dtype\22:\22i64\22,\22name\22:\22offsets\22,\22shape\22:[3]}]
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %ids: tensor<6xi64> {nn.input = "ids"},
                     %o: tensor<3xi64> {nn.input = "offsets"}) -> (tensor<3x4xf32> {nn.output = "z"}) {
    %e = nn.embedding_bag %t, %ids, %o {mode = "sum"} : (tensor<10x4xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<3x4xf32>
    return %e : tensor<3x4xf32>
  }
}

// -----

// Computed ids cannot be batched per sample.
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %ids: tensor<?xi64> {nn.input = "ids"},
                     %o: tensor<?xi64> {nn.input = "offsets"}) -> (tensor<?x4xf32> {nn.output = "z"}) {
    %r = nn.neg %ids : (tensor<?xi64>) -> tensor<?xi64>
    // expected-error@+1 {{'nn.embedding_bag' op reads bags of a dynamic size whose ids and offsets are not both model inputs}}
    %e = nn.embedding_bag %t, %r, %o {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
    return %e : tensor<?x4xf32>
  }
}

// -----

// One ids input with two offsets inputs.
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %ids: tensor<?xi64> {nn.input = "ids"},
                     %o: tensor<?xi64> {nn.input = "offsets"}, %o2: tensor<?xi64> {nn.input = "offsets2"})
      -> (tensor<?x4xf32> {nn.output = "z"}, tensor<?x4xf32> {nn.output = "z2"}) {
    %e = nn.embedding_bag %t, %ids, %o {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
    // expected-error@+1 {{pairs its ids and offsets inputs differently from another bag lookup}}
    %e2 = nn.embedding_bag %t, %ids, %o2 {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
    return %e, %e2 : tensor<?x4xf32>, tensor<?x4xf32>
  }
}
