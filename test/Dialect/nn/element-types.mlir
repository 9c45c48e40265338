// nn's arithmetic, comparisons, casts and shape ops take float64, float16,
// bfloat16, int16 and int8 tensors, each computed in its own type; the
// float-only ops (activations, contractions) still take f32 alone.
// RUN: autodist-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @float_types
// CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<?x4xf64>, tensor<4xf64>) -> tensor<?x4xf64>
// CHECK: nn.max %{{.*}}, %{{.*}} : (tensor<?x4xf16>, tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK: nn.mod %{{.*}}, %{{.*}} {fmod = true} : (tensor<?x4xbf16>, tensor<?x4xbf16>) -> tensor<?x4xbf16>
// CHECK: nn.cast %{{.*}} {to = f16} : (tensor<?x4xf64>) -> tensor<?x4xf16>
// CHECK: nn.cast %{{.*}} {to = bf16} : (tensor<?x4xf16>) -> tensor<?x4xbf16>
func.func @float_types(%a: tensor<?x4xf64>, %b: tensor<4xf64>, %h: tensor<?x4xf16>, %g: tensor<?x4xbf16>) -> (tensor<?x4xf64>, tensor<?x4xf16>, tensor<?x4xbf16>, tensor<?x4xbf16>) {
  %0 = nn.add %a, %b : (tensor<?x4xf64>, tensor<4xf64>) -> tensor<?x4xf64>
  %1 = nn.max %h, %h : (tensor<?x4xf16>, tensor<?x4xf16>) -> tensor<?x4xf16>
  %2 = nn.mod %g, %g {fmod = true} : (tensor<?x4xbf16>, tensor<?x4xbf16>) -> tensor<?x4xbf16>
  %3 = nn.cast %0 {to = f16} : (tensor<?x4xf64>) -> tensor<?x4xf16>
  %4 = nn.cast %3 {to = bf16} : (tensor<?x4xf16>) -> tensor<?x4xbf16>
  return %0, %1, %2, %4 : tensor<?x4xf64>, tensor<?x4xf16>, tensor<?x4xbf16>, tensor<?x4xbf16>
}

// -----

// CHECK-LABEL: func @narrow_ints
// CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
// CHECK: nn.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi1>
// CHECK: nn.pow %{{.*}}, %{{.*}} : (tensor<3xi16>, tensor<3xf64>) -> tensor<3xi16>
func.func @narrow_ints(%a: tensor<3xi8>, %s: tensor<3xi16>, %e: tensor<3xf64>) -> (tensor<3xi8>, tensor<3xi1>, tensor<3xi16>) {
  %0 = nn.div %a, %a : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %1 = nn.compare %s, %s {predicate = "lt"} : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi1>
  %2 = nn.pow %s, %e : (tensor<3xi16>, tensor<3xf64>) -> tensor<3xi16>
  return %0, %1, %2 : tensor<3xi8>, tensor<3xi1>, tensor<3xi16>
}

// -----

func.func @relu_f64(%a: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error@+1 {{'nn.relu' op operand #0 must be ranked tensor of 32-bit float values}}
  %0 = nn.relu %a : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

func.func @pow_f16_exponent_of_int(%s: tensor<3xi16>, %e: tensor<3xf16>) -> tensor<3xi16> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{nn.pow exponent of type 'f16' for a base of type 'i16' (the base's type, or f32 or f64 for an integer base)}}
  %0 = nn.pow %s, %e : (tensor<3xi16>, tensor<3xf16>) -> tensor<3xi16>
  return %0 : tensor<3xi16>
}

// -----

func.func @mixed_float_types(%a: tensor<3xf64>, %b: tensor<3xf32>) -> tensor<3xf64> {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{different element types}}
  %0 = nn.add %a, %b : (tensor<3xf64>, tensor<3xf32>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func @unsigned
// CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
// CHECK: nn.cast %{{.*}} {to = ui8} : (tensor<3xui32>) -> tensor<3xui8>
func.func @unsigned(%a: tensor<3xui32>) -> tensor<3xui8> {
  %0 = nn.div %a, %a : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %1 = nn.cast %0 {to = ui8} : (tensor<3xui32>) -> tensor<3xui8>
  return %1 : tensor<3xui8>
}
