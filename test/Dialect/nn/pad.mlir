// Parsing, printing and type inference of nn.pad.
// RUN: autodist-opt %s -split-input-file | autodist-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @pad_spatial
// CHECK: nn.pad %{{.*}} {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 2>, value = 0.000000e+00 : f32} : (tensor<?x3x4x4xf32>) -> tensor<?x3x6x6xf32>
func.func @pad_spatial(%x: tensor<?x3x4x4xf32>) -> tensor<?x3x6x6xf32> {
  %0 = nn.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 2>, value = 0.0 : f32} : (tensor<?x3x4x4xf32>) -> tensor<?x3x6x6xf32>
  return %0 : tensor<?x3x6x6xf32>
}

// -----

// CHECK-LABEL: func @pad_value
// CHECK: nn.pad %{{.*}} {pads = array<i64: 2, 0>, value = -1.500000e+00 : f32} : (tensor<3xf32>) -> tensor<5xf32>
func.func @pad_value(%x: tensor<3xf32>) -> tensor<5xf32> {
  %0 = nn.pad %x {pads = array<i64: 2, 0>, value = -1.5 : f32} : (tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
