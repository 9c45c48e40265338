// The parameter shapes of a LeNet-style CNN (conv 6x1x5x5, conv 16x6x5x5,
// fc 10x256): what the builders decide depends on these shapes only.
module {
  func.func @forward(%c1: tensor<6x1x5x5xf32> {nn.param = "conv1.weight"}, %c1b: tensor<6xf32> {nn.param = "conv1.bias"},
                     %c2: tensor<16x6x5x5xf32> {nn.param = "conv2.weight"}, %c2b: tensor<16xf32> {nn.param = "conv2.bias"},
                     %fc: tensor<10x256xf32> {nn.param = "fc.weight"}, %fcb: tensor<7xf32> {nn.param = "fc.bias"}) {
    return
  }
}
