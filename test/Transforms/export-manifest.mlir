// RUN: autodist-opt %s --autodist-build-train-step="lr=0.25" --dist-strategy --dist-synchronize --autodist-export-manifest | FileCheck %s
// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum" --dist-strategy="builder=partitioned-ps cluster-file=%S/../Strategy/Inputs/cluster-3cpu.yaml" --dist-place --dist-partition --dist-synchronize --autodist-export-manifest | FileCheck %s --check-prefix=PS

// The cluster's nodes (devices, replicas) let the runtime map devices to
// ranks; optimizer state held by parameter servers lists its owners: w
// (4x3) is split into 2 shards on devices 0 (10.0.0.1:CPU:0) and 1
// (10.0.0.2:CPU:0).
// PS: \22cluster\22:{\22nodes\22:[{\22address\22:\2210.0.0.1\22,\22devices\22:1,\22replicas\22:1},{\22address\22:\2210.0.0.2\22,\22devices\22:2,\22replicas\22:2}]}
// PS-SAME: \22state\22:[{\22dtype\22:\22f32\22,\22name\22:\22w/momentum_buffer\22,\22owners\22:[{\22axis\22:0,\22device\22:0,\22offset\22:0,\22size\22:2},{\22axis\22:0,\22device\22:1,\22offset\22:2,\22size\22:2}],\22shape\22:[4,3]}]

// CHECK: autodist.manifest = "{\22cluster\22:{\22nodes\22:[{\22address\22:\22localhost\22,\22devices\22:1,\22replicas\22:1}]},\22inputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22shape\22:[-1,4]}],\22model\22:\22m.onnx\22,\22outputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22logits\22,\22shape\22:[-1,3]}],\22params\22:[{\22dtype\22:\22f32\22,\22name\22:\22w\22,\22shape\22:[4,3]}],\22strategy\22:{\22buckets\22:1,\22id\22:\22allreduce\22},\22train\22:{\22label\22:\22labels\22,\22labels\22:{\22dtype\22:\22i64\22,\22name\22:\22labels\22,\22shape\22:[-1]},\22loss\22:\22cross_entropy\22,\22lr\22:0.25,\22optimizer\22:\22sgd\22,\22schedule\22:{\22kind\22:\22constant\22},\22state\22:[]},\22version\22:1}"
// CHECK-DAG: func.func @train_step({{.*}} attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func @forward({{.*}} attributes {llvm.emit_c_interface}
module attributes {autodist.source = "m.onnx"} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
