// RUN: autodist-opt %s -split-input-file --nn-mixed-precision | FileCheck %s
// RUN: autodist-opt %s -split-input-file --nn-mixed-precision=precision=fp16 | FileCheck %s --check-prefix=F16
// RUN: not autodist-opt %s -split-input-file --nn-mixed-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=BAD

// Every f32 product's operands are rounded, one cast per value: the weight
// read by the forward product and by the input gradient is cast once,
// right after its definition (here: at the entry). The results stay f32.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W:[a-z0-9_]+]]: tensor<64x32xf32>, %[[X:[a-z0-9_]+]]: tensor<?x64xf32>, %[[DY:[a-z0-9_]+]]: tensor<?x32xf32>)
// CHECK-DAG: %[[DYB:.*]] = nn.cast %[[DY]] {to = bf16} : (tensor<?x32xf32>) -> tensor<?x32xbf16>
// CHECK-DAG: %[[XB:.*]] = nn.cast %[[X]] {to = bf16} : (tensor<?x64xf32>) -> tensor<?x64xbf16>
// CHECK-DAG: %[[WB:.*]] = nn.cast %[[W]] {to = bf16} : (tensor<64x32xf32>) -> tensor<64x32xbf16>
// CHECK: %[[Y:.*]] = nn.matmul %[[XB]], %[[WB]] : (tensor<?x64xbf16>, tensor<64x32xbf16>) -> tensor<?x32xf32>
// CHECK: %[[R:.*]] = nn.relu %[[Y]]
// CHECK: %[[RB:.*]] = nn.cast %[[R]] {to = bf16}
// CHECK: nn.gemm %[[RB]], %[[DYB]] {transA = true} : (tensor<?x32xbf16>, tensor<?x32xbf16>) -> tensor<32x32xf32>
// CHECK: nn.gemm %[[DYB]], %[[WB]] {transB = true} : (tensor<?x32xbf16>, tensor<64x32xbf16>) -> tensor<?x64xf32>
// CHECK-NOT: nn.cast
// F16-LABEL: func.func @train_step(
// F16: nn.matmul {{.*}} : (tensor<?x64xf16>, tensor<64x32xf16>) -> tensor<?x32xf32>
// BAD: error: unsupported precision 'fp8' for nn-mixed-precision (supported: bf16, fp16)
func.func @train_step(%w: tensor<64x32xf32>, %x: tensor<?x64xf32>, %dy: tensor<?x32xf32>)
    -> (tensor<?x32xf32>, tensor<32x32xf32>, tensor<?x64xf32>) {
  %y = nn.matmul %x, %w : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %r = nn.relu %y : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %gw = nn.gemm %r, %dy {transA = true} : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<32x32xf32>
  %gx = nn.gemm %dy, %w {transB = true} : (tensor<?x32xf32>, tensor<64x32xf32>) -> tensor<?x64xf32>
  return %r, %gw, %gx : tensor<?x32xf32>, tensor<32x32xf32>, tensor<?x64xf32>
}

// -----

// Products already on 16-bit operands are left alone; so is every other op.
// CHECK-LABEL: func.func @already_rounded(
// CHECK-NEXT: nn.matmul %arg0, %arg1 : (tensor<4x8xbf16>, tensor<8x3xbf16>)
// CHECK-NEXT: nn.add
// CHECK-NEXT: return
func.func @already_rounded(%a: tensor<4x8xbf16>, %b: tensor<8x3xbf16>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = nn.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf32>
  %1 = nn.add %0, %c : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Convolutions of group 1 and their gradients (im2col and one GEMM) are
// products too; a grouped one stays f32.
// CHECK-LABEL: func.func @convolutions(
// CHECK-DAG: %[[XB:.*]] = nn.cast %arg0 {to = bf16}
// CHECK-DAG: %[[WB:.*]] = nn.cast %arg1 {to = bf16}
// CHECK-DAG: %[[DYB:.*]] = nn.cast %arg3 {to = bf16}
// CHECK: nn.conv %[[XB]], %[[WB]], %arg2 {{.*}} : (tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
// CHECK: nn.conv_input_grad %[[DYB]], %[[WB]] {{.*}} : (tensor<?x4x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<?x3x8x8xf32>
// CHECK: nn.conv_weight_grad %[[DYB]], %[[XB]] {{.*}} : (tensor<?x4x8x8xbf16>, tensor<?x3x8x8xbf16>) -> tensor<4x3x3x3xf32>
// CHECK: nn.conv %arg4, %arg5 {group = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<4x2x1x1xf32>) -> tensor<?x4x8x8xf32>
func.func @convolutions(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>,
                        %dy: tensor<?x4x8x8xf32>, %x2: tensor<?x4x8x8xf32>, %w2: tensor<4x2x1x1xf32>)
    -> (tensor<?x4x8x8xf32>, tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<?x4x8x8xf32>) {
  %y = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  %dx = nn.conv_input_grad %dy, %w {input_size = array<i64: 8, 8>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  %dw = nn.conv_weight_grad %dy, %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x8x8xf32>, tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  %g = nn.conv %x2, %w2 {group = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<4x2x1x1xf32>) -> tensor<?x4x8x8xf32>
  return %y, %dx, %dw, %g : tensor<?x4x8x8xf32>, tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<?x4x8x8xf32>
}
