// bf16 casts become integer arithmetic (no __truncsfbf2 call); f32 ops the
// full arith-expand would rewrite (maximumf) are left alone.
// RUN: autodist-opt %s -split-input-file --autodist-expand-bf16-casts | FileCheck %s

// CHECK-LABEL: func @casts
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
func.func @casts(%x: f32, %y: bf16) -> (bf16, f32, f32) {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.extf %y : bf16 to f32
  %2 = arith.maximumf %x, %1 : f32
  return %0, %1, %2 : bf16, f32, f32
}
