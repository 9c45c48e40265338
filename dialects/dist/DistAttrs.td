//===- DistAttrs.td - strategy and cluster attributes ------*- tablegen -*-===//
//
// AutoDist's Strategy proto (autodist/proto/strategy.proto and
// synchronizers.proto) and resource spec as attributes. Each attribute
// verifies what it can see on its own; what needs the program (parameter
// shapes) or the cluster is verified when a strategy is attached to a module
// (DistDialect::verifyOperationAttribute).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_DIST_ATTRS
#define AUTODIST_DIST_ATTRS

include "dist/DistDialect.td"
include "dist/DistInterfaces.td"
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
    "gradient compressor of an all-reduce", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"FP16", 1, "fp16">,
      I32EnumAttrCase<"FP16EF", 2, "fp16_ef">,
      I32EnumAttrCase<"PowerSGD", 3, "powersgd">]> {
  let cppNamespace = "::autodist::dist";
  let genSpecializedAttr = 0;
}

// The compressor of a `dist.all_reduce` bucket (`#dist.compressor<fp16>`).
def Dist_CompressorAttr : EnumAttr<Dist_Dialect, Dist_Compressor, "compressor"> {
  let assemblyFormat = "`<` $value `>`";
}

def Dist_Compensation : I32EnumAttr<"Compensation",
    "how stale gradients are compensated (SAPipe)", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"WeightPrediction", 1, "weight_prediction">,
      I32EnumAttrCase<"DelayCompensation", 2, "delay_compensation">]> {
  let cppNamespace = "::autodist::dist";
  let genSpecializedAttr = 0;
}

def Dist_WPEstimator : I32EnumAttr<"WPEstimator",
    "the estimate of the in-flight gradient weight prediction steps with", [
      I32EnumAttrCase<"Local", 0, "local">,
      I32EnumAttrCase<"PrevSync", 1, "prev_sync">,
      I32EnumAttrCase<"LocalPrevSync", 2, "local_prev_sync">]> {
  let cppNamespace = "::autodist::dist";
  let genSpecializedAttr = 0;
}

def Dist_DCVariant : I32EnumAttr<"DCVariant",
    "the form of delay compensation", [
      I32EnumAttrCase<"DC", 0, "dc">,
      I32EnumAttrCase<"DCAdaptive", 1, "dc_adaptive">]> {
  let cppNamespace = "::autodist::dist";
  let genSpecializedAttr = 0;
}

/// An enum parameter that the assembly format may leave out when it holds
/// its default.
class Dist_DefaultEnumParameter<EnumAttrInfo info, string default>
    : EnumParameter<info> {
  let defaultValue = default;
}

def Dist_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a collective combines the ranks' values", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Mean", 1, "mean">]> {
  let cppNamespace = "::autodist::dist";
}

class Dist_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dist_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Cluster (resource spec)
//===----------------------------------------------------------------------===//

def Dist_ClusterNodeAttr : Dist_Attr<"ClusterNode", "node_spec"> {
  let summary = "One machine of the cluster";
  let description = [{
    A node of AutoDist's resource spec: its address, CPU and GPU device
    indices, whether it is the chief, and its network bandwidth in Gbit/s.

    ```mlir
    #dist.node_spec<address = "10.0.0.1", cpus = [0], gpus = [0, 1], chief = true, bandwidth = 2.500000e+01 : f64>
    ```
  }];
  let parameters = (ins StringRefParameter<"address">:$address,
                        OptionalArrayRefParameter<"int64_t", "CPU indices">:$cpus,
                        OptionalArrayRefParameter<"int64_t", "GPU indices">:$gpus,
                        "bool":$chief,
                        "::mlir::FloatAttr":$bandwidth);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Dist_ClusterAttr : Dist_Attr<"Cluster", "cluster"> {
  let summary = "The machines a strategy is built for";
  let description = [{
    AutoDist's resource spec: the nodes with their devices. Device names are
    AutoDist's `<address>:CPU:<i>` / `<address>:GPU:<i>`. With more than one
    node exactly one is the chief; a lone node is the chief.

    ```mlir
    #dist.cluster<[#dist.node_spec<address = "localhost", cpus = [0], chief = true, bandwidth = 1.000000e+00 : f64>]>
    ```
  }];
  let parameters = (ins "::mlir::ArrayAttr":$nodes);
  let assemblyFormat = "`<` $nodes `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Every device name, CPUs then GPUs, node by node.
    ::llvm::SmallVector<std::string> devices() const;
    /// CPU devices (`<addr>:CPU:<i>`), node by node: the parameter servers.
    ::llvm::SmallVector<std::string> cpuDevices() const;
    /// AutoDist's replicas: every GPU, plus the CPUs of nodes without GPUs.
    ::llvm::SmallVector<std::string> replicaDevices() const;
    /// The default: this machine, one CPU.
    static ClusterAttr getLocal(::mlir::MLIRContext *ctx);
  }];
}

