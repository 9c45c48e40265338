//===- DistOps.td - dist dialect ops -----------------------*- tablegen -*-===//

#ifndef AUTODIST_DIST_OPS
#define AUTODIST_DIST_OPS

include "dist/DistDialect.td"
include "dist/DistAttrs.td"
include "dist/DistTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

// A collective over a bucket of tensors: one result per operand, of the
// operand's type (for dist.all_reduce: per input, then per state operand).
class Dist_BucketOp<string mnemonic, list<Trait> traits = []>
    : Dist_Op<mnemonic, !listconcat(
          [DeclareOpInterfaceMethods<InferTypeOpInterface>], traits)> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr,
        ::mlir::OpaqueProperties, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      ::llvm::append_range(results, operands.getTypes());
      return ::mlir::success();
    }
  }];
}

def Dist_AllReduceOp : Dist_BucketOp<"all_reduce",
                                        [AttrSizedOperandSegments]> {
  let summary = "All-reduce a bucket of tensors over all ranks";
  let description = [{
    Combines each operand over all ranks with `kind` (`sum` or `mean`) and
    returns the combined tensors, in operand order. All operands form one
    bucket: they travel together in a single collective. Every rank must
    execute the same all-reduces in the same order (SPMD).

    `compressor` says how the bucket travels (docs/design.md,
    "Compression"): `none` as f32; `fp16` as IEEE half: every rank's
    contribution is rounded to half and the halves are summed in f32, in
    rank order, identically on every rank; `fp16_ef` like `fp16` with error
    feedback: each rank adds the rounding error it kept from the previous
    step of this bucket before rounding, and keeps the new one. `powersgd`
    (with `powersgd_rank` r >= 1) reduces each operand of rank >= 2, viewed
    as a matrix (first dimension x the rest), as its rank-r PowerSGD
    approximation with error feedback; operands of rank < 2 travel
    uncompressed.

    The compressors with error feedback keep state across steps, per rank:
    `state` (added by dist-compressor-state, which makes it state of the
    train step) is its value before this step, and the op returns its new
    value after the combined tensors. `fp16_ef` has one state tensor, the
    residual (as many elements as the bucket); `powersgd`, over one matrix
    of M x N elements (dist-split-powersgd), two: the residual (M * N) and
    Q (N * min(r, M, N)), each 1-D.

    ```mlir
    %g:2 = dist.all_reduce mean %gw, %gb {group = 0 : i64}
        : tensor<32x64xf32>, tensor<32xf32>
    %h = dist.all_reduce mean %gw {compressor = #dist.compressor<fp16>}
        : tensor<32x64xf32>
    %e:2 = dist.all_reduce mean %gw state(%res : tensor<2048xf32>)
        {compressor = #dist.compressor<fp16_ef>} : tensor<32x64xf32>
    %p:3 = dist.all_reduce mean %gw
        state(%pres, %q : tensor<2048xf32>, tensor<256xf32>)
        {compressor = #dist.compressor<powersgd>, powersgd_rank = 4 : i64}
        : tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Variadic<RankedTensorOf<[F32]>>:$inputs,
                   Variadic<RankedTensorOf<[F32]>>:$state,
                   Dist_ReductionKind:$kind,
                   DefaultValuedAttr<I64Attr, "0">:$group,
                   DefaultValuedAttr<Dist_CompressorAttr,
                       "::autodist::dist::Compressor::None">:$compressor,
                   DefaultValuedAttr<I64Attr, "0">:$powersgd_rank);
  // The combined tensors, then the new state.
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$results);
  let assemblyFormat = [{
    $kind $inputs (`state` `(` $state^ `:` type($state) `)`)? attr-dict
    `:` type($inputs)
  }];
  let extraClassDeclaration = [{
    /// The combined tensors, one per input.
    ::mlir::ResultRange getReduced() {
      return getResults().take_front(getInputs().size());
    }
    /// The compressor state after this step, one per `state` operand.
    ::mlir::ResultRange getNewState() {
      return getResults().drop_front(getInputs().size());
    }
    /// The element counts of the state the compressor keeps across steps
    /// for this bucket (fp16_ef: the residual; powersgd: the residual and
    /// Q), empty for none. Needs static shapes and, for powersgd, one
    /// matrix (dist-split-powersgd's form).
    ::llvm::SmallVector<int64_t> getStateSizes();
    ::llvm::LogicalResult verifyState();
  }];
  let hasVerifier = 1;
}

def Dist_ReduceOp : Dist_BucketOp<"reduce"> {
  let summary = "Reduce a bucket of tensors to the rank of one device";
  let description = [{
    The push of a parameter server: combines each operand over all ranks
    with `kind` and delivers the combined tensors to the rank that owns
    device `root` (a device of the module's `dist.cluster`; the runtime maps
    devices to ranks, docs/abi.md). On every other rank the results are
    unspecified (a partial combination): a program must only let them reach
    its outputs through a `dist.broadcast` from the same root. With
    `local_replication` the operands are first combined within each node's
    ranks and one proxy per node sends the node's partial result to the root.
    All operands form one bucket (one collective); every rank executes the
    same collectives in the same order (SPMD).

    ```mlir
    %g:2 = dist.reduce mean %gw, %gb {root = "localhost:CPU:1"}
        : tensor<32x64xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Variadic<RankedTensorOf<[F32]>>:$inputs,
                   Dist_ReductionKind:$kind, StrAttr:$root,
                   UnitAttr:$local_replication);
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$results);
  let assemblyFormat = "$kind $inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Dist_BroadcastOp : Dist_BucketOp<"broadcast"> {
  let summary = "Broadcast a bucket of tensors from the rank of one device";
  let description = [{
    The pull of a parameter server: every rank receives the operands of the
    rank that owns device `root` (see `dist.reduce`); the operands of other
    ranks are ignored. With `local_replication` the root sends to one proxy
    per node, which forwards to the other ranks of its node. All operands
    form one bucket (one collective).

    ```mlir
    %p:2 = dist.broadcast %w1, %b1 {root = "localhost:CPU:1"}
        : tensor<32x64xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Variadic<RankedTensorOf<[F32]>>:$inputs, StrAttr:$root,
                   UnitAttr:$local_replication);
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$results);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Dist_AllReduceStartOp : Dist_Op<"all_reduce_start"> {
  let summary = "Start an all-reduce of a bucket without waiting for it";
  let description = [{
    The asynchronous form of `dist.all_reduce`: starts combining the bucket
    `inputs` over all ranks with `kind` and returns at once a future of the
    combined tensors, which `dist.wait` completes. What runs between the two
    overlaps the communication (dist-overlap-collectives places them). The
    collective is the same as the blocking one: every rank starts the same
    all-reduces in the same order, and the waited results equal
    `dist.all_reduce`'s bit for bit. A compressed bucket has no
    asynchronous form yet (the runtime compresses, reduces and decompresses
    in one call).

    ```mlir
    %f = dist.all_reduce_start mean %gw, %gb {group = 0 : i64}
        : tensor<32x64xf32>, tensor<32xf32>
        -> !dist.future<tensor<32x64xf32>, tensor<32xf32>>
    ```
  }];
  let arguments = (ins Variadic<RankedTensorOf<[F32]>>:$inputs,
                   Dist_ReductionKind:$kind,
                   DefaultValuedAttr<I64Attr, "0">:$group);
  let results = (outs Dist_FutureType:$future);
  let assemblyFormat =
      "$kind $inputs attr-dict `:` type($inputs) `->` qualified(type($future))";
  let hasVerifier = 1;
}

def Dist_WaitOp : Dist_Op<"wait",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Wait for a collective in flight and return its tensors";
  let description = [{
    Completes the collective that produced `future` and returns its tensors,
    of the types the future names. A future is waited exactly once.

    ```mlir
    %g:2 = dist.wait %f : !dist.future<tensor<32x64xf32>, tensor<32xf32>>
    ```
  }];
  let arguments = (ins Dist_FutureType:$future);
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$results);
  let assemblyFormat = "$future attr-dict `:` qualified(type($future))";
  let hasVerifier = 1;
}

#endif // AUTODIST_DIST_OPS
