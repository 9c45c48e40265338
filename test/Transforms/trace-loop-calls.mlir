// RUN: autodist-opt %s -split-input-file -verify-diagnostics --autodist-trace-loop-calls | FileCheck %s

// Each call of an outlined nest is bracketed by the hooks; its id indexes
// the names table, one name per distinct location: the ONNX node names in
// it (joined when a fused nest computes several), "compute" without one.
// CHECK-LABEL: func.func @train_step
// CHECK:      %[[ID0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @autodist_rt_trace_op_begin(%[[ID0]]) : (i32) -> ()
// CHECK-NEXT: call @train_step_loop0(%{{.*}})
// CHECK-NEXT: call @autodist_rt_trace_op_end() : () -> ()
// CHECK:      %[[ID1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @autodist_rt_trace_op_begin(%[[ID1]])
// CHECK-NEXT: call @train_step_loop0(%{{.*}})
// CHECK:      %[[ID0B:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @autodist_rt_trace_op_begin(%[[ID0B]])
// CHECK:      %[[ID2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @autodist_rt_trace_op_begin(%[[ID2]])
// CHECK-NEXT: call @train_step_loop1(
// The runtime's own calls are not bracketed.
// CHECK-NEXT: call @autodist_rt_trace_op_end
// CHECK-NEXT: call @runtime_sgemm(
// CHECK-NEXT: return
// CHECK: func.func private @autodist_rt_trace_op_begin(i32)
// CHECK: func.func private @autodist_rt_trace_op_end()
// "relu\0grad relu, add\0compute\0\0"
// CHECK: memref.global "public" constant @autodist_trace_op_names : memref<29xi8> = dense<[114, 101, 108, 117, 0, 103, 114, 97, 100, 32, 114, 101, 108, 117, 44, 32, 97, 100, 100, 0, 99, 111, 109, 112, 117, 116, 101, 0, 0]>
func.func private @train_step_loop0(%a: memref<4xf32>) attributes {autodist.outlined} {
  return
}
func.func private @train_step_loop1(%a: memref<4xf32>) attributes {autodist.outlined} {
  return
}
func.func private @runtime_sgemm(%a: memref<4xf32>)
func.func @train_step(%a: memref<4xf32>) {
  func.call @train_step_loop0(%a) : (memref<4xf32>) -> () loc("relu")
  func.call @train_step_loop0(%a) : (memref<4xf32>) -> () loc(fused["grad relu", "add"])
  func.call @train_step_loop0(%a) : (memref<4xf32>) -> () loc("relu")
  func.call @train_step_loop1(%a) : (memref<4xf32>) -> ()
  func.call @runtime_sgemm(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// Without outlined nests nothing changes.
// CHECK-LABEL: func.func @no_loops
// CHECK-NOT: autodist_rt_trace
func.func @no_loops() {
  return
}

// -----

module {
  // expected-error @below {{autodist-trace-loop-calls: the symbol 'autodist_trace_op_names' is reserved for the trace names}}
  memref.global constant @autodist_trace_op_names : memref<1xi8> = dense<0>
  func.func private @f_loop0() attributes {autodist.outlined} {
    return
  }
  func.func @f() {
    func.call @f_loop0() : () -> ()
    return
  }
}