//===----------------------------------------------------------------------===//
// Synchronizers
//===----------------------------------------------------------------------===//

def Dist_PSSynchronizerAttr : Dist_Attr<"PSSynchronizer", "ps",
    [DeclareAttrInterfaceMethods<Dist_SynchronizerAttrInterface>]> {
  let summary = "Synchronize a variable through a parameter server";
  let description = [{
    AutoDist's `PSSynchronizer`: gradients go to the server device, which
    applies the update; `local_replication` keeps a proxy copy per node;
    `sync = false` is asynchronous; `staleness` bounds how far workers may
    drift (needs `sync`). Without `server` the variable is on a parameter
    server not chosen yet: `dist-place` chooses it (the load-balancing
    builders leave it to that pass).

    ```mlir
    #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>
    #dist.ps<local_replication = false, sync = true, staleness = 0>
    ```
  }];
  let parameters = (ins
      StringRefParameter<"server device (empty: not placed yet)", "\"\"">:$server,
      "bool":$local_replication, "bool":$sync, "int64_t":$staleness);
  let assemblyFormat = [{
    `<` (`server` `=` $server^ `,` ` `)? `local_replication` `=` $local_replication `,`
    `sync` `=` $sync `,` `staleness` `=` $staleness `>`
  }];
  let genVerifyDecl = 1;
}

