// Elementwise fusion that leaves contractions intact.
// RUN: autodist-opt %s -split-input-file --autodist-fuse-elementwise | FileCheck %s

// An elementwise chain fuses into one generic.
// CHECK-LABEL: func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @chain(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// The reshapes around a contraction stay (upstream's pass would expand the
// contraction into a 4-D linalg.generic), and so does its elementwise
// producer.
// CHECK-LABEL: func @contraction
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[T]]
// CHECK: %[[R:.*]] = linalg.contract {{.*}} ins(%{{.*}}, %[[C]] : tensor<6x12xf32>, tensor<?x12x10xf32>)
// CHECK: tensor.expand_shape %[[R]]
func.func @contraction(%w: tensor<6x12xf32>, %x: tensor<?x3x4x10xf32>, %y: tensor<?x6x10xf32>) -> tensor<?x6x2x5xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x4x10xf32>
  %e = tensor.empty(%n) : tensor<?x3x4x10xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<?x3x4x10xf32>) outs(%e : tensor<?x3x4x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x3x4x10xf32>
  %cols = tensor.collapse_shape %sq [[0], [1, 2], [3]] : tensor<?x3x4x10xf32> into tensor<?x12x10xf32>
  %0 = linalg.contract indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>]
      ins(%w, %cols : tensor<6x12xf32>, tensor<?x12x10xf32>) outs(%y : tensor<?x6x10xf32>) -> tensor<?x6x10xf32>
  %1 = tensor.expand_shape %0 [[0], [1], [2, 3]] output_shape [%n, 6, 2, 5] : tensor<?x6x10xf32> into tensor<?x6x2x5xf32>
  return %1 : tensor<?x6x2x5xf32>
}

// -----

// A producer whose results are also read elsewhere fuses into a consumer
// that reads several of them: one loop yields the producer's results (for
// the return) and the consumer's, and the consumer reads the values computed
// in the same iteration instead of the producer's tensors.
// CHECK-LABEL: func @producer_read_elsewhere
// CHECK: %[[F:.*]]:3 = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32,
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]]
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[Y]]
// CHECK: %[[M:.*]] = arith.mulf %[[S]], %[[D]]
// CHECK: linalg.yield %[[S]], %[[D]], %[[M]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @producer_read_elsewhere(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
    %s = arith.addf %x, %y : f32
    %d = arith.subf %x, %y : f32
    linalg.yield %s, %d : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%0#0, %0#1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %0#0, %0#1, %1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Not when another reader of the producer comes before the consumer (the
// fused loop would not dominate it), nor when the consumer reads a result
// transposed (not the value of the same iteration).
// CHECK-LABEL: func @producer_read_before
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK: linalg.generic
// CHECK-LABEL: func @producer_read_transposed
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @producer_read_before(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %i: index) -> (tensor<4x4xf32>, f32) {
  %e = tensor.empty() : tensor<4x4xf32>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e, %e : tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
    %s = arith.addf %x, %y : f32
    %d = arith.subf %x, %y : f32
    linalg.yield %s, %d : f32, f32
  } -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %x0 = tensor.extract %0#0[%i, %i] : tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%0#0, %0#1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  return %1, %x0 : tensor<4x4xf32>, f32
}
func.func @producer_read_transposed(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e, %e : tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
    %s = arith.addf %x, %y : f32
    %d = arith.subf %x, %y : f32
    linalg.yield %s, %d : f32, f32
  } -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%0#0, %0#1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  return %0#0, %0#1, %1 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
