//===- DistInterfaces.td - dist attribute interfaces -------*- tablegen -*-===//

#ifndef AUTODIST_DIST_INTERFACES
#define AUTODIST_DIST_INTERFACES

include "mlir/IR/OpBase.td"

def Dist_SynchronizerAttrInterface
    : AttrInterface<"SynchronizerAttrInterface"> {
  let cppNamespace = "::autodist::dist";
  let description = [{
    A parameter's synchronizer (`#dist.ps`, `#dist.allreduce`, and later
    kinds): what the strategy verifier, `--explain`, the strategy file, the
    manifest and dist-synchronize ask of any synchronizer, answered by the
    attribute, so that they need no chain of casts over the kinds.
  }];
  let methods = [
    InterfaceMethod<
      "The key of this synchronizer in AutoDist's strategy JSON "
      "(`PSSynchronizer`, `AllReduceSynchronizer`).",
      "::llvm::StringRef", "getStrategyFileKey">,
    InterfaceMethod<
      "The `sync` column of --explain (e.g. `ps proxy`, `allreduce auto "
      "fp16`).",
      "std::string", "getExplainLabel">,
    InterfaceMethod<
      "The device of the server that holds the value and applies the "
      "update, for synchronizers with one (empty while it is not placed "
      "yet, before dist-place); none for collectives over all ranks.",
      "std::optional<::llvm::StringRef>", "getServerDevice">,
    InterfaceMethod<
      "The all-reduce group (one bucket per group) for synchronizers that "
      "reduce by all-reduce; none otherwise.",
      "std::optional<int64_t>", "getAllReduceGroup">,
  ];
}

#endif // AUTODIST_DIST_INTERFACES
