// RUN: autodist-opt %s --autodist-untie-empty-tensors | FileCheck %s

// Each destination gets a tensor.empty of its own, right before its user,
// dynamic sizes included.
// CHECK-LABEL: func.func @two_fills(
// CHECK: %[[E0:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[E0]] : tensor<?xf32>)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[E1]] : tensor<?xf32>)
func.func @two_fills(%n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.fill ins(%c0 : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %b = linalg.fill ins(%c1 : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}
