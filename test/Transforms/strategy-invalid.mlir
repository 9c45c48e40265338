// RUN: not autodist-opt %s --dist-strategy 2>&1 | FileCheck %s --check-prefix=NOSTEP
// RUN: not autodist-opt %s --autodist-build-train-step --dist-strategy="builder=magic" 2>&1 | FileCheck %s --check-prefix=BUILDER
// RUN: not autodist-opt %s --autodist-build-train-step --dist-strategy="chunk-size=0" 2>&1 | FileCheck %s --check-prefix=CHUNK

// NOSTEP: error: no @train_step to distribute (run autodist-build-train-step first)
// BUILDER: error: unknown strategy builder 'magic' (supported: allreduce)
// CHUNK: error: dist-strategy chunk-size must be >= 1, got 0
module {
  func.func @forward(%w: tensor<4x4xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> tensor<?x4xf32> {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}
