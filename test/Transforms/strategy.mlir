// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy | FileCheck %s
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy="chunk-size=2" | FileCheck %s --check-prefix=CHUNK

// AutoDist's AllReduce builder: one node per parameter, all in group 0 by
// default, a new group every chunk-size parameters otherwise.

// CHECK: dist.strategy = #dist.strategy<builder = "allreduce", nodes = [
// CHECK-SAME: #dist.node<"w1", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
// CHECK-SAME: #dist.node<"b1", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
// CHECK-SAME: #dist.node<"w2", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>

// CHUNK: #dist.node<"w1", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
// CHUNK-SAME: #dist.node<"b1", #dist.allreduce<spec = auto, compressor = none, group = 0>>,
// CHUNK-SAME: #dist.node<"w2", #dist.allreduce<spec = auto, compressor = none, group = 1>>]>
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w1"}, %b1: tensor<8xf32> {nn.param = "b1"},
                     %w2: tensor<8x3xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %l = nn.matmul %h, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}
