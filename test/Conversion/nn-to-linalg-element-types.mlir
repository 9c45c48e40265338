// Each element type lowers to arith in that type: float64 and float16
// arithmetic stay in their width; casts between floats are one extf or
// truncf (f16 <-> bf16 and f64 -> bf16 through f32); float to bool compares
// with a zero of the source type.
// RUN: autodist-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s

// CHECK-LABEL: func @arith_own_type
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK: arith.remsi %{{.*}}, %{{.*}} : i8
func.func @arith_own_type(%a: tensor<4xf64>, %h: tensor<4xf16>, %i: tensor<4xi8>) -> (tensor<4xf64>, tensor<4xf16>, tensor<4xi8>) {
  %0 = nn.div %a, %a : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = nn.max %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %2 = nn.mod %i, %i {fmod = true} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf16>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func @float_casts
// CHECK: arith.truncf %{{.*}} : f64 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: arith.cmpf une, %{{.*}}, %[[Z]] : f64
func.func @float_casts(%a: tensor<4xf64>) -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xi1>) {
  %0 = nn.cast %a {to = f16} : (tensor<4xf64>) -> tensor<4xf16>
  %1 = nn.cast %0 {to = bf16} : (tensor<4xf16>) -> tensor<4xbf16>
  %2 = nn.cast %a {to = bf16} : (tensor<4xf64>) -> tensor<4xbf16>
  %3 = nn.cast %a {to = i1} : (tensor<4xf64>) -> tensor<4xi1>
  return %1, %2, %3 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xi1>
}

// -----

// A k computed at run time is read once and compared with j - i.
// CHECK-LABEL: func @trilu_runtime_k
// CHECK: %[[K:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: linalg.generic
// CHECK: %[[D:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi sge, %[[D]], %[[KI]] : index
func.func @trilu_runtime_k(%x: tensor<4x5xi64>, %k: tensor<i64>) -> tensor<4x5xi64> {
  %0 = nn.trilu %x, %k {upper = true} : (tensor<4x5xi64>, tensor<i64>) -> tensor<4x5xi64>
  return %0 : tensor<4x5xi64>
}

// -----

// Unsigned tensors become signless (the function's type too); the ops whose
// semantics differ choose the unsigned arith op (a zero divisor gives 0).
// CHECK-LABEL: func @unsigned_ops
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi16>, tensor<4xi8>)
// CHECK: arith.cmpi eq
// CHECK: arith.divui %{{.*}}, %{{.*}} : i8
// CHECK: arith.remui %{{.*}}, %{{.*}} : i8
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK-NOT: nn.unsigned
// CHECK-NOT: ui8
func.func @unsigned_ops(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi16>, tensor<4xui8>) {
  %0 = nn.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = nn.mod %a, %b {fmod = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = nn.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %3 = nn.compare %a, %b {predicate = "lt"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %4 = nn.cast %a {to = f32} : (tensor<4xui8>) -> tensor<4xf32>
  %5 = nn.cast %a {to = i16} : (tensor<4xui8>) -> tensor<4xi16>
  %6 = nn.cast %4 {to = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi16>, tensor<4xui8>
}
