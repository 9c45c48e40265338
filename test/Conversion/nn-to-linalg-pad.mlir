// nn.pad: the value filled into a new tensor, the input inserted after the
// leading pads (the dynamic batch dim sized from the input).
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3x6x7xf32>
// CHECK: %[[V:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?x3x6x7xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x4x4xf32>
// CHECK: tensor.insert_slice %[[X]] into %[[F]][0, 0, 1, 2] [%[[N]], 3, 4, 4] [1, 1, 1, 1] : tensor<?x3x4x4xf32> into tensor<?x3x6x7xf32>
func.func @pad(%x: tensor<?x3x4x4xf32>) -> tensor<?x3x6x7xf32> {
  %0 = nn.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>, value = 2.5 : f32} : (tensor<?x3x4x4xf32>) -> tensor<?x3x6x7xf32>
  return %0 : tensor<?x3x6x7xf32>
}
