// RUN: autodist-opt %s -split-input-file --autodist-build-train-step="loss=mse" | FileCheck %s

// nn.embedding_bag's table gradient is nn.embedding_bag_grad of the same
// ids and offsets (the ids and offsets get none); for "max" it also takes
// the table and the forward result, to find each element's row.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[T:[^:]*]]: tensor<10x4xf32> {nn.param = "table"}, %[[IDS:[^:]*]]: tensor<?xi64> {nn.input = "ids"}, %[[OFF:[^:]*]]: tensor<?xi64> {nn.input = "offsets"}
// CHECK: %[[E:.*]] = nn.embedding_bag %[[T]], %[[IDS]], %[[OFF]] {mode = "max"}
// CHECK: %[[DY:.*]] = nn.mse_loss_grad
// CHECK: %[[DT:.*]] = nn.embedding_bag_grad %[[DY]], %[[IDS]], %[[OFF]], %[[T]], %[[E]] {mode = "max", num_rows = 10 : i64} : (tensor<?x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<10x4xf32>, tensor<?x4xf32>) -> tensor<10x4xf32>
// CHECK: nn.sgd_update %[[T]], %[[DT]]
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %ids: tensor<?xi64> {nn.input = "ids"}, %o: tensor<?xi64> {nn.input = "offsets"})
      -> (tensor<?x4xf32> {nn.output = "z"}) {
    %e = nn.embedding_bag %t, %ids, %o {mode = "max"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
    return %e : tensor<?x4xf32>
  }
}

// -----

// CHECK-LABEL: func.func @train_step(
// CHECK: nn.embedding_bag_grad %{{.*}}, %{{.*}}, %{{.*}} {include_last_offset = true, mode = "mean", num_rows = 10 : i64} : (tensor<?x4xf32>, tensor<?xi32>, tensor<?xi64>) -> tensor<10x4xf32>
module {
  func.func @forward(%t: tensor<10x4xf32> {nn.param = "table"}, %ids: tensor<?xi32> {nn.input = "ids"}, %o: tensor<?xi64> {nn.input = "offsets"})
      -> (tensor<?x4xf32> {nn.output = "z"}) {
    %e = nn.embedding_bag %t, %ids, %o {mode = "mean", include_last_offset = true} : (tensor<10x4xf32>, tensor<?xi32>, tensor<?xi64>) -> tensor<?x4xf32>
    return %e : tensor<?x4xf32>
  }
}
