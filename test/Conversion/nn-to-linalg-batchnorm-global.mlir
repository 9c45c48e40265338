// Batch normalization over the global batch on linalg: nn.batch_norm_sum
// is a per-channel reduction plus the count as a [1] tensor; given global
// statistics, nn.batch_norm_train reduces nothing over its input and takes
// n from the count operand (mean = sum / n, running variance * n / (n - 1)).
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @sum
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4x3x3xf32>
// CHECK: %[[N:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: tensor.from_elements %[[N]] : tensor<1xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "reduction"]
func.func @sum(%x: tensor<?x4x3x3xf32>) -> (tensor<4xf32>, tensor<1xf32>) {
  %s, %n = nn.batch_norm_sum %x : (tensor<?x4x3x3xf32>) -> (tensor<4xf32>, tensor<1xf32>)
  return %s, %n : tensor<4xf32>, tensor<1xf32>
}

// -----

// CHECK-LABEL: func @train_global
// CHECK: %[[N:.*]] = tensor.extract %arg3[%{{.*}}] : tensor<1xf32>
// CHECK-NOT: "reduction"
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK-NOT: "reduction"
// CHECK: %[[NM1:.*]] = arith.subf %[[N]], %{{.*}} : f32
// CHECK-NOT: "reduction"
// CHECK: return
func.func @train_global(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>, %sum: tensor<4xf32>, %n: tensor<1xf32>)
    -> (tensor<?x4x3x3xf32>, tensor<4xf32>) {
  %y:5 = nn.batch_norm_train %x, %c, %c, %c, %c, %sum, %c, %n
      : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y#0, %y#2 : tensor<?x4x3x3xf32>, tensor<4xf32>
}

// -----

// The backward with global sums: this rank's sums for scale and bias, the
// global ones and count for the input gradient.
// CHECK-LABEL: func @grad_global
// CHECK: "reduction"
// CHECK: "reduction"
// CHECK: %[[N:.*]] = tensor.extract %arg7[%{{.*}}] : tensor<1xf32>
// CHECK: linalg.generic {{.*}} ins(%arg5 : tensor<4xf32>)
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK-NOT: "reduction"
// CHECK: return
func.func @grad_global(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>, %m: tensor<4xf32>,
                       %v: tensor<4xf32>, %gs: tensor<4xf32>, %gsx: tensor<4xf32>, %n: tensor<1xf32>)
    -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %g:3 = nn.batch_norm_grad %dy, %x, %c, %m, %v, %gs, %gsx, %n {training_mode = true}
      : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
      -> (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1, %g#2 : tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}
