// RUN: autodist-opt %s -split-input-file --autodist-parallel-dims-outer | FileCheck %s

// A bias gradient as bufferization leaves it: the batch dim, reduced, comes
// first. Generalized and interchanged, the features are the outer (parallel)
// loop and the batch the inner reduction.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @bias_grad
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : memref<?x10xf32>) outs(%{{.*}} : memref<10xf32>)
// CHECK: arith.addf
func.func @bias_grad(%g: memref<?x10xf32>, %db: memref<10xf32>) {
  linalg.reduce ins(%g : memref<?x10xf32>) outs(%db : memref<10xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// A generic that reads the loop index: the interchange renumbers it.
// CHECK-LABEL: func.func @column_index
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[OLD0:.*]] = affine.apply #{{.*}}(%{{.*}}, %[[I]])
// CHECK: arith.index_cast %[[OLD0]]
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @column_index(%a: memref<4x8xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [#rows, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %p = arith.mulf %in, %f : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Parallel dims already first (an elementwise op, a row reduction): left as
// they are.
// CHECK-LABEL: func.func @already_outer
// CHECK: linalg.reduce
// CHECK-SAME: dimensions = [1]
func.func @already_outer(%g: memref<?x10xf32>, %rows: memref<?xf32>) {
  linalg.reduce ins(%g : memref<?x10xf32>) outs(%rows : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}
