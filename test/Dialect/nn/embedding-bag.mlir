// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @bags
// CHECK: nn.embedding_bag %{{.*}}, %{{.*}}, %{{.*}} {mode = "mean"} : (tensor<100x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16xf32>
// CHECK: nn.embedding_bag %{{.*}}, %{{.*}}, %{{.*}} {include_last_offset = true, mode = "sum"} : (tensor<100x16xf32>, tensor<?xi32>, tensor<5xi64>) -> tensor<4x16xf32>
// CHECK: nn.embedding_bag_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {mode = "max", num_rows = 100 : i64} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>, tensor<100x16xf32>, tensor<?x16xf32>) -> tensor<100x16xf32>
func.func @bags(%t: tensor<100x16xf32>, %ids: tensor<?xi64>, %offsets: tensor<?xi64>,
                %ids32: tensor<?xi32>, %five: tensor<5xi64>)
    -> (tensor<?x16xf32>, tensor<4x16xf32>, tensor<100x16xf32>) {
  %0 = nn.embedding_bag %t, %ids, %offsets {mode = "mean"} : (tensor<100x16xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16xf32>
  %1 = nn.embedding_bag %t, %ids32, %five {mode = "sum", include_last_offset = true} : (tensor<100x16xf32>, tensor<?xi32>, tensor<5xi64>) -> tensor<4x16xf32>
  %2 = nn.embedding_bag_grad %0, %ids, %offsets, %t, %0 {mode = "max", num_rows = 100 : i64} : (tensor<?x16xf32>, tensor<?xi64>, tensor<?xi64>, tensor<100x16xf32>, tensor<?x16xf32>) -> tensor<100x16xf32>
  return %0, %1, %2 : tensor<?x16xf32>, tensor<4x16xf32>, tensor<100x16xf32>
}
