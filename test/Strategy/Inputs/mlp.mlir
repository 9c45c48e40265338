// Parameters of the generated MLP (examples/mlp/make_mlp.py, after import).
module {
  func.func @forward(%w1: tensor<32x64xf32> {nn.param = "fc1.weight"}, %b1: tensor<32xf32> {nn.param = "fc1.bias"},
                     %w2: tensor<10x32xf32> {nn.param = "fc2.weight"}, %b2: tensor<10xf32> {nn.param = "fc2.bias"},
                     %x: tensor<?x64xf32> {nn.input = "x"}) -> (tensor<?x10xf32> {nn.output = "logits"}) {
    %0 = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    %1 = nn.relu %0 : (tensor<?x32xf32>) -> tensor<?x32xf32>
    %2 = nn.gemm %1, %w2, %b2 {transB = true} : (tensor<?x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<?x10xf32>
    return %2 : tensor<?x10xf32>
  }
}
