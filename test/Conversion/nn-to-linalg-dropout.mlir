// Dropout's training form on linalg: the key is hashed from seed, rank,
// step and stream outside the loop; each element hashes key + (index + 1)
// * golden with its row-major index (dynamic sizes read from the input)
// and is kept iff the top 24 bits reach round(ratio * 2^24).
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @dropout_mask
// CHECK: %[[STEP:.*]] = tensor.extract %arg3[] : tensor<f32>
// CHECK: arith.fptosi %[[STEP]] : f32 to i64
// CHECK: tensor.extract %arg1[] : tensor<i64>
// CHECK: tensor.extract %arg2[] : tensor<i64>
// CHECK: arith.constant 3 : i64
// CHECK: tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4xi1>)
// CHECK: linalg.index 0 : index
// CHECK: linalg.index 1 : index
// CHECK: arith.constant 40 : i64
// CHECK: arith.constant -7046029254386353131 : i64
// CHECK: %[[T:.*]] = arith.constant 5033165 : i64
// CHECK: arith.cmpi uge, %{{.*}}, %[[T]] : i64
func.func @dropout_mask(%x: tensor<?x4xf32>, %seed: tensor<i64>, %rank: tensor<i64>, %step: tensor<f32>) -> tensor<?x4xi1> {
  %m = nn.dropout_mask %x, %seed, %rank, %step {ratio = 0.3 : f32, stream = 3 : i64}
      : (tensor<?x4xf32>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<?x4xi1>
  return %m : tensor<?x4xi1>
}

// -----

// CHECK-LABEL: func @masked_scale
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: i1, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: arith.select %[[M]], %[[S]], %{{.*}} : f32
func.func @masked_scale(%x: tensor<?x4xf32>, %m: tensor<?x4xi1>) -> tensor<?x4xf32> {
  %y = nn.masked_scale %x, %m {scale = 2.0 : f32} : (tensor<?x4xf32>, tensor<?x4xi1>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
