// RUN: autodist-opt %s -split-input-file --autodist-emit-abi | FileCheck %s

// An entry point without loops (its nests were outlined) only sequences
// calls: it is compiled without optimization (optnone needs noinline).
// CHECK-LABEL: llvm.func @forward(
// CHECK-SAME: no_inline
// CHECK-SAME: optimize_none
module attributes {autodist.manifest = "{\"version\":1}"} {
  llvm.func @forward_loop0(%a: !llvm.ptr) attributes {no_inline} {
    llvm.return
  }
  llvm.func @forward(%a: !llvm.ptr) {
    llvm.call @forward_loop0(%a) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @_mlir_ciface_forward(%a: !llvm.ptr) {
    llvm.call @forward(%a) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

// An entry point that still holds a loop is optimized as usual.
// CHECK-LABEL: llvm.func @forward(
// CHECK-NOT: optimize_none
// CHECK: llvm.br
module attributes {autodist.manifest = "{\"version\":1}"} {
  llvm.func @forward(%a: !llvm.ptr) {
    %n = llvm.load %a : !llvm.ptr -> i64
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    llvm.br ^loop(%c0 : i64)
  ^loop(%i: i64):
    %next = llvm.add %i, %c1 : i64
    %done = llvm.icmp "eq" %next, %n : i64
    llvm.cond_br %done, ^exit, ^loop(%next : i64)
  ^exit:
    llvm.return
  }
  llvm.func @_mlir_ciface_forward(%a: !llvm.ptr) {
    llvm.call @forward(%a) : (!llvm.ptr) -> ()
    llvm.return
  }
}
