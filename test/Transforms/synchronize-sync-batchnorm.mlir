// RUN: autodist-opt %s --autodist-build-train-step="loss=mse sync-batchnorm=true" --dist-strategy --dist-partition --dist-synchronize | FileCheck %s

// dist-synchronize carries out sync batch norm: each sum marked
// `global_batch` (the training form of Training/sync-batchnorm.mlir) is
// summed over all ranks by one all-reduce right after it, which its users
// read; the marks are gone. The gradients' bucket (mean) comes after.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<4xf32> {nn.param = "scale"}
// CHECK-SAME: %[[MEAN:[a-z0-9]+]]: tensor<4xf32> {nn.param = "mean"}
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x4x3x3xf32> {nn.input = "x"}
// CHECK-NOT: global_batch
// CHECK: %[[S:[^ ,]+]], %[[N:[^ ,]+]] = nn.batch_norm_sum %[[X]] :
// CHECK-NEXT: %[[G:[^ ,]+]]:2 = dist.all_reduce sum %[[S]], %[[N]] : tensor<4xf32>, tensor<1xf32>
// CHECK-NEXT: %[[Q:[^ ,]+]] = nn.batch_norm_sq_dev %[[X]], %[[G]]#0, %[[G]]#1 :
// CHECK-NEXT: %[[GQ:[^ ,]+]] = dist.all_reduce sum %[[Q]] : tensor<4xf32>
// CHECK-NEXT: %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %[[BM:[^ ,]+]], %[[BV:[^ ,]+]] = nn.batch_norm_train %[[X]], %[[SCALE]], %{{[^ ,]+}}, %[[MEAN]], %{{[^ ,]+}}, %[[G]]#0, %[[GQ]], %[[G]]#1 :
// CHECK: %[[DY:[^ ,]+]] = nn.mse_loss_grad
// CHECK: %[[SDY:[^ ,]+]], %[[SDX:[^ ,]+]] = nn.batch_norm_grad_sums %[[DY]], %[[X]], %[[BM]] :
// CHECK-NEXT: %[[GG:[^ ,]+]]:2 = dist.all_reduce sum %[[SDY]], %[[SDX]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: nn.batch_norm_grad %[[DY]], %[[X]], %[[SCALE]], %[[BM]], %[[BV]], %[[GG]]#0, %[[GG]]#1, %[[G]]#1 {training_mode = true}
// CHECK-NOT: dist.all_reduce sum
// CHECK: dist.all_reduce mean
// CHECK-NOT: global_batch
// CHECK-LABEL: func.func @forward(
func.func @forward(%scale: tensor<4xf32> {nn.param = "scale"}, %bias: tensor<4xf32> {nn.param = "bias"},
                   %mean: tensor<4xf32> {nn.param = "mean"}, %var: tensor<4xf32> {nn.param = "var"},
                   %x: tensor<?x4x3x3xf32> {nn.input = "x"}) -> tensor<?x4x3x3xf32> {
  %y = nn.batch_norm %x, %scale, %bias, %mean, %var
      : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x3x3xf32>
  return %y : tensor<?x4x3x3xf32>
}
