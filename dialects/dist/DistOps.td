//===- DistOps.td - dist dialect ops -----------------------*- tablegen -*-===//

#ifndef AUTODIST_DIST_OPS
#define AUTODIST_DIST_OPS

include "dist/DistDialect.td"
include "dist/DistAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

def Dist_AllReduceOp : Dist_Op<"all_reduce", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "All-reduce a bucket of tensors over all ranks";
  let description = [{
    Combines each operand over all ranks with `kind` (`sum` or `mean`) and
    returns the combined tensors, in operand order. All operands form one
    bucket: they travel together in a single collective. Every rank must
    execute the same all-reduces in the same order (SPMD).

    ```mlir
    %g:2 = dist.all_reduce mean %gw, %gb {group = 0 : i64}
        : tensor<32x64xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Variadic<RankedTensorOf<[F32]>>:$inputs,
                   Dist_ReductionKind:$kind,
                   DefaultValuedAttr<I64Attr, "0">:$group);
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$results);
  let assemblyFormat = "$kind $inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

#endif // AUTODIST_DIST_OPS
