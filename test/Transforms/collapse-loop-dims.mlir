// RUN: autodist-opt %s -split-input-file --autodist-collapse-loop-dims | FileCheck %s

// An elementwise op over identity layouts: all four loop dims are one.
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.*]]: memref<?x8x3x3xf32>, %[[B:.*]]: memref<?x8x3x3xf32>)
// CHECK: %[[A1:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1, 2, 3]] : memref<?x8x3x3xf32> into memref<?xf32>
// CHECK: %[[B1:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1, 2, 3]] : memref<?x8x3x3xf32> into memref<?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[A1]] : memref<?xf32>) outs(%[[B1]] : memref<?xf32>)
// CHECK: arith.addf
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @elementwise(%a: memref<?x8x3x3xf32>, %b: memref<?x8x3x3xf32>) {
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<?x8x3x3xf32>) outs(%b : memref<?x8x3x3xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %x : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A transpose of the two outer dims with a per-channel operand: only the
// spatial dims, contiguous and in order everywhere, merge.
// CHECK-DAG: #[[SW:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @swap_outer
// CHECK: %[[A1:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<8x?x3x3xf32> into memref<8x?x9xf32>
// CHECK: %[[B1:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<?x8x3x3xf32> into memref<?x8x9xf32>
// CHECK: linalg.generic {indexing_maps = [#[[SW]], #[[CH]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A1]], %{{.*}} : memref<8x?x9xf32>, memref<8xf32>) outs(%[[B1]] : memref<?x8x9xf32>)
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sw = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @swap_outer(%a: memref<8x?x3x3xf32>, %bias: memref<8xf32>, %b: memref<?x8x3x3xf32>) {
  linalg.generic {indexing_maps = [#sw, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %bias : memref<8x?x3x3xf32>, memref<8xf32>) outs(%b : memref<?x8x3x3xf32>) {
  ^bb0(%x: f32, %c: f32, %y: f32):
    %0 = arith.addf %x, %c : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A per-channel sum: the channel loop (parallel) stays apart from the
// reduced batch, and the reduced spatial dims merge with each other.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @channel_sum
// CHECK: %[[X1:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<?x4x5x5xf32> into memref<?x4x25xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X1]] : memref<?x4x25xf32>)
#in = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0)>
func.func @channel_sum(%x: memref<?x4x5x5xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "reduction", "reduction"]} ins(%x : memref<?x4x5x5xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.addf %v, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A strided view merges only the dims its layout keeps contiguous (the
// inner dim has stride 2); no copy is introduced.
// CHECK-LABEL: func.func @strided_view
// CHECK: %[[A1:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<?x8x4x4xf32, strided<[128, 16, 4, 2]>> into memref<?x4xf32, strided<[4, 2]>>
// CHECK: linalg.copy ins(%[[A1]] : memref<?x4xf32, strided<[4, 2]>>) outs(%{{.*}} : memref<?x4xf32>)
// CHECK-NOT: memref.copy
func.func @strided_view(%a: memref<?x8x4x4xf32, strided<[128, 16, 4, 2]>>, %b: memref<?x8x4x4xf32>) {
  linalg.copy ins(%a : memref<?x8x4x4xf32, strided<[128, 16, 4, 2]>>) outs(%b : memref<?x8x4x4xf32>)
  return
}

// -----

// A fill is one loop over the whole buffer.
// CHECK-LABEL: func.func @fill
// CHECK: %[[B1:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<64x3x7x7xf32> into memref<9408xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[B1]] : memref<9408xf32>)
func.func @fill(%b: memref<64x3x7x7xf32>) {
  %c = arith.constant 0.0 : f32
  linalg.fill ins(%c : f32) outs(%b : memref<64x3x7x7xf32>)
  return
}

// -----

// Left alone: a window read (not a projected permutation, as im2col) and an
// op whose operands read the dims in different orders everywhere.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: memref.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
#win = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @untouched(%x: memref<2x3x9xf32>, %c: memref<2x3x4x2xf32>, %a: memref<4x5xf32>, %b: memref<5x4xf32>) {
  linalg.generic {indexing_maps = [#win, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x3x9xf32>) outs(%c : memref<2x3x4x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x5xf32>) outs(%b : memref<5x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}
