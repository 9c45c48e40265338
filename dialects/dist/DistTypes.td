//===- DistTypes.td - dist dialect types -------------------*- tablegen -*-===//
//
// Values of communication in flight: what an asynchronous collective returns
// and `dist.wait` completes.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_DIST_TYPES
#define AUTODIST_DIST_TYPES

include "dist/DistDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Dist_FutureType : TypeDef<Dist_Dialect, "Future"> {
  let mnemonic = "future";
  let summary = "The tensors of a collective in flight";
  let description = [{
    The result of an asynchronous collective (`dist.all_reduce_start`): the
    communication has started and its tensors, of the types the future names
    in order, are not yet available. `dist.wait` completes it and returns
    them. Between the start and the wait the computation that does not need
    them runs while the collective progresses; the operands' storage belongs
    to the collective until the wait.

    ```mlir
    !dist.future<tensor<32x64xf32>, tensor<32xf32>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::Type">:$valueTypes);
  let assemblyFormat = "`<` $valueTypes `>`";
  let genVerifyDecl = 1;
}

#endif // AUTODIST_DIST_TYPES
