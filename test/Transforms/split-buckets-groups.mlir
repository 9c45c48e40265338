// RUN: autodist-opt %s --dist-split-buckets=bucket-bytes=64 | FileCheck %s

// Buckets keep their kind and group and fill in reverse order of
// computation (%c's value, then %b's); a tensor over the cap gets a bucket
// of its own; a bucket within the cap is left alone.
// CHECK-LABEL: func @groups
// CHECK: %[[A:.*]] = arith.addf %arg0
// CHECK-NEXT: %[[RA:.*]] = dist.all_reduce sum %[[A]] {group = 3 : i64} : tensor<32xf32>
// CHECK-NEXT: %[[B:.*]] = arith.addf %arg1
// CHECK-NEXT: %[[C:.*]] = arith.addf %arg2
// CHECK-NEXT: %[[RCB:.*]]:2 = dist.all_reduce sum %[[C]], %[[B]] {group = 3 : i64} : tensor<2xf32>, tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = arith.addf %arg2
// CHECK-NEXT: %[[RD:.*]] = dist.all_reduce mean %[[D]] : tensor<2xf32>
// CHECK-NEXT: return %[[RCB]]#0, %[[RA]], %[[RCB]]#1, %[[RD]]
func.func @groups(%a: tensor<32xf32>, %b: tensor<4xf32>, %c: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<32xf32>, tensor<4xf32>, tensor<2xf32>) {
  %0 = arith.addf %a, %a : tensor<32xf32>
  %1 = arith.addf %b, %b : tensor<4xf32>
  %2 = arith.addf %c, %c : tensor<2xf32>
  %r:3 = dist.all_reduce sum %2, %0, %1 {group = 3 : i64} : tensor<2xf32>, tensor<32xf32>, tensor<4xf32>
  %3 = arith.addf %c, %c : tensor<2xf32>
  %s = dist.all_reduce mean %3 : tensor<2xf32>
  return %r#0, %r#1, %r#2, %s : tensor<2xf32>, tensor<32xf32>, tensor<4xf32>, tensor<2xf32>
}
