// REQUIRES: cuda-toolkit
// The cuda target's lowering: kernels compiled for the chosen architecture
// (PTX text with cuda-format=isa), the math functions resolved from
// libdevice, the host left with launches and runtime calls.
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm="target=cuda cuda-format=isa" -o %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=PTX < %t
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm="target=cuda cuda-arch=sm_80 cuda-format=isa" | FileCheck %s --check-prefix=SM80
// RUN: not autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm="target=cuda cuda-arch=sm_75" 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm="target=cuda cuda-format=fatbin" 2>&1 | FileCheck %s --check-prefix=FORMAT

// CHECK-NOT: nn.
// CHECK-NOT: linalg.
// CHECK-DAG: gpu.launch_func {{ *}}@train_step_kernel{{.*}}::@train_step_kernel blocks in
// CHECK-DAG: llvm.func @_mlir_ciface_autodist_rt_sgemm(
// CHECK-DAG: llvm.func @autodist_train_step(%{{.*}}: !llvm.ptr)
// CHECK-DAG: llvm.func @autodist_forward(%{{.*}}: !llvm.ptr)
// PTX: gpu.binary @train_step_kernel
// PTX-SAME: .target sm_90
// The loss's exp/log are libdevice's, inlined: no undefined function left.
// PTX-NOT: .extern .func
// RUN: not autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm="target=cuda cuda-toolkit=%t.none" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// SM80: .target sm_80
// TOOLKIT: error: no CUDA toolkit at '{{.*}}.none' ({{.*}}/nvvm/libdevice/libdevice.10.bc is missing): give --cuda-toolkit=DIR or set CUDA_HOME
// ARCH: error: --cuda-arch=sm_75: expected sm_80 or newer
// FORMAT: error: unknown cuda kernel format 'fatbin' (expected bin or isa)
module attributes {autodist.source = "m.onnx"} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %1 = nn.relu %0 : (tensor<?x3xf32>) -> tensor<?x3xf32>
    return %1 : tensor<?x3xf32>
  }
}
