// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm | FileCheck %s
// The pipeline is the target's lowering (cpu by default).
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm=target=cpu | FileCheck %s
// RUN: not autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --autodist-lower-to-llvm=target=gpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'gpu' (supported: cpu, cuda)

// The whole lowering: only the LLVM dialect is left, contractions call
// sgemm, the bucket calls the all-reduce, and both entry points are packed.
// CHECK-NOT: nn.
// CHECK-NOT: linalg.
// CHECK-DAG: llvm.func @_mlir_ciface_autodist_rt_sgemm(
// CHECK-DAG: llvm.func @_mlir_ciface_autodist_rt_allreduce_f32(
// CHECK-DAG: llvm.func @autodist_train_step(%{{.*}}: !llvm.ptr)
// CHECK-DAG: llvm.func @autodist_forward(%{{.*}}: !llvm.ptr)
// CHECK-DAG: llvm.mlir.global external constant @autodist_manifest
module attributes {autodist.source = "m.onnx"} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %b: tensor<3xf32> {nn.param = "b"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w, %b : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %1 = nn.relu %0 : (tensor<?x3xf32>) -> tensor<?x3xf32>
    return %1 : tensor<?x3xf32>
  }
}
