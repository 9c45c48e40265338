// RUN: autodist-opt %s --dist-strategy="builder=random-axis-ar seed=7" | FileCheck %s
// RUN: autodist-opt %s --dist-strategy="builder=random-axis-ar seed=7" > %t.a
// RUN: autodist-opt %s --dist-strategy="builder=random-axis-ar seed=7" > %t.b
// RUN: diff %t.a %t.b

// A seeded random axis among those longer than 1, split by its smallest
// divisor: [1, 7] can only split axis 1 (7 shards), [1, 1] not at all,
// [6, 1, 4] axis 0 (2 shards) or axis 2 (2 shards), [5, 9] axis 0 (5) or 1 (3).
// CHECK: #dist.node<"row", partition = #dist.partition<[1, 7]>, parts = [
// CHECK: #dist.node<"one", #dist.allreduce<spec = auto, compressor = none, group = 0>>
// CHECK: #dist.node<"t", partition = #dist.partition<{{\[2, 1, 1\]|\[1, 1, 2\]}}>
// CHECK: #dist.node<"m", partition = #dist.partition<{{\[5, 1\]|\[1, 3\]}}>
module {
  func.func @forward(%r: tensor<1x7xf32> {nn.param = "row"}, %o: tensor<1x1xf32> {nn.param = "one"},
                     %t: tensor<6x1x4xf32> {nn.param = "t"}, %m: tensor<5x9xf32> {nn.param = "m"}) {
    return
  }
}
