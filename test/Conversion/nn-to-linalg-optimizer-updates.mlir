// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg --autodist-fuse-elementwise | FileCheck %s --check-prefix=FUSED

// An optimizer update is one loop over the parameter: every input read
// once, every result (parameter and state) written in the same loop.
// CHECK-LABEL: func @adam
// CHECK: %[[R:.*]]:3 = linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
// CHECK: math.sqrt
// CHECK: linalg.yield %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @adam(%p: tensor<10xf32>, %g: tensor<10xf32>, %m: tensor<10xf32>, %v: tensor<10xf32>,
                %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) {
  %0:3 = nn.adam_update %p, %g, %m, %v, %lr, %t
      : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>)
      -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
  return %0#0, %0#1, %0#2 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
}

// -----

// With a hold condition, each result is its input where the condition is
// true, in the same loop (the condition is read as a broadcast scalar).
// CHECK-LABEL: func @adam_hold
// CHECK: %[[R:.*]]:3 = linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3, %arg6 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<i1>)
// CHECK: ^bb0(%[[P:.*]]: f32, %{{.*}}: f32, %[[M:.*]]: f32, %[[V:.*]]: f32, %[[H:.*]]: i1,
// CHECK-DAG: %[[NP:.*]] = arith.select %[[H]], %[[P]], %{{.*}} : f32
// CHECK-DAG: %[[NM:.*]] = arith.select %[[H]], %[[M]], %{{.*}} : f32
// CHECK-DAG: %[[NV:.*]] = arith.select %[[H]], %[[V]], %{{.*}} : f32
// CHECK: linalg.yield %[[NP]], %[[NM]], %[[NV]] : f32, f32, f32
// CHECK-NOT: linalg.generic
func.func @adam_hold(%p: tensor<10xf32>, %g: tensor<10xf32>, %m: tensor<10xf32>, %v: tensor<10xf32>,
                     %lr: tensor<f32>, %t: tensor<f32>, %hold: tensor<i1>)
    -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) {
  %0:3 = nn.adam_update %p, %g, %m, %v, %lr, %t, %hold
      : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>, tensor<i1>)
      -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
  return %0#0, %0#1, %0#2 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
}

// -----

// CHECK-LABEL: func @momentum_hold
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3, %arg4 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<i1>)
// CHECK: ^bb0(%[[P:.*]]: f32, %{{.*}}: f32, %[[VEL:.*]]: f32, %{{.*}}: f32, %[[H:.*]]: i1,
// CHECK-DAG: %[[NP:.*]] = arith.select %[[H]], %[[P]], %{{.*}} : f32
// CHECK-DAG: %[[NV:.*]] = arith.select %[[H]], %[[VEL]], %{{.*}} : f32
// CHECK: linalg.yield %[[NP]], %[[NV]] : f32, f32
// CHECK-NOT: linalg.generic
func.func @momentum_hold(%p: tensor<4x3xf32>, %g: tensor<4x3xf32>, %vel: tensor<4x3xf32>,
                         %lr: tensor<f32>, %hold: tensor<i1>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0:2 = nn.momentum_update %p, %g, %vel, %lr, %hold {nesterov = true}
      : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<i1>)
      -> (tensor<4x3xf32>, tensor<4x3xf32>)
  return %0#0, %0#1 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func @sgd_hold
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3 : tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<i1>)
// CHECK: ^bb0(%[[P:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %[[H:.*]]: i1,
// CHECK: %[[NEW:.*]] = arith.subf %[[P]]
// CHECK: %[[NP:.*]] = arith.select %[[H]], %[[P]], %[[NEW]] : f32
// CHECK: linalg.yield %[[NP]] : f32
func.func @sgd_hold(%p: tensor<10xf32>, %g: tensor<10xf32>, %lr: tensor<f32>, %hold: tensor<i1>) -> tensor<10xf32> {
  %0 = nn.sgd_update %p, %g, %lr, %hold : (tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<i1>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// Weight prediction reads only the new parameter of an update: the loop
// then writes neither new moment (autodist-fuse-elementwise drops the
// results nobody reads).
// FUSED-LABEL: func @adam_param_only
// FUSED: %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<10xf32>)
// FUSED: linalg.yield %{{.*}} : f32
// FUSED: return %[[R]] : tensor<10xf32>
func.func @adam_param_only(%p: tensor<10xf32>, %g: tensor<10xf32>, %m: tensor<10xf32>, %v: tensor<10xf32>,
                           %lr: tensor<f32>, %t: tensor<f32>) -> tensor<10xf32> {
  %0:3 = nn.adam_update %p, %g, %m, %v, %lr, %t
      : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>)
      -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
  return %0#0 : tensor<10xf32>
}

// -----

// Weight prediction's update of the next step reads this step's new
// parameter and moments (dist-staleness-pipeline): both updates share one
// loop, which writes the new parameter, moments and predicted weights, and
// reads each input once.
// FUSED-LABEL: func @adam_then_predict
// FUSED: %[[R:.*]]:4 = linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3, %arg6 : {{.*}}) outs(
// FUSED-NOT: linalg.generic
// FUSED: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3
func.func @adam_then_predict(%p: tensor<10xf32>, %g: tensor<10xf32>, %m: tensor<10xf32>, %v: tensor<10xf32>,
                             %lr: tensor<f32>, %t: tensor<f32>, %local: tensor<10xf32>, %next_lr: tensor<f32>,
                             %next_t: tensor<f32>)
    -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) {
  %0:3 = nn.adam_update %p, %g, %m, %v, %lr, %t
      : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>)
      -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
  %1:3 = nn.adam_update %0#0, %local, %0#1, %0#2, %next_lr, %next_t
      : (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>)
      -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
  return %0#0, %0#1, %0#2, %1#0 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
}
