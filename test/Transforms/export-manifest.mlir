// RUN: autodist-opt %s --autodist-build-train-step="lr=0.25" --dist-strategy --dist-synchronize --autodist-export-manifest | FileCheck %s

// CHECK: autodist.manifest = "{\22inputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22shape\22:[-1,4]}],\22model\22:\22m.onnx\22,\22outputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22logits\22,\22shape\22:[-1,3]}],\22params\22:[{\22dtype\22:\22f32\22,\22name\22:\22w\22,\22shape\22:[4,3]}],\22strategy\22:{\22buckets\22:1,\22id\22:\22allreduce\22},\22train\22:{\22label\22:\22labels\22,\22labels\22:{\22dtype\22:\22i64\22,\22name\22:\22labels\22,\22shape\22:[-1]},\22loss\22:\22cross_entropy\22,\22lr\22:0.25,\22optimizer\22:\22sgd\22,\22schedule\22:{\22kind\22:\22constant\22},\22state\22:[]},\22version\22:1}"
// CHECK-DAG: func.func @train_step({{.*}} attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func @forward({{.*}} attributes {llvm.emit_c_interface}
module attributes {autodist.source = "m.onnx"} {
  func.func @forward(%w: tensor<4x3xf32> {nn.param = "w"}, %x: tensor<?x4xf32> {nn.input = "x"}) -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %0 = nn.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
