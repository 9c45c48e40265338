// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @mlp
func.func @mlp(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  // CHECK: nn.gemm %{{.*}}, %{{.*}}, %{{.*}} {transB = true} : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %0 = nn.gemm %x, %w, %b {transB = true} : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  // CHECK: nn.relu
  %1 = nn.relu %0 : (tensor<?x32xf32>) -> tensor<?x32xf32>
  // CHECK: nn.identity
  %2 = nn.identity %1 : (tensor<?x32xf32>) -> tensor<?x32xf32>
  return %2 : tensor<?x32xf32>
}

// -----

// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<?x8x8xf32>, %w: tensor<64x10xf32>) -> tensor<?x10xf32> {
  // CHECK: nn.flatten %{{.*}} : (tensor<?x8x8xf32>) -> tensor<?x64xf32>
  %0 = nn.flatten %x {axis = 1 : i64} : (tensor<?x8x8xf32>) -> tensor<?x64xf32>
  // CHECK: nn.reshape %{{.*}} {shape = array<i64: -1, 64>}
  %1 = nn.reshape %0 {shape = array<i64: -1, 64>} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  // CHECK: nn.matmul
  %2 = nn.matmul %1, %w : (tensor<?x64xf32>, tensor<64x10xf32>) -> tensor<?x10xf32>
  return %2 : tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func @broadcasting
func.func @broadcasting(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %0 = nn.add %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: nn.sub
  %1 = nn.sub %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: nn.mul
  %2 = nn.mul %1, %a : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func @loss_and_training_ops
func.func @loss_and_training_ops(%l: tensor<?x10xf32>, %y: tensor<?xi64>, %p: tensor<10xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<?x10xf32>, tensor<10xf32>) {
  // CHECK: nn.softmax_cross_entropy_loss %{{.*}}, %{{.*}} : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  %0 = nn.softmax_cross_entropy_loss %l, %y : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  // CHECK: nn.softmax_cross_entropy_loss_grad
  %1 = nn.softmax_cross_entropy_loss_grad %0, %l, %y : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>) -> tensor<?x10xf32>
  // CHECK: nn.relu_grad
  %2 = nn.relu_grad %1, %l : (tensor<?x10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
  // CHECK: nn.reduce_sum %{{.*}} {axes = array<i64: 0>, keepdims = false} : (tensor<?x10xf32>) -> tensor<10xf32>
  %3 = nn.reduce_sum %2 {axes = array<i64: 0>, keepdims = false} : (tensor<?x10xf32>) -> tensor<10xf32>
  // CHECK: nn.sgd_update
  %4 = nn.sgd_update %p, %3, %lr : (tensor<10xf32>, tensor<10xf32>, tensor<f32>) -> tensor<10xf32>
  return %0, %2, %4 : tensor<f32>, tensor<?x10xf32>, tensor<10xf32>
}

// -----

// Reshape, Flatten and Identity keep any element type (token ids, masks).
// CHECK-LABEL: func @int_bool_shapes
func.func @int_bool_shapes(%ids: tensor<?x6xi64>, %m: tensor<?x6xi1>) -> (tensor<?x6xi64>, tensor<?x3x2xi1>) {
  // CHECK: nn.reshape %{{.*}} {shape = array<i64: -1, 3, 2>} : (tensor<?x6xi64>) -> tensor<?x3x2xi64>
  %0 = nn.reshape %ids {shape = array<i64: -1, 3, 2>} : (tensor<?x6xi64>) -> tensor<?x3x2xi64>
  // CHECK: nn.flatten %{{.*}} : (tensor<?x3x2xi64>) -> tensor<?x6xi64>
  %1 = nn.flatten %0 {axis = 1 : i64} : (tensor<?x3x2xi64>) -> tensor<?x6xi64>
  // CHECK: nn.identity %{{.*}} : (tensor<?x6xi64>) -> tensor<?x6xi64>
  %2 = nn.identity %1 : (tensor<?x6xi64>) -> tensor<?x6xi64>
  // CHECK: nn.reshape %{{.*}} {shape = array<i64: 0, 3, 2>} : (tensor<?x6xi1>) -> tensor<?x3x2xi1>
  %3 = nn.reshape %m {shape = array<i64: 0, 3, 2>} : (tensor<?x6xi1>) -> tensor<?x3x2xi1>
  return %2, %3 : tensor<?x6xi64>, tensor<?x3x2xi1>
}

// -----

// A dynamic dim copied in place (`0`) cancels out of the `-1`: PyTorch's
// export of a bidirectional nn.LSTM's output, [T, B, 2, H] to [T, B, 2 H]
// (`[0, 0, -1]`), stays static but for the batch.
// CHECK-LABEL: func @reshape_copies_the_batch
// CHECK: nn.reshape %{{.*}} {shape = array<i64: 0, 0, -1>} : (tensor<16x?x2x8xf32>) -> tensor<16x?x16xf32>
// CHECK: nn.reshape %{{.*}} {shape = array<i64: 0, -1>} : (tensor<?x4x3xf32>) -> tensor<?x12xf32>
// A dynamic dim that is not copied leaves the `-1` dynamic.
// CHECK: nn.reshape %{{.*}} {shape = array<i64: 16, -1>} : (tensor<16x?x2x8xf32>) -> tensor<16x?xf32>
func.func @reshape_copies_the_batch(%y: tensor<16x?x2x8xf32>, %x: tensor<?x4x3xf32>) -> (tensor<16x?x16xf32>, tensor<?x12xf32>, tensor<16x?xf32>) {
  %0 = nn.reshape %y {shape = array<i64: 0, 0, -1>} : (tensor<16x?x2x8xf32>) -> tensor<16x?x16xf32>
  %1 = nn.reshape %x {shape = array<i64: 0, -1>} : (tensor<?x4x3xf32>) -> tensor<?x12xf32>
  %2 = nn.reshape %y {shape = array<i64: 16, -1>} : (tensor<16x?x2x8xf32>) -> tensor<16x?xf32>
  return %0, %1, %2 : tensor<16x?x16xf32>, tensor<?x12xf32>, tensor<16x?xf32>
}
