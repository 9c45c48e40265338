// RUN: autodist-opt %s -split-input-file -verify-diagnostics --autodist-emit-abi

// expected-error@+1 {{no autodist.manifest (run autodist-export-manifest before lowering)}}
module {
}

// -----

module attributes {autodist.manifest = "{}"} {
  // expected-error@+1 {{entry point argument of type 'i32' is not a memref descriptor pointer}}
  llvm.func @_mlir_ciface_forward(%a: i32) {
    llvm.return
  }
}

// -----

module attributes {autodist.manifest = "{}"} {
  // expected-error@+1 {{entry point still returns values (results must be out-params: buffer-results-to-out-params)}}
  llvm.func @forward(%a: !llvm.ptr) -> i32 {
    %0 = llvm.mlir.constant(0 : i32) : i32
    llvm.return %0 : i32
  }
  llvm.func @_mlir_ciface_forward(%a: !llvm.ptr) {
    llvm.return
  }
}
