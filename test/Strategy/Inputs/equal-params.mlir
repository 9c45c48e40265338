// Twelve parameters of 4096 bytes each: placements show as loads directly.
module {
  func.func @forward(%p0: tensor<16x64xf32> {nn.param = "p0"},
                     %p1: tensor<16x64xf32> {nn.param = "p1"},
                     %p2: tensor<16x64xf32> {nn.param = "p2"},
                     %p3: tensor<16x64xf32> {nn.param = "p3"},
                     %p4: tensor<16x64xf32> {nn.param = "p4"},
                     %p5: tensor<16x64xf32> {nn.param = "p5"},
                     %p6: tensor<16x64xf32> {nn.param = "p6"},
                     %p7: tensor<16x64xf32> {nn.param = "p7"},
                     %p8: tensor<16x64xf32> {nn.param = "p8"},
                     %p9: tensor<16x64xf32> {nn.param = "p9"},
                     %p10: tensor<16x64xf32> {nn.param = "p10"},
                     %p11: tensor<16x64xf32> {nn.param = "p11"}) {
    return
  }
}
