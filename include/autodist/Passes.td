//===- Passes.td - AutoDist-MLIR passes --------------------*- tablegen -*-===//

#ifndef AUTODIST_PASSES
#define AUTODIST_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def BuildTrainStep : Pass<"autodist-build-train-step", "mlir::ModuleOp"> {
  let summary = "Build @train_step from @forward: loss, autodiff, optimizer";
  let description = [{
    Clones `@forward`, appends the loss on its first result, differentiates
    the loss with respect to every trainable parameter (arguments tagged
    `nn.param`, less `freeze`) by reverse-mode autodiff through each op's
    `DifferentiableOpInterface`, optionally clips the gradients by their
    global norm, and applies the optimizer:

    ```mlir
    func.func @train_step(%w: tensor<10x64xf32> {nn.param = "w"}, ...,
                          %m: tensor<10x64xf32> {nn.state = "w/adam_m"}, ...,
                          %x: tensor<?x64xf32> {nn.input = "x"},
                          %labels: tensor<?xi64> {nn.label = "labels"},
                          %lr: tensor<f32> {nn.lr}, %step: tensor<f32> {nn.step})
        -> (tensor<f32> {nn.loss}, tensor<10x64xf32> {nn.param_out = "w"}, ...,
            tensor<10x64xf32> {nn.state_out = "w/adam_m"}, ...)
    ```

    Losses: `cross_entropy` (class indices, classes on the last dim, mean
    over all positions), `mse` (target shaped like the output), `output`
    (the model's first output already is the scalar loss; no labels).
    Optimizers: `sgd`, `momentum` (`nesterov`), `adam`, `adamw`, each with
    `weight-decay`. The learning-rate schedule is recorded for the runtime,
    which passes each step's lr.

    Training forms: batch normalization uses batch statistics and updates
    its running statistics (StatefulOpInterface; with `sync-batchnorm` the
    statistics are those of the global batch, through `dist.all_reduce
    sum`); dropout draws its mask (StochasticOpInterface). A model with
    dropout gets two more arguments after `step`,
    `%seed: tensor<i64> {nn.seed}` and `%rank: tensor<i64> {nn.rank}`, and
    `seed` is recorded in `autodist.train` (the manifest's `train.seed`).

    `loss-scale=dynamic` (`--precision=fp16`) is PyTorch's GradScaler: the
    backward pass starts from the loss scale instead of 1, the gradients
    are unscaled after synchronization (`nn.unscale_gradients`, which also
    finds non-finite ones), a step with a non-finite gradient leaves the
    parameters and the optimizer state unchanged (`nn.where`), and the scale
    and its growth tracker (`nn.update_loss_scale`) are state of the step,
    `amp/loss_scale` (starting at `loss-scale-init`) and
    `amp/growth_tracker`.
  }];
  let options = [
    Option<"loss", "loss", "std::string", "\"cross_entropy\"",
           "loss on the first output (cross_entropy, mse, output)">,
    Option<"optimizer", "optimizer", "std::string", "\"sgd\"",
           "optimizer (sgd, momentum, adam, adamw)">,
    Option<"lr", "lr", "double", "0.01", "base learning rate">,
    Option<"label", "label", "std::string", "\"labels\"",
           "name of the labels (or target) input">,
    Option<"momentum", "momentum", "double", "0.9", "momentum factor">,
    Option<"nesterov", "nesterov", "bool", "false", "Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "weight decay (L2 for sgd/momentum/adam, decoupled for adamw)">,
    Option<"beta1", "beta1", "double", "0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", "0.999", "Adam beta2">,
    Option<"epsilon", "epsilon", "double", "1e-8", "Adam epsilon">,
    Option<"clipNorm", "clip-norm", "double", "0.0",
           "clip gradients to this global L2 norm (0: off)">,
    ListOption<"freeze", "freeze", "std::string",
               "parameters not to train">,
    Option<"schedule", "lr-schedule", "std::string", "\"constant\"",
           "learning-rate schedule (constant, cosine, step)">,
    Option<"warmupSteps", "warmup-steps", "int64_t", "0",
           "cosine: linear warmup steps">,
    Option<"totalSteps", "total-steps", "int64_t", "0",
           "cosine: step at which lr reaches min-lr">,
    Option<"minLr", "min-lr", "double", "0.0", "cosine: final lr">,
    Option<"stepSize", "step-size", "int64_t", "0",
           "step: steps between decays">,
    Option<"gamma", "gamma", "double", "0.1", "step: decay factor">,
    Option<"seed", "seed", "uint64_t", "0",
           "seed of the stochastic ops' generator (dropout), recorded in "
           "the manifest">,
    Option<"syncBatchNorm", "sync-batchnorm", "bool", "false",
           "batch normalization statistics over the global batch (all "
           "ranks: sums marked global_batch, all-reduced by "
           "dist-synchronize) instead of each rank's batch">,
    Option<"lossScale", "loss-scale", "std::string", "\"none\"",
           "none, or dynamic (fp16 loss scaling, PyTorch GradScaler)">,
    Option<"lossScaleInit", "loss-scale-init", "double", "65536.0",
           "dynamic: the first loss scale">,
    Option<"lossScaleGrowthInterval", "loss-scale-growth-interval",
           "int64_t", "2000",
           "dynamic: steps without overflow before the scale doubles">
  ];
  let dependentDialects = ["autodist::nn::NNDialect",
                           "autodist::dist::DistDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def RecognizeLayerNorm : Pass<"nn-recognize-layer-norm", "mlir::ModuleOp"> {
  let summary = "Fold exporters' decomposed LayerNorm into nn.layer_norm";
  let description = [{
    Exporters before ONNX opset 17 write LayerNorm as
    `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * scale + bias` over
    the trailing dims. This pass replaces that chain by one `nn.layer_norm`
    (the importer runs it), so training and lowering see one op.
  }];
  let dependentDialects = ["autodist::nn::NNDialect"];
}

def MixedPrecision : Pass<"nn-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Matrix products on bf16 or f16 operands, accumulated in f32";
  let description = [{
    `--precision=bf16|fp16`: every op whose first two operands are
    multiplied and summed and that accepts them in 16 bits
    (HalfOperandsOpInterface: `nn.matmul`, `nn.gemm`, and group-1
    convolutions and their gradients), of the forward and the backward pass
    alike (the pass runs on the whole step, after synchronization), takes
    its two f32 operands rounded to `precision`
    (`nn.cast`, to nearest even) and still produces f32: products of 16-bit
    floats are exact in f32 and the sums are f32, as cuBLASLt's and
    PyTorch autocast's matrix products. Parameters, optimizer state,
    gradients and every other op stay f32 (master weights). One cast per
    value: a weight read by its forward product and by its input gradient
    is rounded once per step.

    ```mlir
    %y = nn.matmul %x, %w : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
    // becomes
    %xb = nn.cast %x {to = bf16} : (tensor<?x64xf32>) -> tensor<?x64xbf16>
    %wb = nn.cast %w {to = bf16} : (tensor<64x32xf32>) -> tensor<64x32xbf16>
    %y = nn.matmul %xb, %wb : (tensor<?x64xbf16>, tensor<64x32xbf16>) -> tensor<?x32xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"bf16\"",
           "the operands' type: bf16 or fp16">
  ];
  let dependentDialects = ["autodist::nn::NNDialect"];
}

//===----------------------------------------------------------------------===//
// Strategy and distribution
//===----------------------------------------------------------------------===//

def ApplyStrategy : Pass<"dist-strategy", "mlir::ModuleOp"> {
  let summary = "Attach a #dist.strategy from a named builder or a file";
  let description = [{
    Runs one of AutoDist's strategy builders over the parameters of
    `@train_step` (or `@forward`) and the module's `dist.cluster` (this
    machine when absent), or reads an AutoDist JSON strategy file, and
    attaches the result as the module attribute `dist.strategy`:

    - `ps`: every variable on the first CPU device's parameter server;
    - `ps-lb`: each variable on a parameter server;
    - `partitioned-ps` / `uneven-ps`: axis 0 split by the smallest divisor /
      non-divisor of its size, each shard on a parameter server;
    - `allreduce`: all-reduce, `group = index / chunk-size`;
    - `partitioned-ar` / `random-axis-ar`: axis 0 / a seeded random axis
      split by its smallest divisor, all-reduce per shard;
    - `parallax`: sparse gradients on parameter servers, dense ones
      all-reduced.

    Which server holds each variable or shard of `ps-lb`,
    `partitioned-ps`, `uneven-ps` and `parallax` is left open
    (`#dist.ps` without `server`): `dist-place`, which runs next, chooses.
  }];
  let options = [
    Option<"builder", "builder", "std::string", "\"allreduce\"",
           "strategy builder (ps, ps-lb, partitioned-ps, uneven-ps, allreduce, "
           "partitioned-ar, random-axis-ar, parallax)">,
    Option<"strategyFile", "strategy-file", "std::string", "\"\"",
           "read the strategy from this AutoDist JSON file instead">,
    Option<"clusterFile", "cluster-file", "std::string", "\"\"",
           "AutoDist resource spec (YAML) to build for; sets dist.cluster">,
    Option<"chunkSize", "chunk-size", "int64_t", "128",
           "variables per all-reduce group (bucket)">,
    Option<"spec", "spec", "std::string", "\"\"",
           "all-reduce spec (auto, nccl, ring); default: the builder's">,
    Option<"compressor", "compressor", "std::string", "\"none\"",
           "all-reduce compressor (none, fp16, fp16_ef, powersgd)">,
    Option<"powersgdRank", "powersgd-rank", "int64_t", "1",
           "PowerSGD rank">,
    Option<"localProxy", "local-proxy", "bool", "false",
           "parameter servers keep a proxy copy per node">,
    Option<"sync", "sync", "bool", "true", "synchronous parameter servers">,
    Option<"staleness", "staleness", "int64_t", "0",
           "parameter-server staleness bound">,
    Option<"seed", "seed", "uint64_t", "0", "seed of random-axis-ar">,
    Option<"pipelineDepth", "pipeline-depth", "int64_t", "0",
           "staleness of the gradients (SAPipe; 0: the strategy's own "
           "pipeline, if any)">,
    Option<"stale", "stale", "std::string", "\"all\"",
           "which parameters are stale: all, auto, or a comma-separated "
           "list of names">,
    Option<"compensation", "compensation", "std::string", "\"none\"",
           "none, weight_prediction or delay_compensation">,
    Option<"wpEstimator", "wp-estimator", "std::string", "\"local\"",
           "weight prediction's estimate: local, prev_sync, local_prev_sync">,
    Option<"dcVariant", "dc-variant", "std::string", "\"dc\"",
           "delay compensation: dc or dc_adaptive">,
    Option<"dcLambda", "dc-lambda", "double", "0.5",
           "delay compensation's lambda">,
    Option<"staleWarmup", "stale-warmup", "int64_t", "-1",
           "synchronous warm-up steps (-1: 1 with weight prediction, else "
           "0)">,
    Option<"stepProfile", "step-profile", "std::string", "\"\"",
           "metrics log (--log) of the synchronous program: its median step "
           "time sets dist.step_time, to which the automatic stale set's "
           "cost model scales its timeline">
  ];
  let dependentDialects = ["autodist::dist::DistDialect"];
}

def PlaceStrategy : Pass<"dist-place", "mlir::ModuleOp"> {
  let summary = "Choose the server of every parameter server left open";
  let description = [{
    Gives every `#dist.ps` of the module's `dist.strategy` that has no
    `server` one of the cluster's CPU devices (`dist.cluster`; this machine
    when absent), as AutoDist's load-balancing builders do, and leaves the
    rest as it is. A variable of B bytes in n shards weighs B / n per shard,
    and a server starts with the weight of what is already placed on it.

    - `placement=bytes` (AutoDist's PSLoadBalancing and PartitionedPS): in
      program order, a variable's shards on the servers with the fewest
      bytes so far (round-robin when there are fewer servers than shards);
    - `placement=bandwidth`: largest first, each on the server with the
      smallest (load + bytes) / bandwidth, a node's `network_bandwidth`
      shared by its servers.

    ```mlir
    // a cluster of two CPU devices, w (4x3) and b (3) left open:
    #dist.node<"w", #dist.ps<local_replication = false, sync = true, staleness = 0>>
    #dist.node<"b", #dist.ps<local_replication = false, sync = true, staleness = 0>>
    // placement=bytes gives w the first server and b the second:
    #dist.node<"w", #dist.ps<server = "10.0.0.1:CPU:0", local_replication = false, sync = true, staleness = 0>>
    #dist.node<"b", #dist.ps<server = "10.0.0.2:CPU:0", local_replication = false, sync = true, staleness = 0>>
    ```
  }];
  let options = [
    Option<"placement", "placement", "std::string", "\"bytes\"",
           "bytes (greedy, AutoDist's) or bandwidth (proportional to each "
           "node's network_bandwidth)">
  ];
  let dependentDialects = ["autodist::dist::DistDialect"];
}

def ExplainStrategy : Pass<"dist-explain", "mlir::ModuleOp"> {
  let summary = "Print the strategy as a table";
  let description = [{
    Prints, for the module's `dist.strategy`, one row per parameter (or
    shard): name, shape, bytes, synchronizer, shards, placement and group,
    then the bytes per parameter server and per all-reduce group.
    `format=json` writes the same as one JSON object (`strategy`,
    `replicas`, `rows`, `servers`, `groups`).
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "where to write the table (- for stdout)">,
    Option<"format", "format", "std::string", "\"text\"",
           "text (the table) or json (an object: the rows, the bytes per "
           "server and per group; for programs, e.g. the Python package)">
  ];
}

def Partition : Pass<"dist-partition", "mlir::ModuleOp"> {
  let summary = "Split partitioned parameters into their shards";
  let description = [{
    Carries out the `#dist.partition` of every parameter whose node config
    has one, before `dist-synchronize` gives each shard its synchronizer.
    When every shard is all-reduced, each rank keeps the whole parameter and
    one update: the raw gradient (before gradient transforms such as
    clipping) is sliced along the partition axis and put back together by a
    `tensor.concat` tagged `dist.shards` (the shards' names, in order).
    When a shard lives on a parameter server, the update itself is split:
    one optimizer update per shard on slices of every parameter-shaped
    operand (parameter, gradient, optimizer state; scalars shared), tagged
    `dist.shard = {part, axis, offset, size}`, and the results
    concatenated back. `dist-synchronize` reads the tags and removes them,
    so its output is the same as when it split the parameters itself. A
    parameter already split is left alone.

    ```mlir
    // w: partition = #dist.partition<[2, 1]>, both shards all-reduced
    %u = nn.sgd_update %w, %gw, %lr : ...
    // becomes
    %g0 = tensor.extract_slice %gw[0, 0] [4, 4] [1, 1]
        : tensor<8x4xf32> to tensor<4x4xf32>
    %g1 = tensor.extract_slice %gw[4, 0] [4, 4] [1, 1]
        : tensor<8x4xf32> to tensor<4x4xf32>
    %g = tensor.concat dim(0) %g0, %g1 {dist.shards = ["w/part_0", "w/part_1"]}
        : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %u = nn.sgd_update %w, %g, %lr : ...
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def Synchronize : Pass<"dist-synchronize", "mlir::ModuleOp"> {
  let summary = "Insert the communication the strategy asks for";
  let description = [{
    For every optimizer update in `@train_step`, synchronizes its gradient
    as the parameter's node config says. All-reduce gradients of one group
    and compressor (and PowerSGD rank) become one bucketed
    `dist.all_reduce mean` (a compressed one carries its `compressor` and
    `powersgd_rank`); the loss (result tagged
    `nn.loss`) joins the first uncompressed bucket (one of its own when all
    are compressed) so that every rank returns the exact mean loss over the
    global batch. Partitioned parameters must have been split by
    `dist-partition`: each shard of a sliced gradient (a `tensor.concat`
    tagged `dist.shards`) is reduced in its own group's bucket, each shard
    update (tagged `dist.shard`) is synchronized as its shard's config says,
    and the tags are removed. A parameter (or shard) on a
    synchronous parameter server `S`: its gradient joins S's bucketed
    `dist.reduce mean` to S, the optimizer update runs (meaningful on S
    only), and
    the updated value joins S's bucketed `dist.broadcast` from S; without
    all-reduce buckets the loss rides in the first server's bucket. State
    of server-held parameters is tagged `dist.owners` (for checkpoints).
    Asynchronous servers and bounded server staleness are reported as not
    implemented; the strategy's `#dist.pipeline` is carried out by
    dist-staleness-pipeline, which runs next. Sync batch norm's sums over
    the global batch (`nn.batch_norm_sum`, `nn.batch_norm_sq_dev`,
    `nn.batch_norm_grad_sums` marked `global_batch`) each get one
    `dist.all_reduce sum` right after them, which their users read; the
    mark is removed.
  }];
  let dependentDialects = ["autodist::dist::DistDialect",
                           "mlir::tensor::TensorDialect"];
}

def StalenessPipeline : Pass<"dist-staleness-pipeline", "mlir::ModuleOp"> {
  let summary = "Apply stale gradients a step late (SAPipe), in the IR";
  let description = [{
    Carries out the strategy's `#dist.pipeline` (depth 1) on the output of
    dist-synchronize. The gradients of the stale parameters leave their
    synchronous `dist.all_reduce` buckets: in step t they go into one
    `dist.all_reduce_start` per bucket whose future is a result of
    `@train_step` (tagged `dist.inflight`), and the step waits for the
    future of step t - 1, an argument with the same tag, right before its
    own start, and applies that gradient. Both come at the end of the step,
    after the synchronous collectives (whose bytes then go first on the
    wire; the stale bucket has the whole next step to travel). The future is state that crosses
    steps, like optimizer state: the manifest names it and checkpoints hold
    it (drained). Steps 0 .. W-1 (`warmup = W`) are synchronous (what they
    start is never applied); step W applies nothing (nothing is in flight), as step 0 does
    without warm-up: the stale parameters and their optimizer state are left
    as they are.

    Compensation: weight prediction runs the forward and backward pass on
    `Opt(w_t, ĝ)` (the optimizer's update with the optimizer state of w_t,
    its new state discarded), ĝ the estimator's guess of the gradient in
    flight (`local`: this rank's gradient of the previous step;
    `prev_sync`: the gradient applied in the previous step;
    `local_prev_sync`: that one with this rank's share replaced by its newer
    gradient). Step t - 1 computes it right after its own update, from that
    update's results, the step number t and step t's learning rate (an
    argument tagged `nn.next_lr`), and passes it on as state
    (`<param>/wp_weight`, tagged `dist.init_param`: it starts as the
    parameter), so that autodist-fuse-elementwise puts both in one loop.
    Delay compensation applies
    `ḡ + λ·ḡ⊙ḡ⊙(w_t − w_{t−1})` (`dc`) or
    `ḡ + λ·ḡ⊙ḡ⊙(w_t − w_{t−1})/sqrt(ḡ⊙ḡ + 1e-7)` (`dc_adaptive`). The
    caches they need (previous gradients, previous weights) are state of
    `@train_step` too.

    With `auto_stale`, the stale set is the parameters whose gradient
    communication cannot finish behind the rest of the backward pass at the
    cluster's bandwidth (op costs from their shapes); the choice is written
    back into the strategy, so `--explain` shows it.

    ```mlir
    %r:2 = dist.all_reduce mean %gw, %loss : tensor<4x3xf32>, tensor<f32>
    // with w stale becomes (%in: the function argument of the same type)
    %r = dist.all_reduce mean %loss : tensor<f32>
    // ... at the end of the step:
    %prev = dist.wait %in : !dist.future<tensor<4x3xf32>>
    %out = dist.all_reduce_start mean %gw : tensor<4x3xf32>
        -> !dist.future<tensor<4x3xf32>>
    // the update of w reads %prev; %out is returned
    ```
  }];
  let dependentDialects = ["autodist::dist::DistDialect",
                           "autodist::nn::NNDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def SplitPowerSGD : Pass<"dist-split-powersgd", "mlir::ModuleOp"> {
  let summary = "Give every PowerSGD matrix an all-reduce of its own";
  let description = [{
    PowerSGD compresses each gradient as a matrix (first dimension x the
    rest) with factors and state of its own, so a `dist.all_reduce` with
    compressor `powersgd` becomes one such all-reduce per operand of rank
    >= 2 and one uncompressed all-reduce (same group) of the other operands
    (biases, scalars), which PowerSGD does not compress. Runs after
    `dist-synchronize`; `convert-dist-to-runtime` expects this form.

    ```mlir
    %r:2 = dist.all_reduce mean %gw, %gb
        {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64}
        : tensor<32x64xf32>, tensor<32xf32>
    // becomes
    %w = dist.all_reduce mean %gw
        {compressor = #dist.compressor<powersgd>, powersgd_rank = 2 : i64}
        : tensor<32x64xf32>
    %b = dist.all_reduce mean %gb : tensor<32xf32>
    ```
  }];
  let dependentDialects = ["autodist::dist::DistDialect"];
}

def SplitBuckets : Pass<"dist-split-buckets", "mlir::ModuleOp"> {
  let summary = "Cut large all-reduce buckets into size-capped ones";
  let description = [{
    Splits every `dist.all_reduce` whose operands exceed `bucket-bytes` in
    all into consecutive buckets of at most `bucket-bytes` (a larger tensor
    gets a bucket of its own), filled in reverse order of computation: the
    values computed last in the backward pass (the gradients of the first
    layers of the forward pass) go into the last bucket. Each bucket keeps
    the kind and group of the original and is placed right after the last of
    its values is computed, so that `convert-dist-to-runtime` starts its
    collective while the rest of the backward pass runs. `bucket-bytes=0`
    keeps every group in one collective.

    ```mlir
    // bucket-bytes=1024: %gw (2048 bytes, computed last) and %gb (128 bytes)
    %g:2 = dist.all_reduce mean %gw, %gb : tensor<16x32xf32>, tensor<32xf32>
    // becomes, %gb's all-reduce right after %gb is computed:
    %b = dist.all_reduce mean %gb : tensor<32xf32>
    %w = dist.all_reduce mean %gw : tensor<16x32xf32>
    ```
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"1048576",
           "Largest bucket in bytes (0: one bucket per group)">
  ];
  let dependentDialects = ["autodist::dist::DistDialect"];
}

def CompressorState : Pass<"dist-compressor-state", "mlir::ModuleOp"> {
  let summary = "Make the compressors' error-feedback state state of the train step";
  let description = [{
    Gives every `dist.all_reduce` with compressor `fp16_ef` or `powersgd`
    in `@train_step` its state across steps as explicit operands and
    results, carried in and out of the step like optimizer state: each state
    tensor becomes an argument of the step (tagged `nn.state` with its name,
    `dist.per_rank`: every rank keeps its own, and for PowerSGD's Q
    `dist.init = "powersgd_q"` with `dist.init_seed`) and the op's new value
    of it a result (`nn.state_out`), after the existing state. The manifest
    names them; the runtime starts them (zeros; Q from the seeded generator,
    the same on every rank), passes them, and checkpoints each rank's.

    Names follow the all-reduces in program order, counting state slots as
    the runtime's seeds do: `fp16_ef.<k>/residual` takes slot k;
    `powersgd.<k>/residual` and `powersgd.<k>/q` take k and k + 1 (Q's seed
    is 0x5eed0000 + k + 1). Runs last of the distribution passes (after
    dist-split-powersgd and dist-split-buckets, which keep compressed
    buckets whole).

    ```mlir
    %e = dist.all_reduce mean %g {compressor = #dist.compressor<fp16_ef>}
        : tensor<4x3xf32>
    // becomes, with %res an argument {nn.state = "fp16_ef.0/residual",
    // dist.per_rank} and %e#1 a result {nn.state_out = "fp16_ef.0/residual"}:
    %e:2 = dist.all_reduce mean %g state(%res : tensor<12xf32>)
        {compressor = #dist.compressor<fp16_ef>} : tensor<4x3xf32>
    ```
  }];
  let dependentDialects = ["autodist::dist::DistDialect"];
}

def ExportManifest : Pass<"autodist-export-manifest", "mlir::ModuleOp"> {
  let summary = "Record the runtime manifest and mark the exported entry points";
  let description = [{
    Writes the JSON manifest the runtime reads (parameters, inputs, outputs,
    training settings, strategy, and with a strategy the cluster's nodes and
    the optimizer state parameter servers own, from `dist.owners`; and the
    directory of the model's ONNX external data, from the importer's
    `autodist.external_data_dir`; and `float32_matmul` from
    `autodist.float32_matmul`, set by `--precision=tf32`; see docs/abi.md)
    into the module attribute
    `autodist.manifest`, and marks `@forward` / `@train_step` with
    `llvm.emit_c_interface`.
  }];
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

def ConvertNNConvToLibrary : Pass<"convert-nn-conv-to-library",
                                 "mlir::ModuleOp"> {
  let summary = "A target's convolution library: group-1 convolutions to "
                "oneDNN or cuDNN calls";
  let description = [{
    `library=cudnn` (the cuda target): every group-1 f32 convolution and
    gradient becomes a call (cuDNN's algorithms beat im2col and one GEMM);
    `backend=im2col` keeps them all on im2col. The ABI is the same as
    oneDNN's; the cuda runtime serves it with cuDNN.

    `library=onednn` (the CPU target): the choice between oneDNN and
    im2col + sgemm for each
    group-1 `nn.conv`, `nn.conv_input_grad` and `nn.conv_weight_grad`
    (`nn` itself names no library). A chosen op becomes one call into the
    runtime's oneDNN convolutions (docs/abi.md) on its operands' buffers:
    `bufferization.to_buffer` of the inputs, a fresh buffer for the result
    (its batch that of the input or output gradient), i32 strides, pads and
    dilations, and the result back as a tensor; the call survives one-shot
    bufferization as it is. The others are left to `convert-nn-to-linalg`.

    `backend=im2col` chooses none, `backend=onednn` every group-1
    convolution and `backend=auto` (the default) those whose output has at
    least 16 positions per sample (`OH * OW >= 16`): measured
    single-threaded (bench/results/onednn.md), oneDNN with its per-call
    reorders from and to NCHW/OIHW wins there, and loses on the small late
    layers of ResNet-18, where reordering the large weights on every call
    costs more than the convolution saves. A build without oneDNN makes
    `auto` choose none and `onednn` an error.

    ```mlir
    %y = nn.conv %x, %w {pads = array<i64: 1, 1, 1, 1>}
        : (tensor<?x64x8x8xf32>, tensor<64x64x3x3xf32>) -> tensor<?x64x8x8xf32>
    // backend=auto (8x8 outputs) becomes:
    %xb = bufferization.to_buffer %x : tensor<?x64x8x8xf32> to memref<?x64x8x8xf32>
    ...
    %yb = memref.alloc(%n) : memref<?x64x8x8xf32>
    call @autodist_rt_conv2d_fwd_f32(%xd, %wd, %yd, %c1_i32, ...) : (...) -> ()
    %y = bufferization.to_tensor %yb restrict writable : memref<?x64x8x8xf32> to tensor<?x64x8x8xf32>
    ```
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"auto\"",
           "auto, im2col or onednn (the library for every group-1 one)">,
    Option<"library", "library", "std::string", /*default=*/"\"onednn\"",
           "the runtime's convolutions: onednn (the CPU target) or cudnn "
           "(the cuda target)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::tensor::TensorDialect"];
}

def ConvertNNToLinalg : Pass<"convert-nn-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower nn ops to linalg/tensor/arith/math on tensors";
  let description = [{
    Asks every op for its lowering through `LowerToLinalgOpInterface`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect"];
}

def OverlapCollectives : Pass<"dist-overlap-collectives", "mlir::ModuleOp"> {
  let summary = "Start all-reduces early and wait for them at their first use";
  let description = [{
    Decides which collectives overlap computation, in the IR: an
    uncompressed `dist.all_reduce` becomes a `dist.all_reduce_start` where
    it stands (right after the last value of its bucket is computed) and a
    `dist.wait` right before the first operation of its block that uses a
    reduced value (or holds a use in its regions), so that the computation
    in between runs while the bucket travels.

    An all-reduce with nothing but constants and empty tensors before its
    first use (e.g. a single bucket right before the updates) stays
    blocking: there is nothing to overlap, and OpenMPI's non-blocking
    algorithms are slower than its tuned blocking ones (bench/README.md).
    A compressed all-reduce stays blocking (its runtime call compresses,
    reduces and decompresses in one).

    It runs after convert-nn-to-linalg, so that "work" means the lowered
    computation, right before convert-dist-to-runtime.

    ```mlir
    %r:2 = dist.all_reduce mean %a, %l : tensor<4x3xf32>, tensor<f32>
    %e = arith.mulf %a, %a : tensor<4x3xf32>
    %f = arith.addf %r#0, %e : tensor<4x3xf32>
    // becomes
    %fut = dist.all_reduce_start mean %a, %l : tensor<4x3xf32>, tensor<f32>
        -> !dist.future<tensor<4x3xf32>, tensor<f32>>
    %e = arith.mulf %a, %a : tensor<4x3xf32>
    %r:2 = dist.wait %fut : !dist.future<tensor<4x3xf32>, tensor<f32>>
    %f = arith.addf %r#0, %e : tensor<4x3xf32>
    ```
  }];
  let dependentDialects = ["::autodist::dist::DistDialect"];
}

def ConvertDistToRuntime : Pass<"convert-dist-to-runtime", "mlir::ModuleOp"> {
  let summary = "Lower dist collectives to calls into the runtime's C ABI";
  let description = [{
    A bucket `dist.all_reduce` becomes: its operands flattened and each
    copied, from a read-only view of its buffer, into its place in a private
    buffer (one copy each, no concatenation of its own), one in-place call to `autodist_rt_allreduce_f32` on the bucket's buffer,
    and slices back to the operand shapes. `dist.reduce` and
    `dist.broadcast` do the same with `autodist_rt_reduce_f32` and
    `autodist_rt_broadcast_f32`, their root given as the index of its device
    in the module's `dist.cluster` (the local cluster without one).

    A `dist.all_reduce_start` packs its bucket the same way and calls
    `autodist_rt_allreduce_start_f32` (a non-blocking MPI_Iallreduce,
    returning a handle) where it stands; its `dist.wait` becomes
    `autodist_rt_allreduce_wait_f32(buffer, handle, kind)` where the wait
    stands, and the slices are taken after it. Passing the buffer to the
    wait keeps it allocated and unwritten between the two calls through
    bufferization and deallocation. A future must be waited in the block
    that starts it.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect"];
}

def OutlineLoops : Pass<"autodist-outline-loops", "mlir::ModuleOp"> {
  let summary = "Move every top-level loop nest into a function of its own";
  let description = [{
    Runs after `convert-linalg-to-loops`. Each `scf.for` at the top level of
    a function becomes a call of a private function `<function>_loop<N>`
    tagged `autodist.outlined` (made `noinline` by `autodist-emit-abi`),
    which takes the values the nest uses from above (constants are cloned
    in) and returns the loop's results. LLVM's loop analyses then see many
    small functions instead of one with thousands of loops (superlinear
    compile time), and the entry points are left without loops, which
    `autodist-emit-abi` compiles as `optnone`. Static offsets of strided
    memref arguments become dynamic (a cast at the call), so that equal
    nests over different slices are equal functions for
    `duplicate-function-elimination`.

    ```mlir
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %a[%i] : memref<4xf32>
      memref.store %v, %b[%i] : memref<4xf32>
    }
    // becomes
    scf.execute_region {
      func.call @train_step_loop0(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
      scf.yield
    }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::scf::SCFDialect"];
}

def TraceLoopCalls : Pass<"autodist-trace-loop-calls", "mlir::ModuleOp"> {
  let summary = "Bracket each call of an outlined loop nest with trace hooks";
  let description = [{
    Runs after `autodist-outline-loops`. Every call of an `autodist.outlined`
    function gets `autodist_rt_trace_op_begin(id)` before it and
    `autodist_rt_trace_op_end()` after it. `id` indexes the public constant
    `autodist_trace_op_names`: NUL-separated names, ended by an empty one,
    each the ONNX node names found in the call's location (a fused loop
    nest names every node it came from). With `--trace` the runtime records
    one event per call under that name, so a trace shows which operator the
    compiled time goes to; without it each hook returns at once.

    ```mlir
    func.call @autodist_rt_trace_op_begin(%c3_i32) : (i32) -> ()
    func.call @train_step_loop7(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
    func.call @autodist_rt_trace_op_end() : () -> ()
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def CollapseLoopDims : Pass<"autodist-collapse-loop-dims", "mlir::ModuleOp"> {
  let summary = "Merge the contiguous loop dims of linalg ops on memrefs";
  let description = [{
    Runs after bufferization, before `convert-linalg-to-loops`. For every
    `linalg.generic`, `linalg.copy` and `linalg.fill` whose indexing maps
    are projected permutations, each run of consecutive loop dims of one
    iterator type that every operand reads contiguously (in the same order,
    on a layout that can be collapsed without a copy) becomes one loop dim,
    the memrefs `memref.collapse_shape` views. The innermost loop then
    covers whole rows of data: an SGD update of a `[512, 512, 3, 3]`
    weight is one loop of 2,359,296 elements that LLVM vectorizes, not a
    nest whose innermost loop has 3 iterations (which LLVM vectorized across
    the outer loop with gathers and scatters).

    ```mlir
    linalg.generic {indexing_maps = [#id4, #id4], iterator_types = [4 x "parallel"]}
        ins(%a : memref<?x8x3x3xf32>) outs(%b : memref<?x8x3x3xf32>) { ... }
    // becomes
    %a1 = memref.collapse_shape %a [[0, 1, 2, 3]] : memref<?x8x3x3xf32> into memref<?xf32>
    %b1 = memref.collapse_shape %b [[0, 1, 2, 3]] : memref<?x8x3x3xf32> into memref<?xf32>
    linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%a1 : memref<?xf32>) outs(%b1 : memref<?xf32>) { ... }
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def FuseElementwise : Pass<"autodist-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse elementwise linalg ops, leaving contractions intact";
  let description = [{
    The patterns of upstream `-linalg-fuse-elementwise-ops` (elementwise
    producer/consumer fusion, reshape propagation by expansion, fill and
    constant folding), except through a contraction: a `linalg.contract` or
    `linalg.matmul` keeps its operands and reshapes, so that
    `convert-linalg-to-blas` maps it onto sgemm calls. Example: an im2col
    `tensor.collapse_shape` feeding a `linalg.contract` stays, where the
    upstream pass would expand the contraction into a 6-D `linalg.generic`.

    Also a producer whose results are read elsewhere too (upstream fuses
    only a producer with one use, lest it be computed twice) fuses into a
    consumer of the same iteration space when every other reader comes
    after the consumer: one loop yields both ops' results, and the
    consumer's other reads of the producer take the values of the same
    iteration. Example: an optimizer update and weight prediction's update
    of the next step, which reads its new parameter and moments.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect"];
}

def UntieEmptyTensors : Pass<"autodist-untie-empty-tensors",
                              "mlir::ModuleOp"> {
  let summary = "Give every use of a tensor.empty an op of its own";
  let description = [{
    CSE merges equal `tensor.empty` ops, so one of them can be the
    destination (`outs`) of hundreds of linalg ops. One-shot bufferization
    then sees all their results alias one tensor: its in-place analysis
    compares every write with every read of that alias set (quadratic; 26%
    of a 24-block GPT's lowering time) and copies where it cannot prove
    independence. Run right before `one-shot-bufferize`, this pass clones
    the `tensor.empty` in front of each user, so each destination is a
    fresh buffer as the lowering meant.

    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %a = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %b = linalg.fill ins(%c1 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    // becomes
    %e0 = tensor.empty() : tensor<4xf32>
    %a = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
    %e1 = tensor.empty() : tensor<4xf32>
    %b = linalg.fill ins(%c1 : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def ExpandBFloat16Casts : Pass<"autodist-expand-bf16-casts",
                                "mlir::ModuleOp"> {
  let summary = "Expand bf16 extf/truncf into integer arithmetic";
  let description = [{
    LLVM lowers a `fptrunc` to `bfloat` on x86 to a call of
    `__truncsfbf2`, which the C runtime of this platform (libgcc 12) does not
    have. This pass applies upstream's bf16 expansion patterns alone
    (`arith::populateExpandBFloat16Patterns`: `arith.extf` from bf16 is a
    shift, `arith.truncf` to bf16 rounds to nearest even in integer
    arithmetic, NaN kept a NaN); `arith-expand{include-bf16}` would also
    rewrite every f32 `arith.maximumf` and `minimumf`. It runs after
    `arith-emulate-unsupported-floats{source-types=bf16}`, which leaves only
    extf/truncf on bf16.

    ```mlir
    %y = arith.truncf %x : f32 to bf16
    // becomes bitcasts, shifts, an add of the rounding bias and a select
    // for NaN
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def BoundBlockSize : Pass<"autodist-bound-block-size", "mlir::ModuleOp"> {
  let summary = "Cut long blocks of functions into chained blocks";
  let description = [{
    A training step lowers to one block of hundreds of thousands of ops.
    Dialect conversion inserts ops into that block one by one and asks for
    their order (`isBeforeInBlock`), which renumbers the whole block each
    time the numbering runs out of gaps: `convert-to-llvm` took 3x the time
    for 2x the blocks of a GPT. This pass cuts every block of a function
    body longer than `max-ops` into blocks of at most `max-ops` ops chained
    by `cf.br`. Values still dominate their uses (each piece is the only
    predecessor of the next), so no block arguments are needed.

    ```mlir
    func.func @f() {
      %a = "test.op"() : () -> i32
      cf.br ^bb1            // inserted with max-ops=1
    ^bb1:
      "test.use"(%a) : (i32) -> ()
      return
    }
    ```
  }];
  let options = [Option<"maxOps", "max-ops", "int64_t", "1000",
                        "The most ops in one block">];
  let dependentDialects = ["mlir::cf::ControlFlowDialect"];
}

def DeallocateBuffers : Pass<"autodist-deallocate-buffers",
                              "mlir::ModuleOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Runs after bufferization in place of upstream's
    `buffer-deallocation-pipeline`. A training step is one straight-line
    function with thousands of buffers. The upstream pipeline frees them
    all in one `bufferization.dealloc` at the end of the block (so the peak
    memory is every temporary of the step) and simplifies that op by
    comparing every pair of its buffers (quadratic: the largest share of a
    24-block GPT's lowering time).

    In a function whose body is one block holding all its `memref.alloc`
    ops, this pass puts `memref.dealloc` right after the last operation
    that uses the buffer or a view of it (through `ViewLikeOpInterface` and
    casts). It needs to know every alias: if a buffer or a view of it is
    returned, yielded or reaches an op that yields a memref without being a
    view, or if any function has control flow, it runs the upstream
    pipeline on the module instead.

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.fill ins(%c0 : f32) outs(%a : memref<4xf32>)
    memref.copy %a, %out : memref<4xf32> to memref<4xf32>
    memref.dealloc %a : memref<4xf32>   // inserted here
    ... // the rest of the step
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def StridedCopiesToLinalg : Pass<"autodist-strided-copies-to-linalg",
                                  "mlir::ModuleOp"> {
  let summary = "Copy non-contiguous memrefs with compiled loops";
  let description = [{
    `finalize-memref-to-llvm` turns a `memref.copy` between contiguous
    memrefs into `memcpy`, and any other into a call of the generic runtime
    function `memrefCopy`, which walks the elements one index computation
    at a time (13% of a LeNet training step). This pass rewrites those
    copies as `linalg.copy`, which `convert-linalg-to-loops` and LLVM turn
    into loops specialized to the shapes and strides.

    ```mlir
    memref.copy %a, %b : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
    // becomes
    linalg.copy ins(%a : memref<4x4xf32, strided<[8, 1]>>) outs(%b : memref<4x4xf32>)
    ```

    With `all-copies` (the cuda target), every ranked copy becomes a
    `linalg.copy`: a copy between device buffers must be a kernel, not a
    host `memcpy`.
  }];
  let options = [
    Option<"allCopies", "all-copies", "bool", "false",
           "rewrite every ranked copy, contiguous ones included">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ConvertLinalgToBlas : Pass<"convert-linalg-to-blas", "mlir::ModuleOp"> {
  let summary = "Replace f32 linalg contractions on memrefs by sgemm calls";
  let description = [{
    After bufferization, every f32 linalg contraction whose indexing maps
    are projected permutations (`linalg.matmul` with or without transposes,
    `linalg.contract` in batched, broadcast or batch-reduce form) becomes
    calls to the runtime's `autodist_rt_sgemm` (OpenBLAS) computing
    `C += op(A) * op(B)`: one (m, n, k) triple of its dims (those read
    innermost) forms the GEMM, every other dim an `scf.for` loop around the
    call on 2-D subviews. Example: `[B, M, K] x [K, N] -> [B, M, N]` is a
    loop over `B` of `M x K x N` GEMMs; a reduced batch dim (weight
    gradients) accumulates into the same `C`. When no loop reduces into `C`
    and the last write into `C` before the contraction is a fill with 0 (or
    a copy of a buffer only ever filled with 0, as bufferization makes of a
    fill that CSE shared between contractions), that fill or copy is
    dropped and the calls overwrite `C` (BLAS `beta = 0`).

    `bias-epilogue` (the cuda target): a 2-D contraction whose `C` was last
    written by a `linalg.generic` copying a 1-D vector into every row of `C`
    (a Gemm's bias, as `convert-nn-to-linalg` lowers it) becomes one
    `autodist_rt_sgemm_bias` (`gemm_bias_bf16/f16`) call, `C = op(A) *
    op(B) + bias`, and the broadcast is dropped: cuBLASLt adds the bias in
    its epilogue instead of a kernel writing `C` first.

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>,
                                     affine_map<(i, j) -> (i, j)>], ...}
        ins(%bias : memref<32xf32>) outs(%c : memref<?x32xf32>) {...}
    linalg.matmul ins(%x, %w : ...) outs(%c : memref<?x32xf32>)
    // becomes
    func.call @autodist_rt_sgemm_bias(%x', %w', %bias', %c', %false, %false,
                                      %one) : (...) -> ()
    ```
  }];
  let options = [
    Option<"biasEpilogue", "bias-epilogue", "bool", /*default=*/"false",
           "Fuse a bias broadcast into C with the GEMM (sgemm_bias)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// GPU lowering (the cuda target)
//===----------------------------------------------------------------------===//

def ParallelDimsOuter : Pass<"autodist-parallel-dims-outer",
                             "mlir::ModuleOp"> {
  let summary = "Interchange linalg loops so that parallel dims are outermost";
  let description = [{
    Runs on memrefs, before `convert-linalg-to-parallel-loops`, which makes
    the parallel dims of a linalg op an `scf.parallel` (a GPU grid) and its
    reduction dims `scf.for` loops, in loop order. A reduction dim before a
    parallel one (a bias gradient, `[batch, n] -> [n]`, reduces the batch
    first) would put the parallel loop inside a host `scf.for`: one kernel
    launch per batch row. This pass permutes every linalg op's loops so
    that its parallel dims come first, in their order, then its reduction
    dims: each output element is then one GPU thread that reduces serially.
    Named ops are generalized first where their order must change.

    ```mlir
    linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)],
                    iterator_types = ["reduction", "parallel"]} ...
    // becomes
    linalg.generic {indexing_maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0)],
                    iterator_types = ["parallel", "reduction"]} ...
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def HostAccessToKernels : Pass<"autodist-host-access-to-kernels",
                               "mlir::ModuleOp"> {
  let summary = "Move the memory accesses left outside parallel loops into "
                "one-iteration parallel loops";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`, before the parallel loops
    are mapped to the GPU. On the cuda target every buffer compiled code
    touches is device memory, which the host must not read or write. What
    is left at the top level of a function after the parallel loops (a full
    reduction's `scf.for`, the scalar arithmetic of a loss, a `memref.load`
    feeding a `memref.store`) is grouped into maximal runs of ops that read
    or write memrefs, with the pure ops computing from them, and each run
    becomes the body of an `scf.parallel` of one iteration: a one-thread
    kernel. A value such a run computes that is used outside it (a loop
    bound read from memory) cannot stay on the device: that is an error
    naming the op.

    ```mlir
    %v = memref.load %sum[] : memref<f32>
    %m = arith.divf %v, %n : f32
    memref.store %m, %loss[] : memref<f32>
    // becomes
    scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
      %v = memref.load %sum[] : memref<f32>
      %m = arith.divf %v, %n : f32
      memref.store %m, %loss[] : memref<f32>
    }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def InnermostDimFirst : Pass<"autodist-innermost-dim-first",
                             "mlir::ModuleOp"> {
  let summary = "Make each kernel loop's innermost dim its first";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`, before the tiling and
    `gpu-map-parallel-loops`, which give a parallel loop's first dim (tiled
    by 256) to consecutive threads and the others to blocks. Linalg's order
    puts the row-major innermost dim last, so consecutive threads would
    read addresses a row apart. This pass rotates every outermost
    multi-dim `scf.parallel` so that its last dim comes first (the others
    keep their order): consecutive threads then read consecutive elements.
    A last dim with a static trip count below 32 stays last (a warp would
    be mostly idle).

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c512) step (%c1, %c1) {...}
    // becomes
    scf.parallel (%j, %i) = (%c0, %c0) to (%c512, %n) step (%c1, %c1) {...}
    ```
  }];
}

def GuardKernelAsserts : Pass<"autodist-guard-kernel-asserts",
                              "mlir::ModuleOp"> {
  let summary = "Put each cf.assert of a parallel loop under an scf.if";
  let description = [{
    Runs before the parallel loops are mapped to the GPU.
    `convert-parallel-loops-to-gpu` leaves a loop whose body holds a
    `cf.assert` directly unconverted (a Gather's index check), while one
    nested in an `scf.if` converts. Each such assert runs under the
    condition that it fails, which is also the cheaper form in a kernel:

    ```mlir
    cf.assert %ok, "Gather: index out of range"
    // becomes
    %bad = arith.xori %ok, %true : i1
    scf.if %bad {
      cf.assert %ok, "Gather: index out of range"
    }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def CheckDeviceAccesses : Pass<"autodist-check-device-accesses",
                               "mlir::ModuleOp"> {
  let summary = "Fail on a memory access the GPU mapping left on the host";
  let description = [{
    Runs after `convert-parallel-loops-to-gpu`: every read or write of a
    buffer must now be inside a `gpu.launch`. An `scf.parallel` the mapping
    could not convert (a loop bound it cannot derive), or an access outside
    any kernel, would make the host touch device memory (a crash at run
    time): this pass makes it a compile-time error on the op instead.
  }];
}

def EmitRuntimeABI : Pass<"autodist-emit-abi", "mlir::ModuleOp"> {
  let summary = "Emit the packed entry points and the manifest global";
  let description = [{
    Runs on the LLVM dialect. For each exported function `f` with a C
    interface, adds `autodist_f(ptr %args)` that loads the descriptor
    pointers from the array `%args` and calls `_mlir_ciface_f`; turns the
    `autodist.manifest` module attribute into the NUL-terminated global
    `autodist_manifest` (docs/abi.md); drops the `nn.*` and `dist.*` argument tags.
    An entry point without loops (all its nests were outlined by
    `autodist-outline-loops`) is marked `optnone`: it only sequences calls,
    and LLVM's optimizations of it would cost compile time that grows with
    the layers for no speed.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // AUTODIST_PASSES
