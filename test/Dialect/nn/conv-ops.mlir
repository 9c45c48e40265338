// Round trip of the CNN ops (parse, print, reparse); attributes equal to
// their defaults are elided.
// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @conv
func.func @conv(%x: tensor<?x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>, %d: tensor<6x1x3x3xf32>) -> tensor<?x6x2x4xf32> {
  // CHECK: %[[G:.*]] = nn.conv %{{.*}}, %{{.*}}, %{{.*}} {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<?x6x4x4xf32>
  %0 = nn.conv %x, %w, %b {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<?x6x4x4xf32>
  // CHECK: nn.conv %[[G]], %{{.*}} {dilations = array<i64: 2, 1>, group = 6 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x6x4x4xf32>, tensor<6x1x3x3xf32>) -> tensor<?x6x2x4xf32>
  %1 = nn.conv %0, %d {dilations = array<i64: 2, 1>, group = 6 : i64, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x6x4x4xf32>, tensor<6x1x3x3xf32>) -> tensor<?x6x2x4xf32>
  return %1 : tensor<?x6x2x4xf32>
}

// -----

// CHECK-LABEL: func @pools
func.func @pools(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x1x1xf32> {
  // CHECK: nn.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  %0 = nn.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  // CHECK: nn.max_pool_indices %{{.*}} {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 1, 1, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xi64>
  %i = nn.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xi64>
  // CHECK: nn.average_pool %{{.*}} {count_include_pad = true, dilations = array<i64: 1, 2>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x4x4xf32>) -> tensor<?x3x5x4xf32>
  %1 = nn.average_pool %0 {count_include_pad = true, dilations = array<i64: 1, 2>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x4x4xf32>) -> tensor<?x3x5x4xf32>
  // CHECK: nn.average_pool %{{.*}} {kernel_shape = array<i64: 3, 3>} : (tensor<?x3x5x4xf32>) -> tensor<?x3x3x2xf32>
  %2 = nn.average_pool %1 {count_include_pad = false, kernel_shape = array<i64: 3, 3>} : (tensor<?x3x5x4xf32>) -> tensor<?x3x3x2xf32>
  // CHECK: nn.global_average_pool %{{.*}} : (tensor<?x3x3x2xf32>) -> tensor<?x3x1x1xf32>
  %3 = nn.global_average_pool %2 : (tensor<?x3x3x2xf32>) -> tensor<?x3x1x1xf32>
  return %3 : tensor<?x3x1x1xf32>
}

// -----

// CHECK-LABEL: func @batch_norm
func.func @batch_norm(%x: tensor<?x4x5x5xf32>, %v: tensor<?x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %var: tensor<4xf32>, %c: tensor<3xf32>) -> (tensor<?x4x5x5xf32>, tensor<?x3xf32>) {
  // CHECK: nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x5x5xf32>
  %0 = nn.batch_norm %x, %s, %b, %m, %var {epsilon = 1.0e-3 : f32} : (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x5x5xf32>
  // CHECK: nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x3xf32>,
  %1 = nn.batch_norm %v, %c, %c, %c, %c : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<?x4x5x5xf32>, tensor<?x3xf32>
}
