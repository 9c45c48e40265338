// RUN: autodist-opt %s --autodist-build-train-step="loss=mse sync-batchnorm=true" | FileCheck %s
// RUN: autodist-opt %s --autodist-build-train-step="loss=mse" | FileCheck %s --check-prefix=LOCAL

// With sync-batchnorm the training form's statistics are those of the
// global batch: the per-channel sums and counts, then the squared
// deviations from the global mean, are marked `global_batch` (summed over
// the ranks by dist-synchronize: synchronize-sync-batchnorm.mlir); so are
// the backward's sum(dy) and sum(dy * (x - mean)) for the input gradient.
// nn builds no collective itself. The running variance is unbiased with the
// global count.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<4xf32> {nn.param = "scale"}
// CHECK-SAME: %[[MEAN:[a-z0-9]+]]: tensor<4xf32> {nn.param = "mean"}
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x4x3x3xf32> {nn.input = "x"}
// CHECK-NOT: dist.
// CHECK: %[[S:[^ ,]+]], %[[N:[^ ,]+]] = nn.batch_norm_sum %[[X]] {global_batch}
// CHECK: %[[Q:[^ ,]+]] = nn.batch_norm_sq_dev %[[X]], %[[S]], %[[N]] {global_batch}
// CHECK: %[[Y:[^ ,]+]], %{{[^ ,]+}}, %{{[^ ,]+}}, %[[BM:[^ ,]+]], %[[BV:[^ ,]+]] = nn.batch_norm_train %[[X]], %[[SCALE]], %{{[^ ,]+}}, %[[MEAN]], %{{[^ ,]+}}, %[[S]], %[[Q]], %[[N]] :
// CHECK: %[[DY:[^ ,]+]] = nn.mse_loss_grad
// CHECK: %[[SDY:[^ ,]+]], %[[SDX:[^ ,]+]] = nn.batch_norm_grad_sums %[[DY]], %[[X]], %[[BM]] {global_batch}
// CHECK: nn.batch_norm_grad %[[DY]], %[[X]], %[[SCALE]], %[[BM]], %[[BV]], %[[SDY]], %[[SDX]], %[[N]] {training_mode = true}
// CHECK-NOT: dist.
// CHECK-LABEL: func.func @forward(

// LOCAL-LABEL: func.func @train_step(
// LOCAL-NOT: global_batch
// LOCAL: nn.batch_norm_train %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} :
// LOCAL-NOT: dist.all_reduce
// LOCAL: nn.batch_norm_grad %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z_0-9]+}}, %{{[a-z_0-9]+}} {training_mode = true}
// LOCAL-NOT: global_batch
// LOCAL-LABEL: func.func @forward(
func.func @forward(%scale: tensor<4xf32> {nn.param = "scale"}, %bias: tensor<4xf32> {nn.param = "bias"},
                   %mean: tensor<4xf32> {nn.param = "mean"}, %var: tensor<4xf32> {nn.param = "var"},
                   %x: tensor<?x4x3x3xf32> {nn.input = "x"}) -> tensor<?x4x3x3xf32> {
  %y = nn.batch_norm %x, %scale, %bias, %mean, %var
      : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x3x3xf32>
  return %y : tensor<?x4x3x3xf32>
}