def Dist_AllReduceSynchronizerAttr
    : Dist_Attr<"AllReduceSynchronizer", "allreduce",
        [DeclareAttrInterfaceMethods<Dist_SynchronizerAttrInterface>]> {
  let summary = "Synchronize a gradient by all-reduce";
  let description = [{
    AutoDist's `AllReduceSynchronizer`: the gradient is averaged over all
    replicas by a collective. Gradients with the same `group` are fused
    into one bucket (one collective). `compressor` is none, fp16, fp16 with
    error feedback, or PowerSGD with the given `rank`.

    ```mlir
    #dist.allreduce<spec = auto, compressor = none, group = 0>
    #dist.allreduce<spec = nccl, compressor = powersgd, rank = 4, group = 1>
    ```
  }];
  let parameters = (ins EnumParameter<Dist_AllReduceSpec>:$spec,
                        EnumParameter<Dist_Compressor>:$compressor,
                        DefaultValuedParameter<"int64_t", "0">:$rank,
                        "int64_t":$group);
  let assemblyFormat = [{
    `<` `spec` `=` $spec `,` `compressor` `=` $compressor `,`
    (`rank` `=` $rank^ `,`)? `group` `=` $group `>`
  }];
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Partitioning and node configs
//===----------------------------------------------------------------------===//

def Dist_PartitionAttr : Dist_Attr<"Partition", "partition"> {
  let summary = "How a variable is split into shards";
  let description = [{
    AutoDist's partitioner string ("1,2,1"): the shard count of every axis,
    of which exactly one is above 1. `sizes` optionally gives explicit
    (uneven) shard sizes along that axis; without it shards are as even as
    possible, the first ones one larger.

    ```mlir
    #dist.partition<[2, 1]>
    #dist.partition<[3, 1], sizes = [2, 1, 1]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "shards per axis">:$shards,
                        OptionalArrayRefParameter<"int64_t", "shard sizes">:$sizes);
  let assemblyFormat = "`<` `[` $shards `]` (`,` `sizes` `=` `[` $sizes^ `]`)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The partitioned axis.
    int64_t getAxis() const;
    /// The number of shards.
    int64_t getNumShards() const;
    /// The size of every shard along the axis, for a dim of size `dim`.
    ::llvm::SmallVector<int64_t> shardSizes(int64_t dim) const;
  }];
}

def Dist_NodeConfigAttr : Dist_Attr<"NodeConfig", "node"> {
  let summary = "How one trainable variable (or shard) is synchronized";
  let description = [{
    AutoDist's `Strategy.Node`: the variable (by its ONNX initializer name),
    its synchronizer, and optionally its partitioner with one config per
    shard (`<var>/part_<i>`, each with its own synchronizer; shards cannot be
    partitioned again). A partitioned variable needs no synchronizer of its
    own (AutoDist leaves it unset): its shards' configs are carried out.

    ```mlir
    #dist.node<"fc1.weight", #dist.allreduce<spec = auto, compressor = none, group = 0>>
    #dist.node<"emb", partition = #dist.partition<[2, 1]>, parts = [
        #dist.node<"emb/part_0", #dist.ps<server = "localhost:CPU:0", local_replication = false, sync = true, staleness = 0>>,
        #dist.node<"emb/part_1", #dist.ps<server = "localhost:CPU:1", local_replication = false, sync = true, staleness = 0>>]>
    ```
  }];
  let parameters = (ins StringRefParameter<"ONNX name of the variable">:$var_name,
                        OptionalParameter<"::mlir::Attribute">:$synchronizer,
                        OptionalParameter<"PartitionAttr">:$partition,
                        OptionalParameter<"::mlir::ArrayAttr">:$parts);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Staleness pipeline and the strategy
//===----------------------------------------------------------------------===//

def Dist_PipelineAttr : Dist_Attr<"Pipeline", "pipeline"> {
  let summary = "Staleness-aware pipelining of communication (SAPipe)";
  let description = [{
    The staleness depth (how many steps a gradient may lag), which variables
    may be stale (partial staleness: the listed ones, or with `auto_stale`
    those dist-staleness-pipeline finds cannot hide their communication),
    how the lag is compensated (with λ, the weight-prediction estimator and
    the delay-compensation variant), and the number of synchronous warm-up
    steps. Fields at their defaults (`auto_stale = false`, `warmup = 0`,
    `estimator = local`, `dc = dc`) are not printed.

    ```mlir
    #dist.pipeline<depth = 1, stale = ["fc1.weight"], compensation = delay_compensation, lambda = 5.000000e-01 : f64>
    #dist.pipeline<depth = 1, stale = [], compensation = weight_prediction, auto_stale = true, warmup = 5, estimator = prev_sync, lambda = 0.000000e+00 : f64>
    ```
  }];
  let parameters = (ins "int64_t":$depth, "::mlir::ArrayAttr":$stale,
                        EnumParameter<Dist_Compensation>:$compensation,
                        "::mlir::FloatAttr":$lambda,
                        DefaultValuedParameter<"bool", "false">:$autoStale,
                        DefaultValuedParameter<"int64_t", "0">:$warmup,
                        Dist_DefaultEnumParameter<Dist_WPEstimator,
                            "::autodist::dist::WPEstimator::Local">:$estimator,
                        Dist_DefaultEnumParameter<Dist_DCVariant,
                            "::autodist::dist::DCVariant::DC">:$dcVariant);
  // The optional fields start with their keyword (not a comma), so that
  // any of them may be left out.
  let assemblyFormat = [{
    `<` `depth` `=` $depth `,` `stale` `=` $stale `,` `compensation` `=`
    $compensation `,` (`auto_stale` `=` $autoStale^ `,`)?
    (`warmup` `=` $warmup^ `,`)? (`estimator` `=` $estimator^ `,`)?
    (`dc` `=` $dcVariant^ `,`)? `lambda` `=` $lambda `>`
  }];
  let builders = [
    AttrBuilder<(ins "int64_t":$depth, "::mlir::ArrayAttr":$stale,
                     "Compensation":$compensation, "::mlir::FloatAttr":$lambda),
    [{
      return $_get($_ctxt, depth, stale, compensation, lambda, false, 0,
                   WPEstimator::Local, DCVariant::DC);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Dist_StrategyAttr : Dist_Attr<"Strategy", "strategy"> {
  let summary = "A whole distribution strategy";
  let description = [{
    AutoDist's `Strategy`: an id, the data-parallel replica devices
    (`graph_config.replicas`), one node config per trainable variable (each
    variable at most once), and optionally the staleness pipeline.

    ```mlir
    #dist.strategy<id = "allreduce", replicas = ["localhost:CPU:0"], nodes = [
        #dist.node<"w", #dist.allreduce<spec = auto, compressor = none, group = 0>>]>
    ```
  }];
  let parameters = (ins StringRefParameter<"strategy id">:$id,
                        "::mlir::ArrayAttr":$replicas,
                        "::mlir::ArrayAttr":$nodes,
                        OptionalParameter<"PipelineAttr">:$pipeline);
  let assemblyFormat = [{
    `<` `id` `=` $id `,` `replicas` `=` $replicas `,` `nodes` `=` $nodes
    (`,` `pipeline` `=` $pipeline^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The config of `varName`, or null when the strategy has none.
    NodeConfigAttr lookup(::llvm::StringRef varName) const;
  }];
}

#endif // AUTODIST_DIST_ATTRS
