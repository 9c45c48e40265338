// RUN: autodist-opt %s --autodist-emit-abi | FileCheck %s

// CHECK-LABEL: llvm.func @_mlir_ciface_forward
// CHECK-NOT: nn.param
// CHECK: llvm.func @autodist_forward(%[[ARGS:.*]]: !llvm.ptr)
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_forward(%[[D0]], %[[D1]])
// CHECK: llvm.mlir.global external constant @autodist_manifest("{\22version\22:1}\00")
module attributes {autodist.manifest = "{\"version\":1}"} {
  llvm.func @_mlir_ciface_forward(%a: !llvm.ptr {nn.param = "w"}, %b: !llvm.ptr) {
    llvm.return
  }
}
