// convert-nn-conv-to-library: a chosen convolution becomes one call into the
// runtime's oneDNN convolutions (docs/abi.md) on its operands' buffers:
// to_buffer of the inputs, a fresh buffer for the result (its batch that of
// the input or output gradient), i32 strides, pads and dilations, and the
// result back as a tensor; it survives one-shot bufferization as a call.
// REQUIRES: onednn
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library=backend=onednn --cse | FileCheck %s
// RUN: autodist-opt %s -split-input-file --convert-nn-conv-to-library=backend=onednn --convert-nn-to-linalg --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @forward_bias
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x9x9xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[XB:.*]] = bufferization.to_buffer %[[X]] : tensor<?x3x9x9xf32> to memref<?x3x9x9xf32>
// CHECK-DAG: %[[WB:.*]] = bufferization.to_buffer %[[W]] : tensor<4x3x3x3xf32> to memref<4x3x3x3xf32>
// CHECK-DAG: %[[BB:.*]] = bufferization.to_buffer %[[B]] : tensor<4xf32> to memref<4xf32>
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[Y:.*]] = memref.alloc(%[[N]]) : memref<?x4x4x3xf32>
// CHECK: call @autodist_rt_conv2d_fwd_bias_f32({{.*}}) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?xf32>, memref<?x?x?x?xf32>, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: return %[[T]]
// CHECK: func.func private @autodist_rt_conv2d_fwd_bias_f32({{.*}}) attributes {llvm.emit_c_interface}
// BUF-LABEL: func.func @forward_bias
// BUF: memref.alloc
// BUF: call @autodist_rt_conv2d_fwd_bias_f32
// BUF-NOT: linalg
func.func @forward_bias(%x: tensor<?x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>)
    -> tensor<?x4x4x3xf32> {
  %y = nn.conv %x, %w, %b {pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 3>}
      : (tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x3xf32>
  return %y : tensor<?x4x4x3xf32>
}

// -----

// The geometry: strides 2, 3; pads 1, 0, 0, 1; dilations 1, 2.
// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK: call @autodist_rt_conv2d_fwd_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[C2]], %[[C3]], %[[C1]], %[[C0]], %[[C0]], %[[C1]], %[[C1]], %[[C2]])
func.func @forward(%x: tensor<?x3x9x9xf32>, %w: tensor<4x3x3x3xf32>)
    -> tensor<?x4x4x2xf32> {
  %y = nn.conv %x, %w {dilations = array<i64: 1, 2>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 3>}
      : (tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x4x2xf32>
  return %y : tensor<?x4x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @gradients
// CHECK-SAME: (%[[DY:.*]]: tensor<?x4x7x7xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[X:.*]]: tensor<?x3x9x9xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[DY]], %c0
// CHECK: memref.alloc(%[[N]]) : memref<?x3x9x9xf32>
// CHECK: call @autodist_rt_conv2d_bwd_data_f32(
// CHECK: memref.alloc() : memref<4x3x3x3xf32>
// CHECK: call @autodist_rt_conv2d_bwd_weights_f32(
func.func @gradients(%dy: tensor<?x4x7x7xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<?x3x9x9xf32>)
    -> (tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>) {
  %dx = nn.conv_input_grad %dy, %w {input_size = array<i64: 9, 9>}
      : (tensor<?x4x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x9x9xf32>
  %dw = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>}
      : (tensor<?x4x7x7xf32>, tensor<?x3x9x9xf32>) -> tensor<4x3x3x3xf32>
  return %dx, %dw : tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>
}
