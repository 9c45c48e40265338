// Dropout's training form and the sums of batch norm over the global batch
// parse, verify and print back.
// RUN: autodist-opt %s | autodist-opt | FileCheck %s

// CHECK-LABEL: func @dropout_training
// CHECK: nn.dropout %{{.*}} {ratio = 2.000000e-01 : f32}
// CHECK: nn.dropout_mask %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {ratio = 2.000000e-01 : f32, stream = 1 : i64}
// CHECK: nn.masked_scale %{{.*}}, %{{.*}} {scale = 1.250000e+00 : f32}
func.func @dropout_training(%x: tensor<?x8xf32>, %seed: tensor<i64>, %rank: tensor<i64>, %step: tensor<f32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %y, %m0 = nn.dropout %x {ratio = 0.2 : f32} : (tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xi1>)
  %m = nn.dropout_mask %x, %seed, %rank, %step {ratio = 0.2 : f32, stream = 1 : i64}
      : (tensor<?x8xf32>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<?x8xi1>
  %z = nn.masked_scale %x, %m {scale = 1.25 : f32} : (tensor<?x8xf32>, tensor<?x8xi1>) -> tensor<?x8xf32>
  return %y, %z : tensor<?x8xf32>, tensor<?x8xf32>
}

// CHECK-LABEL: func @batch_norm_global
// CHECK: nn.batch_norm_sum
// CHECK: nn.batch_norm_sq_dev
// CHECK: nn.batch_norm_train %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK: nn.batch_norm_grad_sums
// CHECK: nn.batch_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
func.func @batch_norm_global(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>, %dy: tensor<?x4x3x3xf32>)
    -> (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>) {
  %s, %n = nn.batch_norm_sum %x : (tensor<?x4x3x3xf32>) -> (tensor<4xf32>, tensor<1xf32>)
  %q = nn.batch_norm_sq_dev %x, %s, %n : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %y:5 = nn.batch_norm_train %x, %c, %c, %c, %c, %s, %q, %n {epsilon = 1.0e-05 : f32, momentum = 0.9 : f32}
      : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %a, %b = nn.batch_norm_grad_sums %dy, %x, %y#3 : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %g:3 = nn.batch_norm_grad %dy, %x, %c, %y#3, %y#4, %a, %b, %n {training_mode = true}
      : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y#0, %g#0 : tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>
}
