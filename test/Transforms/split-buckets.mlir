// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --dist-split-buckets=bucket-bytes=128 | FileCheck %s
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --dist-split-buckets=bucket-bytes=0 | FileCheck %s --check-prefix=WHOLE
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --dist-split-buckets=bucket-bytes=128 --dist-overlap-collectives --convert-dist-to-runtime | FileCheck %s --check-prefix=LOWER

// The one group of the MLP (w1 128 bytes, b1 32, w2 96, the loss 4) cut
// into buckets of at most 128 bytes in reverse order of computation: the
// first bucket holds the gradients computed first (w2's, with the loss),
// each all-reduce comes right after the last value of its bucket, and the
// updates read the reduced values.

// CHECK-LABEL: func.func @train_step
// CHECK: %[[LOSS:.*]] = nn.softmax_cross_entropy_loss
// CHECK: %[[GW2:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : {{.*}} -> tensor<8x3xf32>
// CHECK-NEXT: %[[R2:.*]]:2 = dist.all_reduce mean %[[GW2]], %[[LOSS]] : tensor<8x3xf32>, tensor<f32>
// CHECK-NEXT: %[[GW1:.*]] = nn.gemm {{.*}} -> tensor<8x4xf32>
// CHECK-NEXT: %[[R1:.*]] = dist.all_reduce mean %[[GW1]] : tensor<8x4xf32>
// CHECK-NEXT: %[[GB1:.*]] = nn.reduce_sum
// CHECK-NEXT: %[[RB:.*]] = dist.all_reduce mean %[[GB1]] : tensor<8xf32>
// CHECK-NEXT: nn.sgd_update %{{.*}}, %[[R1]],
// CHECK-NEXT: nn.sgd_update %{{.*}}, %[[RB]],
// CHECK-NEXT: nn.sgd_update %{{.*}}, %[[R2]]#0,
// CHECK-NEXT: return %[[R2]]#1,

// Lowered: each bucket's collective starts right after its last gradient,
// while the backward pass goes on, and is waited for right before the first
// update that reads it.
// LOWER-LABEL: func.func @train_step
// LOWER: nn.gemm {{.*}} -> tensor<8x3xf32>
// LOWER: %[[H2:.*]] = call @autodist_rt_allreduce_start_f32(%[[B2:.*]]) :
// LOWER-NEXT: nn.gemm {{.*}} -> tensor<8x4xf32>
// LOWER: %[[H1:.*]] = call @autodist_rt_allreduce_start_f32(%[[B1:.*]]) :
// LOWER-NEXT: nn.reduce_sum
// LOWER: %[[HB:.*]] = call @autodist_rt_allreduce_start_f32(%[[BB:.*]]) :
// LOWER: call @autodist_rt_allreduce_wait_f32(%[[B1]], %[[H1]],
// LOWER: nn.sgd_update %arg0
// LOWER: call @autodist_rt_allreduce_wait_f32(%[[BB]], %[[HB]],
// LOWER: nn.sgd_update %arg1
// LOWER: call @autodist_rt_allreduce_wait_f32(%[[B2]], %[[H2]],
// LOWER: nn.sgd_update %arg2

// bucket-bytes=0 keeps the group in one collective.
// WHOLE-LABEL: func.func @train_step
// WHOLE-COUNT-1: dist.all_reduce
// WHOLE-NOT: dist.all_reduce
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w1"}, %b1: tensor<8xf32> {nn.param = "b1"},
                     %w2: tensor<8x3xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %l = nn.matmul %h, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}
