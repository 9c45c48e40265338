// Conv, pooling and batch norm: explicit padding (a filled tensor with the
// input copied into its interior), convolution as im2col columns of the whole
// batch and one linalg.contract (one sgemm after bufferization) whose
// channels-first product is transposed to NCHW with the bias added (after
// the sum), grouped convolution and pooling as linalg's named NCHW ops, and
// per-channel generics.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// Strides (2, 1) and dilations (1, 2): the im2col generic reads the padded
// input at (oh * 2 + kh, ow + kw * 2) into columns [C, kH, kW, N, OH, OW].
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, d4 * 2 + d1, d5 + d2 * 2)>
// CHECK-DAG: #[[ID6:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[MW:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MX:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MY:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x6x6xf32>, %[[W:.*]]: tensor<3x2x3x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x2x9x7xf32>
// CHECK: %[[P:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x2x9x7xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P]][0, 0, 1, 0] [%{{.*}}, 2, 6, 6] [1, 1, 1, 1]
// CHECK: %[[C:.*]] = linalg.copy ins(%[[X]] : tensor<?x2x6x6xf32>) outs(%[[S]] : tensor<?x2x6x6xf32>)
// CHECK: %[[XP:.*]] = tensor.insert_slice %[[C]] into %[[P]][0, 0, 1, 0]
// CHECK: %[[FULL:.*]] = linalg.generic {indexing_maps = [#[[COL]], #[[ID6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XP]] : tensor<?x2x9x7xf32>) outs(%{{.*}} : tensor<2x3x3x?x4x3xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[FULL]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x3x3x?x4x3xf32> into tensor<18x?xf32>
// CHECK: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<3x2x3x3xf32> into tensor<3x18xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x?xf32>)
// CHECK: %[[Y:.*]] = linalg.contract indexing_maps = [#[[MW]], #[[MX]], #[[MY]]] ins(%[[W2]], %[[COLS]] : tensor<3x18xf32>, tensor<18x?xf32>) outs(%[[Z]] : tensor<3x?xf32>)
// CHECK: %[[YT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0], [1, 2, 3]] output_shape [3, %{{.*}}, 4, 3] : tensor<3x?xf32> into tensor<3x?x4x3xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[SWAP]], #[[CH]], #{{.*}}], {{.*}} ins(%[[YT]], %[[B]] : tensor<3x?x4x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<?x3x4x3xf32>)
// CHECK: arith.addf
// CHECK: return %[[OUT]]
func.func @conv(%x: tensor<?x2x6x6xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<?x3x4x3xf32> {
  %0 = nn.conv %x, %w, %b {pads = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>} : (tensor<?x2x6x6xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<?x3x4x3xf32>
  return %0 : tensor<?x3x4x3xf32>
}

// -----

// A 1x1 kernel: the columns are the input with batch and channels swapped;
// without a bias the product is only transposed back.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, d1 + d4, d2 + d5)>
// CHECK-LABEL: func @conv_1x1
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x5x5xf32>, %[[W:.*]]: tensor<8x4x1x1xf32>)
// CHECK: %[[FULL:.*]] = linalg.generic {indexing_maps = [#[[COL]], #{{.*}}], {{.*}} ins(%[[X]] : tensor<?x4x5x5xf32>) outs(%{{.*}} : tensor<4x1x1x?x5x5xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[FULL]] {{.*}} into tensor<4x?xf32>
// CHECK: %[[Y:.*]] = linalg.contract {{.*}} ins(%{{.*}}, %[[COLS]] : tensor<8x4xf32>, tensor<4x?xf32>)
// CHECK: %[[YT:.*]] = tensor.expand_shape %[[Y]] {{.*}} into tensor<8x?x5x5xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[YT]] : tensor<8x?x5x5xf32>) outs(%{{.*}} : tensor<?x8x5x5xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK: return %[[OUT]]
func.func @conv_1x1(%x: tensor<?x4x5x5xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<?x8x5x5xf32> {
  %0 = nn.conv %x, %w : (tensor<?x4x5x5xf32>, tensor<8x4x1x1xf32>) -> tensor<?x8x5x5xf32>
  return %0 : tensor<?x8x5x5xf32>
}

// -----

// Groups: views [N, G, C/G, H, W] and [G, M/G, C/G, kH, kW]; no padding, no
// bias.
// CHECK-LABEL: func @conv_group
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x5x5xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK-NOT: linalg.copy
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 2, 2, 5, 5] : tensor<?x4x5x5xf32> into tensor<?x2x2x5x5xf32>
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[OG:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 2, 3, 3, 3] : tensor<?x6x3x3xf32> into tensor<?x2x3x3x3xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[XG]], %[[WG]] : tensor<?x2x2x5x5xf32>, tensor<2x3x2x3x3xf32>) outs(%[[OG]] : tensor<?x2x3x3x3xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x3x3x3xf32> into tensor<?x6x3x3xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @conv_group(%x: tensor<?x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<?x6x3x3xf32> {
  %0 = nn.conv %x, %w {group = 2 : i64} : (tensor<?x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x3x3xf32>
  return %0 : tensor<?x6x3x3xf32>
}

// -----

// MaxPool pads with -inf and starts from -inf.
// CHECK-LABEL: func @max_pool
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<?x2x7x7xf32>)
// CHECK: %[[XP:.*]] = tensor.insert_slice
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x2x3x3xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XP]], %[[WIN]] : tensor<?x2x7x7xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<?x2x3x3xf32>)
func.func @max_pool(%x: tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xf32> {
  %0 = nn.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x3x3xf32>
}

// -----

// MaxPool's Indices: the window argmax of the -inf padded input, each
// position the flat input index ((n * C + c) * W + w) * H + h for
// storage_order = 1, where h = oh * 2 + kh - 1 and w = ow * 2 + kw - 1.
// CHECK-LABEL: func @max_pool_indices
// CHECK: %[[ARG:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<?x2x3x3xi64>)
// CHECK: %{{.*}}:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?x2x7x7xf32>, tensor<3x3xf32>) outs(%{{.*}}, %[[ARG]] : tensor<?x2x3x3xf32>, tensor<?x2x3x3xi64>)
// CHECK: %[[TAKE:.*]] = arith.ori
// CHECK: %[[OH:.*]] = linalg.index 2 : index
// CHECK: %[[KH:.*]] = linalg.index 4 : index
// CHECK: %[[KHD:.*]] = arith.muli %[[KH]], %{{.*}} : index
// CHECK: %[[OHS:.*]] = arith.muli %[[OH]], %{{.*}} : index
// CHECK: %[[H0:.*]] = arith.addi %[[OHS]], %[[KHD]] : index
// CHECK: %[[H:.*]] = arith.subi %[[H0]], %{{.*}} : index
// CHECK: %[[OW:.*]] = linalg.index 3 : index
// CHECK: %[[KW:.*]] = linalg.index 5 : index
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[N:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[NC:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: %[[PLANE:.*]] = arith.addi %[[NC]], %[[C]] : index
// CHECK: %[[PW:.*]] = arith.muli %[[PLANE]], %{{.*}} : index
// CHECK: %[[PWW:.*]] = arith.addi %[[PW]], %[[W]] : index
// CHECK: %[[PWH:.*]] = arith.muli %[[PWW]], %{{.*}} : index
// CHECK: %[[FLAT:.*]] = arith.addi %[[PWH]], %[[H]] : index
// CHECK: %[[POS:.*]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK: arith.select %[[TAKE]], %[[POS]], %{{.*}} : i64
func.func @max_pool_indices(%x: tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xi64> {
  %0 = nn.max_pool_indices %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xi64>
  return %0 : tensor<?x2x3x3xi64>
}

// -----

// AveragePool without count_include_pad divides by the number of window
// positions inside the input, a constant [OH, OW] tensor.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[HW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @average_pool
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x2x7x7xf32>, tensor<2x2xf32>)
// CHECK: %[[N:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 2.000000e+00], [2.000000e+00, 4.000000e+00, 4.000000e+00], [2.000000e+00, 4.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[HW]], #[[ID]]], {{.*}} ins(%[[SUM]], %[[N]] : tensor<?x2x3x3xf32>, tensor<3x3xf32>)
// CHECK: arith.divf
func.func @average_pool(%x: tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xf32> {
  %0 = nn.average_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x3x3xf32>
}

// -----

// With count_include_pad the divisor is the kernel size.
// CHECK-LABEL: func @average_pool_include_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: %[[K:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}}, %[[K]] : f32
func.func @average_pool_include_pad(%x: tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xf32> {
  %0 = nn.average_pool %x {count_include_pad = true, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x2x6x6xf32>) -> tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x3x3xf32>
}

// -----

// CHECK-LABEL: func @global_average_pool
// CHECK: %[[S:.*]] = linalg.reduce ins(%{{.*}} : tensor<?x3x4x5xf32>) outs(%{{.*}} : tensor<?x3xf32>) dimensions = [2, 3]
// CHECK: %[[N:.*]] = arith.constant 2.000000e+01 : f32
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<?x3xf32>)
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2, 3]] output_shape [%{{.*}}, 3, 1, 1] : tensor<?x3xf32> into tensor<?x3x1x1xf32>
func.func @global_average_pool(%x: tensor<?x3x4x5xf32>) -> tensor<?x3x1x1xf32> {
  %0 = nn.global_average_pool %x : (tensor<?x3x4x5xf32>) -> tensor<?x3x1x1xf32>
  return %0 : tensor<?x3x1x1xf32>
}

// -----

// Per channel s = 1 / sqrt(var + eps) * scale and shift = bias - mean * s,
// then y = x * s + shift read through the channel dim.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x2x2xf32>, %[[SC:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[SC]], %[[V]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: arith.addf
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: %[[SH:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[M]], %[[S]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[ID]]], {{.*}} ins(%[[X]], %[[S]], %[[SH]] : tensor<?x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @batch_norm(%x: tensor<?x4x2x2xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<?x4x2x2xf32> {
  %0 = nn.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32} : (tensor<?x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x2x2xf32>
  return %0 : tensor<?x4x2x2xf32>
}

// -----

// 16-bit operands (--precision): the padding, the im2col columns and the
// weight matrix stay bf16; the one contraction sums into f32.
// CHECK-LABEL: func @conv_bf16
// CHECK: linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<?x3x10x10xbf16>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<3x3x3x?x8x8xbf16> into tensor<27x?xbf16>
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<4x3x3x3xbf16> into tensor<4x27xbf16>
// CHECK: linalg.contract {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x27xbf16>, tensor<27x?xbf16>) outs(%{{.*}} : tensor<4x?xf32>)
func.func @conv_bf16(%x: tensor<?x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %b: tensor<4xf32>) -> tensor<?x4x8x8xf32> {
  %y = nn.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  return %y : tensor<?x4x8x8xf32>
}
