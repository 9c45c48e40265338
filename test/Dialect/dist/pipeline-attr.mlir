// RUN: autodist-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The optional fields print only when they differ from their defaults
// (auto_stale = false, warmup = 0, estimator = local, dc = dc), and any of
// them may be left out.
// CHECK-LABEL: module attributes
// CHECK-SAME: dist.a = #dist.pipeline<depth = 1, stale = [], compensation = weight_prediction, auto_stale = true, warmup = 5, estimator = prev_sync, lambda = 0.000000e+00 : f64>
// CHECK-SAME: dist.b = #dist.pipeline<depth = 1, stale = ["w"], compensation = delay_compensation, dc = dc_adaptive, lambda = 3.000000e-01 : f64>
// CHECK-SAME: dist.c = #dist.pipeline<depth = 1, stale = ["w"], compensation = none, lambda = 0.000000e+00 : f64>
// CHECK-SAME: dist.d = #dist.pipeline<depth = 1, stale = ["w"], compensation = weight_prediction, warmup = 2, lambda = 0.000000e+00 : f64>
module attributes {
    dist.a = #dist.pipeline<depth = 1, stale = [], compensation = weight_prediction, auto_stale = true, warmup = 5, estimator = prev_sync, lambda = 0.0 : f64>,
    dist.b = #dist.pipeline<depth = 1, stale = ["w"], compensation = delay_compensation, dc = dc_adaptive, lambda = 0.3 : f64>,
    dist.c = #dist.pipeline<depth = 1, stale = ["w"], compensation = none, warmup = 0, lambda = 0.0 : f64>,
    dist.d = #dist.pipeline<depth = 1, stale = ["w"], compensation = weight_prediction, warmup = 2, estimator = local, lambda = 0.0 : f64>} {
}

// -----

// expected-error@+1 {{weight prediction needs at least one synchronous warm-up step (warmup >= 1)}}
module attributes {dist.x = #dist.pipeline<depth = 1, stale = ["w"], compensation = weight_prediction, lambda = 0.0 : f64>} {
}

// -----

// expected-error@+1 {{pipeline with auto_stale chooses the stale variables itself; 'stale' must be empty}}
module attributes {dist.x = #dist.pipeline<depth = 1, stale = ["w"], compensation = none, auto_stale = true, lambda = 0.0 : f64>} {
}

// -----

// expected-error@+1 {{pipeline field 'warmup' must be >= 0, got -2}}
module attributes {dist.x = #dist.pipeline<depth = 1, stale = ["w"], compensation = none, warmup = -2, lambda = 0.0 : f64>} {
}
