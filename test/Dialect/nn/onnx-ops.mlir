// Round trip of the ONNX operator-coverage ops (parse, print, reparse).
// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @elementwise
func.func @elementwise(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
  // CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %0 = nn.div %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.pow %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = nn.pow %0, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.sqrt %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = nn.sqrt %1 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.neg
  %3 = nn.neg %2 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.exp
  %4 = nn.exp %3 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.log
  %5 = nn.log %4 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.sigmoid
  %6 = nn.sigmoid %5 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.tanh
  %7 = nn.tanh %6 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.erf
  %8 = nn.erf %7 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %9 = nn.leaky_relu %8 {alpha = 0.2 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.leaky_relu %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %10 = nn.leaky_relu %9 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.gelu %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %11 = nn.gelu %10 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.gelu %{{.*}} {approximate = "tanh"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %12 = nn.gelu %11 {approximate = "tanh"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %12 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @compare_select_cast
func.func @compare_select_cast(%x: tensor<?x4xf32>, %k: tensor<4xi64>, %s: tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xi1>) {
  // CHECK: nn.cast %{{.*}} {to = i64} : (tensor<?x4xf32>) -> tensor<?x4xi64>
  %0 = nn.cast %x {to = i64} : (tensor<?x4xf32>) -> tensor<?x4xi64>
  // CHECK: nn.equal %{{.*}}, %{{.*}} : (tensor<?x4xi64>, tensor<4xi64>) -> tensor<?x4xi1>
  %1 = nn.equal %0, %k : (tensor<?x4xi64>, tensor<4xi64>) -> tensor<?x4xi1>
  // CHECK: nn.equal %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xi1>
  %2 = nn.equal %x, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xi1>
  // CHECK: nn.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %3 = nn.where %1, %x, %s : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: nn.cast %{{.*}} {to = f32} : (tensor<?x4xi1>) -> tensor<?x4xf32>
  %4 = nn.cast %2 {to = f32} : (tensor<?x4xi1>) -> tensor<?x4xf32>
  // CHECK: nn.cast %{{.*}} {to = i1} : (tensor<?x4xi64>) -> tensor<?x4xi1>
  %5 = nn.cast %0 {to = i1} : (tensor<?x4xi64>) -> tensor<?x4xi1>
  // CHECK: %{{.*}}, %[[M:.*]] = nn.dropout %{{.*}} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  %6, %7 = nn.dropout %3 : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  %8 = nn.add %6, %4 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %8, %5 : tensor<?x4xf32>, tensor<?x4xi1>
}

// -----

// A ratio given at run time rides along as an operand.
// CHECK-LABEL: func @dropout_runtime_ratio
// CHECK: nn.dropout %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
func.func @dropout_runtime_ratio(%x: tensor<?x4xf32>, %r: tensor<f32>) -> tensor<?x4xf32> {
  %0, %1 = nn.dropout %x, %r : (tensor<?x4xf32>, tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @softmax_and_reductions
func.func @softmax_and_reductions(%x: tensor<?x3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x3x5xf32>, tensor<?x1x5xf32>, tensor<?xf32>, tensor<1x1x1xf32>, tensor<?x3x5xf32>) {
  // CHECK: nn.softmax %{{.*}} {axis = 1 : i64} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  %0 = nn.softmax %x {axis = 1} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  // CHECK: nn.log_softmax %{{.*}} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  %1 = nn.log_softmax %x : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  // CHECK: nn.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<?x3x5xf32>) -> tensor<?x1x5xf32>
  %2 = nn.reduce_sum %x {axes = array<i64: 1>} : (tensor<?x3x5xf32>) -> tensor<?x1x5xf32>
  // CHECK: nn.reduce_mean %{{.*}} {axes = array<i64: -1, 1>, keepdims = false} : (tensor<?x3x5xf32>) -> tensor<?xf32>
  %3 = nn.reduce_mean %x {axes = array<i64: -1, 1>, keepdims = false} : (tensor<?x3x5xf32>) -> tensor<?xf32>
  // CHECK: nn.reduce_max %{{.*}} : (tensor<?x3x5xf32>) -> tensor<1x1x1xf32>
  %4 = nn.reduce_max %x : (tensor<?x3x5xf32>) -> tensor<1x1x1xf32>
  // CHECK: nn.reduce_sum %{{.*}} {noop_with_empty_axes = true} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  %5 = nn.reduce_sum %x {noop_with_empty_axes = true} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x3x5xf32>, tensor<?x3x5xf32>, tensor<?x1x5xf32>, tensor<?xf32>, tensor<1x1x1xf32>, tensor<?x3x5xf32>
}

// -----

// CHECK-LABEL: func @shape_ops
func.func @shape_ops(%x: tensor<?x1x4xf32>, %y: tensor<?x3xf32>, %i: tensor<2x3xi64>) -> (tensor<?x7xf32>, tensor<3x2xi64>, tensor<?x1x4x1xf32>) {
  // CHECK: nn.squeeze %{{.*}} {axes = array<i64: 1>} : (tensor<?x1x4xf32>) -> tensor<?x4xf32>
  %0 = nn.squeeze %x {axes = array<i64: 1>} : (tensor<?x1x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.unsqueeze %{{.*}} {axes = array<i64: 1, -1>} : (tensor<?x4xf32>) -> tensor<?x1x4x1xf32>
  %1 = nn.unsqueeze %0 {axes = array<i64: 1, -1>} : (tensor<?x4xf32>) -> tensor<?x1x4x1xf32>
  // CHECK: nn.concat %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x7xf32>
  %2 = nn.concat %0, %y {axis = -1} : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x7xf32>
  // CHECK: nn.transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %3 = nn.transpose %i {perm = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  return %2, %3, %1 : tensor<?x7xf32>, tensor<3x2xi64>, tensor<?x1x4x1xf32>
}

// -----

// CHECK-LABEL: func @matmul_nd
func.func @matmul_nd(%a: tensor<?x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<1x4x2xf32>, %v: tensor<4xf32>) -> (tensor<?x3x5xf32>, tensor<?x3x2xf32>, tensor<?x3xf32>, tensor<?x4xf32>) {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  %0 = nn.matmul %a, %w : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<1x4x2xf32>) -> tensor<?x3x2xf32>
  %1 = nn.matmul %a, %b : (tensor<?x3x4xf32>, tensor<1x4x2xf32>) -> tensor<?x3x2xf32>
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3xf32>
  %2 = nn.matmul %a, %v : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3xf32>
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<?x3x4xf32>) -> tensor<?x4xf32>
  %s = tensor.extract_slice %v[0] [3] [1] : tensor<4xf32> to tensor<3xf32>
  %3 = nn.matmul %s, %a : (tensor<3xf32>, tensor<?x3x4xf32>) -> tensor<?x4xf32>
  return %0, %1, %2, %3 : tensor<?x3x5xf32>, tensor<?x3x2xf32>, tensor<?x3xf32>, tensor<?x4xf32>
}
