// Round trip of Clip, HardSigmoid, HardSwish and their gradient ops (parse,
// print, reparse): default attributes (infinite bounds, alpha 0.2, beta
// 0.5) are elided, others printed.
// RUN: autodist-opt %s -split-input-file | autodist-opt | FileCheck %s

// CHECK-LABEL: func @forward
func.func @forward(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: nn.clip %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %0 = nn.clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.clip %{{.*}} {min = -1.000000e+00 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = nn.clip %0 {min = -1.0 : f32, max = 0x7F800000 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.clip %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = nn.clip %1 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // A degenerate range is allowed (min = max).
  // CHECK: nn.clip %{{.*}} {max = 2.000000e+00 : f32, min = 2.000000e+00 : f32}
  %3 = nn.clip %2 {min = 2.0 : f32, max = 2.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_sigmoid %{{.*}} {alpha = 0.166666672 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = nn.hard_sigmoid %3 {alpha = 0.166666672 : f32, beta = 0.5 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_sigmoid %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %5 = nn.hard_sigmoid %4 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_sigmoid %{{.*}} {alpha = -5.000000e-01 : f32, beta = 2.500000e-01 : f32}
  %6 = nn.hard_sigmoid %5 {alpha = -0.5 : f32, beta = 0.25 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_swish %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %7 = nn.hard_swish %6 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %7 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @grads
func.func @grads(%g: tensor<?x4xf32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: nn.clip_grad %{{.*}}, %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %0 = nn.clip_grad %g, %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.clip_grad %{{.*}}, %{{.*}} {max = 1.000000e+00 : f32} :
  %1 = nn.clip_grad %0, %x {max = 1.0 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_sigmoid_grad %{{.*}}, %{{.*}} {alpha = 0.166666672 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = nn.hard_sigmoid_grad %1, %x {alpha = 0.166666672 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_sigmoid_grad %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = nn.hard_sigmoid_grad %2, %x {alpha = 0.2 : f32, beta = 0.5 : f32} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: nn.hard_swish_grad %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = nn.hard_swish_grad %3, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %4 : tensor<?x4xf32>
}
