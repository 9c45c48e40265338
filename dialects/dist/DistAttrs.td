//===- DistAttrs.td - strategy attributes ------------------*- tablegen -*-===//
//
// AutoDist's Strategy proto (autodist/proto/strategy.proto and
// synchronizers.proto) as attributes: a strategy lists one node config per
// trainable variable, each with its synchronizer.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_DIST_ATTRS
#define AUTODIST_DIST_ATTRS

include "dist/DistDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Dist_AllReduceSpec : I32EnumAttr<"AllReduceSpec",
    "collective implementation hint (AutoDist AllReduceSynchronizer.Spec)", [
      I32EnumAttrCase<"Auto", 0, "auto">,
      I32EnumAttrCase<"NCCL", 1, "nccl">,
      I32EnumAttrCase<"Ring", 2, "ring">]> {
  let cppNamespace = "::autodist::dist";
  let genSpecializedAttr = 0;
}

def Dist_Compressor : I32EnumAttr<"Compressor",
    "gradient compressor (AutoDist AllReduceSynchronizer.Compressor)", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Horovod", 1, "horovod">,
      I32EnumAttrCase<"HorovodEF", 2, "horovod_ef">]> {
  let cppNamespace = "::autodist::dist";
  let genSpecializedAttr = 0;
}

def Dist_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a collective combines the ranks' values", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Mean", 1, "mean">]> {
  let cppNamespace = "::autodist::dist";
}

class Dist_Attr<string name, string attrMnemonic>
    : AttrDef<Dist_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Dist_AllReduceSynchronizerAttr
    : Dist_Attr<"AllReduceSynchronizer", "allreduce"> {
  let summary = "Synchronize a gradient by all-reduce";
  let description = [{
    AutoDist's `AllReduceSynchronizer`: the gradient is averaged over all
    replicas by a collective. Gradients with the same `group` are fused
    into one bucket (one collective).

    ```mlir
    #dist.allreduce<spec = auto, compressor = none, group = 0>
    ```
  }];
  let parameters = (ins EnumParameter<Dist_AllReduceSpec>:$spec,
                        EnumParameter<Dist_Compressor>:$compressor,
                        "int64_t":$group);
  let assemblyFormat =
      "`<` `spec` `=` $spec `,` `compressor` `=` $compressor `,` "
      "`group` `=` $group `>`";
  let genVerifyDecl = 1;
}

def Dist_NodeConfigAttr : Dist_Attr<"NodeConfig", "node"> {
  let summary = "How one trainable variable is synchronized";
  let description = [{
    AutoDist's `Strategy.Node`: the variable (by its ONNX initializer name)
    and its synchronizer.

    ```mlir
    #dist.node<"fc1.weight", #dist.allreduce<spec = auto, compressor = none, group = 0>>
    ```
  }];
  let parameters = (ins StringRefParameter<"ONNX name of the variable">:$var_name,
                        "::mlir::Attribute":$synchronizer);
  let assemblyFormat = "`<` $var_name `,` $synchronizer `>`";
  let genVerifyDecl = 1;
}

def Dist_StrategyAttr : Dist_Attr<"Strategy", "strategy"> {
  let summary = "A whole distribution strategy";
  let description = [{
    AutoDist's `Strategy`: the builder that made it and one node config per
    trainable variable (each variable at most once).

    ```mlir
    #dist.strategy<builder = "allreduce", nodes = [
        #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>
    ```
  }];
  let parameters = (ins StringRefParameter<"builder name">:$builder,
                        "::mlir::ArrayAttr":$nodes);
  let assemblyFormat = "`<` `builder` `=` $builder `,` `nodes` `=` $nodes `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The config of `varName`, or null when the strategy has none.
    NodeConfigAttr lookup(::llvm::StringRef varName) const;
  }];
}

#endif // AUTODIST_DIST_ATTRS
