// RUN: autodist-opt %s -split-input-file --autodist-export-manifest | FileCheck %s

// --precision=tf32 marks the module (autodist.float32_matmul); the manifest
// carries it to the runtime, which lets cuBLASLt and cuDNN use TF32.
// CHECK-LABEL: module attributes
// CHECK-SAME: \22float32_matmul\22:\22tf32\22
module attributes {autodist.float32_matmul = "tf32", autodist.source = "m.onnx"} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}

// -----

// Without it the field is absent: f32 products stay exact.
// CHECK-LABEL: module attributes
// CHECK-NOT: float32_matmul
// CHECK: func.func @forward
module attributes {autodist.source = "m.onnx"} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
