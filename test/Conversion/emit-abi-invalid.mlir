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
