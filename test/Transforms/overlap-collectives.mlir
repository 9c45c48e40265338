// RUN: autodist-opt %s -split-input-file --dist-overlap-collectives | FileCheck %s

// An all-reduce with work before the first use of its results is started
// where it stands and waited for right before that use.
// CHECK-LABEL: func @overlap
// CHECK: %[[F:.*]] = dist.all_reduce_start mean %arg0, %arg1 : tensor<4x3xf32>, tensor<f32> -> !dist.future<tensor<4x3xf32>, tensor<f32>>
// CHECK-NEXT: %[[E:.*]] = arith.mulf %arg0, %arg0
// CHECK-NEXT: %[[R:.*]]:2 = dist.wait %[[F]]
// CHECK-NEXT: arith.addf %[[R]]#0, %[[E]]
// CHECK-NEXT: return %{{.*}}, %[[R]]#1
func.func @overlap(%a: tensor<4x3xf32>, %l: tensor<f32>) -> (tensor<4x3xf32>, tensor<f32>) {
  %r:2 = dist.all_reduce mean %a, %l : tensor<4x3xf32>, tensor<f32>
  %e = arith.mulf %a, %a : tensor<4x3xf32>
  %f = arith.addf %r#0, %e : tensor<4x3xf32>
  return %f, %r#1 : tensor<4x3xf32>, tensor<f32>
}

// -----

// Nothing to overlap (only constants and empty tensors before the first
// use, or no use at all): the all-reduces stay blocking.
// CHECK-LABEL: func @adjacent
// CHECK-NOT: dist.all_reduce_start
// CHECK: dist.all_reduce sum
// CHECK-NOT: dist.all_reduce_start
// CHECK: dist.all_reduce sum
// CHECK-NOT: dist.all_reduce_start
// CHECK: return
func.func @adjacent(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = dist.all_reduce sum %a : tensor<5xf32>
  %c = arith.constant dense<1.0> : tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %f = arith.addf %r, %c : tensor<5xf32>
  %u = dist.all_reduce sum %f : tensor<5xf32>
  return %f : tensor<5xf32>
}

// -----

// A use inside a region: the wait goes before the op holding the region.
// CHECK-LABEL: func @nested
// CHECK: %[[F:.*]] = dist.all_reduce_start sum
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[R:.*]] = dist.wait %[[F]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: scf.yield %[[R]]
func.func @nested(%a: tensor<5xf32>, %c: i1) -> tensor<5xf32> {
  %r = dist.all_reduce sum %a : tensor<5xf32>
  %e = arith.addf %a, %a : tensor<5xf32>
  %s = scf.if %c -> tensor<5xf32> {
    scf.yield %r : tensor<5xf32>
  } else {
    scf.yield %e : tensor<5xf32>
  }
  return %s : tensor<5xf32>
}

// -----

// Buckets in program order (dist-split-buckets' reverse order of
// computation): the first hides behind the second's collective, the second
// behind the first's wait and its use; the last has nothing after it.
// CHECK-LABEL: func @buckets
// CHECK: %[[F0:.*]] = dist.all_reduce_start sum %arg0
// CHECK-NEXT: %[[F1:.*]] = dist.all_reduce_start sum %arg1
// CHECK-NEXT: %[[R0:.*]] = dist.wait %[[F0]]
// CHECK-NEXT: %[[U:.*]] = arith.addf %[[R0]], %[[R0]]
// CHECK-NEXT: %[[R1:.*]] = dist.wait %[[F1]]
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[R1]], %[[R1]]
// CHECK-NEXT: %[[R2:.*]] = dist.all_reduce sum %arg2
// CHECK-NEXT: return %[[U]], %[[V]], %[[R2]]
func.func @buckets(%a: tensor<5xf32>, %b: tensor<5xf32>, %c: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %r0 = dist.all_reduce sum %a : tensor<5xf32>
  %r1 = dist.all_reduce sum %b : tensor<5xf32>
  %u = arith.addf %r0, %r0 : tensor<5xf32>
  %v = arith.addf %r1, %r1 : tensor<5xf32>
  %r2 = dist.all_reduce sum %c : tensor<5xf32>
  return %u, %v, %r2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// A compressed bucket stays blocking (its runtime call compresses, reduces
// and decompresses in one), and so do reduce and broadcast.
// CHECK-LABEL: func @blocking_kinds
// CHECK-NOT: dist.all_reduce_start
// CHECK: dist.all_reduce mean %arg0 {compressor = #dist.compressor<fp16>}
// CHECK: dist.reduce
// CHECK: dist.broadcast
// CHECK-NOT: dist.wait
func.func @blocking_kinds(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = dist.all_reduce mean %a {compressor = #dist.compressor<fp16>} : tensor<5xf32>
  %p = dist.reduce mean %a {root = "localhost:CPU:0"} : tensor<5xf32>
  %e = arith.addf %a, %a : tensor<5xf32>
  %q = dist.broadcast %p {root = "localhost:CPU:0"} : tensor<5xf32>
  %s = arith.addf %r, %e : tensor<5xf32>
  %t = arith.addf %s, %q : tensor<5xf32>
  return %t : tensor<5xf32>
}
