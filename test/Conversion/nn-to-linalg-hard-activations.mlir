// Clip, HardSigmoid, HardSwish and their gradients: arith bodies in
// linalg.generic.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// Both bounds: max then min (NaN propagates through both).
// CHECK-LABEL: func @clip
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT: linalg.yield %[[B]] : f32
// An absent (infinite) bound costs nothing.
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[HI2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[C:.*]] = arith.minimumf %[[X2]], %[[HI2]] : f32
// CHECK-NEXT: linalg.yield %[[C]] : f32
func.func @clip(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = nn.clip %0 {max = 1.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @hard_sigmoid_swish
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[A:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[A]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[M]], %[[B]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[U:.*]] = arith.minimumf %[[T]], %[[ONE]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[Y:.*]] = arith.maximumf %[[U]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// HardSwish: x * hard_sigmoid(x) with alpha = 1/6 (multiplied), beta = 0.5.
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-NEXT: %[[SM:.*]] = arith.mulf %[[S]], %[[SIXTH]] : f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[ST:.*]] = arith.addf %[[SM]], %[[HALF]] : f32
// CHECK: %[[SU:.*]] = arith.minimumf %[[ST]]
// CHECK: %[[SH:.*]] = arith.maximumf %[[SU]]
// CHECK-NEXT: %[[SY:.*]] = arith.mulf %[[S]], %[[SH]] : f32
// CHECK-NEXT: linalg.yield %[[SY]] : f32
func.func @hard_sigmoid_swish(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.hard_sigmoid %x {alpha = 0.25 : f32, beta = -1.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = nn.hard_swish %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// Clip's gradient: g where min < x < max; unordered compares (a NaN x
// passes g, as PyTorch's hardtanh_backward).
// CHECK-LABEL: func @clip_grad
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[G:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[C1:.*]] = arith.cmpf ugt, %[[X]], %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[C2:.*]] = arith.cmpf ult, %[[X]], %[[HI]] : f32
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[C1]], %[[C2]] : i1
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[IN]], %[[G]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @clip_grad(%g: tensor<?x4xf32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.clip_grad %g, %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// HardSigmoid's gradient tests the same alpha * x + beta as the forward:
// alpha * g where 0 < t < 1, else 0.
// CHECK-LABEL: func @hard_sigmoid_grad
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[G:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[A:.*]] = arith.constant 0.166666672 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[A]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[M]], %[[B]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[C1:.*]] = arith.cmpf ogt, %[[T]], %[[ZERO]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[C2:.*]] = arith.cmpf olt, %[[T]], %[[ONE]] : f32
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[C1]], %[[C2]] : i1
// CHECK-NEXT: %[[A2:.*]] = arith.constant 0.166666672 : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[G]], %[[A2]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[IN]], %[[S]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @hard_sigmoid_grad(%g: tensor<?x4xf32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.hard_sigmoid_grad %g, %x {alpha = 0.166666672 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// HardSwish's gradient, PyTorch's hardswish_backward:
// x < -3 ? 0 : x <= 3 ? g * (x / 3 + 0.5) : g.
// CHECK-LABEL: func @hard_swish_grad
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[G:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[X]], %[[THREE]] : f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[SL:.*]] = arith.addf %[[D]], %[[HALF]] : f32
// CHECK-NEXT: %[[RAMP:.*]] = arith.mulf %[[G]], %[[SL]] : f32
// CHECK-NEXT: %[[P3:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[LE:.*]] = arith.cmpf ole, %[[X]], %[[P3]] : f32
// CHECK-NEXT: %[[MID:.*]] = arith.select %[[LE]], %[[RAMP]], %[[G]] : f32
// CHECK-NEXT: %[[M3:.*]] = arith.constant -3.000000e+00 : f32
// CHECK-NEXT: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[M3]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[LT]], %[[Z]], %[[MID]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @hard_swish_grad(%g: tensor<?x4xf32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.hard_swish_grad %g, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
