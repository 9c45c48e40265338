//===- DistToRuntime.cpp - dist collectives to runtime calls --------------===//
//
// A bucket collective (all-reduce, reduce to a root, broadcast from a root)
// becomes one contiguous buffer, one in-place call into the runtime
// (`_mlir_ciface_autodist_rt_{allreduce,reduce,broadcast}_f32`, docs/abi.md;
// a compressed all-reduce calls `autodist_rt_allreduce_<compressor>_f32`)
// and slices back to the operand shapes. A started all-reduce
// (`dist.all_reduce_start`, placed by dist-overlap-collectives) calls
// `autodist_rt_allreduce_start_f32` where it stands and
// `autodist_rt_allreduce_wait_f32` where its `dist.wait` stands.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "autodist/runtime/AbiNames.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_CONVERTDISTTORUNTIME
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

constexpr StringLiteral kAllReduceFn = abi::kAllReduce;
constexpr StringLiteral kAllReduceFp16Fn = abi::kAllReduceFp16;
constexpr StringLiteral kAllReduceFp16EFFn = abi::kAllReduceFp16EF;
constexpr StringLiteral kAllReducePowerSGDFn = abi::kAllReducePowerSGD;
constexpr StringLiteral kAllReduceStartFn = abi::kAllReduceStart;
constexpr StringLiteral kAllReduceWaitFn = abi::kAllReduceWait;
constexpr StringLiteral kReduceFn = abi::kReduce;
constexpr StringLiteral kBroadcastFn = abi::kBroadcast;

/// Declares `name(argTypes)` with a C interface, once per module.
func::FuncOp declareRuntimeFn(ModuleOp module, StringRef name,
                              TypeRange argTypes, TypeRange resultTypes = {}) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                b.getFunctionType(argTypes, resultTypes));
  f.setPrivate();
  f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return f;
}

/// `v` (static shape) as a 1-D tensor.
Value flatten(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
  if (t.getRank() == 1)
    return v;
  if (t.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flat, v,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all(t.getRank());
  std::iota(all.begin(), all.end(), 0);
  return tensor::CollapseShapeOp::create(b, loc, flat, v,
                                         ArrayRef<ReassociationIndices>{all});
}

/// The inverse of `flatten`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType t) {
  if (t.getRank() == 1)
    return flat;
  if (t.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, t, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all(t.getRank());
  std::iota(all.begin(), all.end(), 0);
  return tensor::ExpandShapeOp::create(b, loc, t, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

/// The numel of the bucket of `types` (static shapes), or -1.
int64_t bucketSize(TypeRange types) {
  int64_t n = 0;
  for (Type t : types) {
    auto r = cast<RankedTensorType>(t);
    if (!r.hasStaticShape())
      return -1;
    n += r.getNumElements();
  }
  return n;
}

/// Buckets are packed at fixed offsets: every operand has a static shape.
LogicalResult checkStaticBucket(Operation *op, ValueRange inputs) {
  for (Value v : inputs)
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op->emitOpError("operand of dynamic shape ")
             << v.getType() << " cannot be bucketed";
  return success();
}

/// Copies the operands of a bucket collective, flattened, one after the
/// other into `dest` (a 1-D f32 buffer of their total size): each is read
/// where it is (a read-only view of its buffer) and written once, where a
/// tensor.concat would be materialized in a buffer of its own first. The
/// operands have static shapes (checkStaticBucket).
void packInto(OpBuilder &b, Operation *op, ValueRange inputs, Value dest) {
  Location loc = op->getLoc();
  int64_t offset = 0;
  for (Value v : inputs) {
    Value flat = flatten(b, loc, v);
    int64_t n = cast<RankedTensorType>(flat.getType()).getNumElements();
    Value src = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get({n}, b.getF32Type()), flat,
        /*readOnly=*/true);
    Value to = dest;
    if (inputs.size() > 1)
      to = memref::SubViewOp::create(
          b, loc, dest, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(n)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    memref::CopyOp::create(b, loc, src, to);
    offset += n;
  }
}

/// The operands of a bucket collective packed into a fresh buffer that the
/// runtime works on in place (their own buffers may be shared).
FailureOr<Value> packBucket(OpBuilder &b, Operation *op, ValueRange inputs) {
  if (failed(checkStaticBucket(op, inputs)))
    return failure();
  Value buf = memref::AllocOp::create(
      b, op->getLoc(),
      MemRefType::get({bucketSize(inputs.getTypes())}, b.getF32Type()));
  packInto(b, op, inputs, buf);
  return buf;
}

/// `buf` as the 1-D dynamic memref the runtime's C ABI takes.
Value dynamicView(OpBuilder &b, Location loc, Value buf) {
  auto dynType = MemRefType::get({ShapedType::kDynamic}, b.getF32Type());
  return memref::CastOp::create(b, loc, dynType, buf);
}

/// i32 constants for the scalar arguments of a runtime call.
SmallVector<Value> i32Constants(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> scalars) {
  SmallVector<Value> out;
  for (int64_t v : scalars)
    out.push_back(arith::ConstantIntOp::create(b, loc, v, 32));
  return out;
}

/// Replaces the results of `op` by the reduced bucket in `buf`, sliced back
/// to `types`, followed by `extra` (results of `op` beyond the bucket).
void unpackBucket(IRRewriter &b, Operation *op, TypeRange types, Value buf,
                  ValueRange extra = {}) {
  Location loc = op->getLoc();
  auto bufType = cast<MemRefType>(buf.getType());
  auto bucketType =
      RankedTensorType::get(bufType.getShape(), bufType.getElementType());
  Value done = bufferization::ToTensorOp::create(b, loc, bucketType, buf,
                                                 /*restrict=*/true,
                                                 /*writable=*/true);
  SmallVector<Value> results;
  int64_t offset = 0;
  for (Type type : types) {
    auto t = cast<RankedTensorType>(type);
    Value slice = done;
    if (types.size() > 1)
      slice = tensor::ExtractSliceOp::create(
          b, loc, done, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(t.getNumElements())},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    results.push_back(unflatten(b, loc, slice, t));
    offset += t.getNumElements();
  }
  llvm::append_range(results, extra);
  b.replaceOp(op, results);
}

/// Replaces the bucket collective `op` by its packed bucket, one in-place
/// call `fn(buffer, state..., scalars...)` (i32 scalars), and slices of the
/// buffer back to the operand shapes. Each `state` tensor (1-D, the
/// compressor's state before the step) is copied into a buffer of its own
/// that the call updates in place: its new value, the results of `op`
/// after the bucket's.
LogicalResult lowerBucket(ModuleOp module, Operation *op, ValueRange inputs,
                          StringRef fn, ArrayRef<int64_t> scalars,
                          ValueRange state = {}) {
  IRRewriter b(op);
  Location loc = op->getLoc();
  FailureOr<Value> buf = packBucket(b, op, inputs);
  if (failed(buf))
    return failure();
  SmallVector<Value> constants = i32Constants(b, loc, scalars);
  SmallVector<Value> args = {dynamicView(b, loc, *buf)};
  SmallVector<Value> stateBufs;
  for (Value v : state) {
    FailureOr<Value> s = packBucket(b, op, v);
    if (failed(s))
      return failure();
    stateBufs.push_back(*s);
    args.push_back(dynamicView(b, loc, *s));
  }
  llvm::append_range(args, constants);
  func::FuncOp callee =
      declareRuntimeFn(module, fn, ValueRange(args).getTypes());
  func::CallOp::create(b, loc, callee, args);
  SmallVector<Value> newState;
  for (auto [v, s] : llvm::zip(state, stateBufs))
    newState.push_back(bufferization::ToTensorOp::create(
        b, loc, v.getType(), s, /*restrict=*/true, /*writable=*/true));
  unpackBucket(b, op, inputs.getTypes(), *buf, newState);
  return success();
}

/// A started all-reduce as lowered: its bucket's buffer (as the runtime's
/// view of it) and the runtime's handle.
struct Started {
  Value view, buffer, handle;
  dist::ReductionKind kind;
};

/// Packs the bucket of `start` and calls the runtime's start where `start`
/// stands; the bucket's buffer then belongs to the collective until the
/// wait, which takes it (keeping it alive and untouched until then).
FailureOr<Started> lowerAllReduceStart(ModuleOp module,
                                       dist::AllReduceStartOp start) {
  IRRewriter b(start);
  Location loc = start.getLoc();
  FailureOr<Value> buf = packBucket(b, start, start.getInputs());
  if (failed(buf))
    return failure();
  Value view = dynamicView(b, loc, *buf);
  func::FuncOp fn = declareRuntimeFn(module, kAllReduceStartFn,
                                     {view.getType()}, {b.getI32Type()});
  Value handle = func::CallOp::create(b, loc, fn, view).getResult(0);
  // Declared with its start, so the runtime functions keep one order.
  declareRuntimeFn(module, kAllReduceWaitFn,
                   {view.getType(), b.getI32Type(), b.getI32Type()});
  return Started{view, *buf, handle, start.getKind()};
}

/// Calls the runtime's wait where `wait` stands and replaces `wait` by
/// slices of the bucket's buffer.
void lowerWait(ModuleOp module, dist::WaitOp wait, const Started &s) {
  IRRewriter b(wait);
  Location loc = wait.getLoc();
  SmallVector<Value> args = {s.view, s.handle};
  llvm::append_range(args, i32Constants(b, loc, static_cast<int64_t>(s.kind)));
  func::FuncOp fn =
      declareRuntimeFn(module, kAllReduceWaitFn, ValueRange(args).getTypes());
  func::CallOp::create(b, loc, fn, args);
  unpackBucket(b, wait, wait.getResultTypes(), s.buffer);
}

/// The index of device `root` in the module's cluster (docs/abi.md: the
/// runtime maps device indices to ranks).
FailureOr<int64_t> deviceIndex(ModuleOp module, Operation *op, StringRef root) {
  auto cluster = module->getAttrOfType<dist::ClusterAttr>("dist.cluster");
  if (!cluster)
    cluster = dist::ClusterAttr::getLocal(module.getContext());
  SmallVector<std::string> devices = cluster.devices();
  auto it = llvm::find(devices, root);
  if (it == devices.end())
    return op->emitOpError("root device '")
           << root << "' is not a device of the cluster";
  return it - devices.begin();
}

/// A compressed all-reduce calls its compressor's runtime function; one with
/// error feedback passes its state (dist-compressor-state: fp16_ef the
/// residual; PowerSGD the residual and Q) for the runtime to update in
/// place. PowerSGD takes one matrix (dist-split-powersgd), passed as rows =
/// first dimension, cols = the rest.
LogicalResult lowerAllReduce(ModuleOp module, dist::AllReduceOp ar) {
  int64_t kind = static_cast<int64_t>(ar.getKind());
  dist::Compressor c = ar.getCompressor();
  if ((c == dist::Compressor::FP16EF || c == dist::Compressor::PowerSGD) &&
      ar.getState().empty())
    return ar.emitOpError("compressor '")
           << dist::stringifyCompressor(c)
           << "' keeps state across steps, which the op does not carry (run "
              "dist-compressor-state first)";
  switch (c) {
  case dist::Compressor::None:
    return lowerBucket(module, ar, ar.getInputs(), kAllReduceFn, {kind});
  case dist::Compressor::FP16:
    return lowerBucket(module, ar, ar.getInputs(), kAllReduceFp16Fn, {kind});
  case dist::Compressor::FP16EF:
    return lowerBucket(module, ar, ar.getInputs(), kAllReduceFp16EFFn, {kind},
                       ar.getState());
  case dist::Compressor::PowerSGD:
    break;
  }
  auto t = cast<RankedTensorType>(ar.getInputs().front().getType());
  int64_t rows = t.getDimSize(0), cols = t.getNumElements() / rows;
  return lowerBucket(
      module, ar, ar.getInputs(), kAllReducePowerSGDFn,
      {kind, rows, cols, static_cast<int64_t>(ar.getPowersgdRank())},
      ar.getState());
}

/// A future that crosses steps (dist-staleness-pipeline): the argument the
/// step waits for and the result it starts, tagged with one name.
struct Inflight {
  unsigned arg; // the future argument
  dist::WaitOp wait;
  dist::AllReduceStartOp start;
  unsigned result; // the future result
};

/// Lowers the futures that cross steps of `func` (docs/abi.md, "In-flight
/// state"): each becomes a buffer argument the step owns across steps (the
/// collective of step t runs in it until step t + 1 waits) and a handle
/// argument (i64, 0 = nothing in flight), and its result the new handle.
/// The wait copies the buffer out; the start then packs the new bucket
/// into it.
LogicalResult lowerInflight(ModuleOp module, func::FuncOp func) {
  llvm::StringMap<Inflight> byName;
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    if (!isa<dist::FutureType>(func.getArgument(i).getType()))
      continue;
    auto name = func.getArgAttrOfType<StringAttr>(i, "dist.inflight");
    BlockArgument arg = func.getArgument(i);
    auto wait = arg.hasOneUse() ? dyn_cast<dist::WaitOp>(*arg.user_begin())
                                : dist::WaitOp();
    if (!name || !wait || wait->getBlock() != &body)
      return func.emitOpError("future argument #")
             << i << " must be tagged dist.inflight and waited for once in "
             << "the function's body";
    byName[name.getValue()] = Inflight{i, wait, {}, 0};
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    if (!isa<dist::FutureType>(func.getResultTypes()[i]))
      continue;
    auto name = func.getResultAttrOfType<StringAttr>(i, "dist.inflight");
    Value v = ret->getOperand(i);
    auto start = v.getDefiningOp<dist::AllReduceStartOp>();
    auto it = name ? byName.find(name.getValue()) : byName.end();
    if (it == byName.end() || !start || !v.hasOneUse() ||
        start->getBlock() != &body)
      return func.emitOpError("future result #")
             << i << " must be started in the function's body, returned "
             << "only, and tagged dist.inflight like a future argument";
    if (!it->second.wait->isBeforeInBlock(start))
      return start.emitOpError("starts in-flight state '")
             << name.getValue() << "' before the step waits for its "
             << "previous value (they share one buffer)";
    if (start.getFuture().getType() !=
        func.getArgument(it->second.arg).getType())
      return start.emitOpError("in-flight state '")
             << name.getValue() << "' changes type across steps";
    it->second.start = start;
    it->second.result = i;
  }
  if (byName.empty())
    return success();
  OpBuilder b(module.getContext());
  auto i64Scalar = RankedTensorType::get({}, b.getI64Type());
  // From the last argument back, so that earlier indices stay valid.
  SmallVector<std::pair<StringRef, Inflight *>> order;
  for (auto &entry : byName)
    order.push_back({entry.first(), &entry.second});
  llvm::sort(order,
             [](auto &x, auto &y) { return x.second->arg > y.second->arg; });
  for (auto [name, fp] : order) {
    Inflight &f = *fp;
    if (!f.start)
      return func.emitOpError("in-flight state '")
             << name << "' is waited for but never started again";
    int64_t n = bucketSize(f.wait.getResultTypes());
    if (n < 0)
      return f.wait.emitOpError("in-flight state of dynamic shape");
    auto bufType = MemRefType::get({n}, b.getF32Type());
    Location loc = f.wait.getLoc();
    unsigned at = f.arg + 1;
    (void)func.insertArgument(
        at, bufType,
        b.getDictionaryAttr(
            b.getNamedAttr("dist.inflight_buffer", b.getStringAttr(name))),
        loc);
    (void)func.insertArgument(
        at + 1, i64Scalar,
        b.getDictionaryAttr(
            b.getNamedAttr("dist.inflight_handle", b.getStringAttr(name))),
        loc);
    Value buffer = func.getArgument(at), handle = func.getArgument(at + 1);

    // The wait: complete the previous step's collective, copy it out.
    IRRewriter r(f.wait);
    Value view = dynamicView(r, loc, buffer);
    Value h64 = tensor::ExtractOp::create(r, loc, handle, ValueRange{});
    Value h = arith::TruncIOp::create(r, loc, r.getI32Type(), h64);
    SmallVector<Value> args = {view, h};
    llvm::append_range(
        args, i32Constants(r, loc, static_cast<int64_t>(f.start.getKind())));
    func::FuncOp waitFn =
        declareRuntimeFn(module, kAllReduceWaitFn, ValueRange(args).getTypes());
    func::CallOp::create(r, loc, waitFn, args);
    Value copy = memref::AllocOp::create(r, loc, bufType);
    memref::CopyOp::create(r, loc, buffer, copy);
    unpackBucket(r, f.wait, f.wait.getResultTypes(), copy);

    // The start: this step's bucket into the buffer, started in place.
    r.setInsertionPoint(f.start);
    packInto(r, f.start, f.start.getInputs(), buffer);
    func::FuncOp startFn = declareRuntimeFn(module, kAllReduceStartFn,
                                            {view.getType()}, {r.getI32Type()});
    Value started = func::CallOp::create(r, loc, startFn, view).getResult(0);
    Value wide = arith::ExtSIOp::create(r, loc, r.getI64Type(), started);
    Value out = tensor::FromElementsOp::create(r, loc, i64Scalar, wide);
    ret->setOperand(f.result, out);
    f.start.erase();
    if (failed(func.eraseArgument(f.arg))) // unused now
      return failure();
  }
  // Results change type in place.
  func.setType(
      b.getFunctionType(func.getArgumentTypes(), ret->getOperandTypes()));
  return success();
}

/// Lowers one collective; a started all-reduce is remembered in `started`
/// until its wait.
LogicalResult lower(ModuleOp module, Operation *op,
                    DenseMap<Value, Started> &started) {
  if (auto ar = dyn_cast<dist::AllReduceOp>(op))
    return lowerAllReduce(module, ar);
  if (auto start = dyn_cast<dist::AllReduceStartOp>(op)) {
    FailureOr<Started> s = lowerAllReduceStart(module, start);
    if (failed(s))
      return failure();
    started[start.getFuture()] = *s;
    return success();
  }
  if (auto wait = dyn_cast<dist::WaitOp>(op)) {
    auto it = started.find(wait.getFuture());
    auto start = wait.getFuture().getDefiningOp<dist::AllReduceStartOp>();
    if (it == started.end() || !start || start->getBlock() != wait->getBlock())
      return wait.emitOpError(
          "waits for a future that is not started in its block (a future "
          "that crosses blocks or functions cannot be lowered yet)");
    lowerWait(module, wait, it->second); // replaces (erases) the wait
    started.erase(it);
    if (!start.getFuture().use_empty())
      return start.emitOpError("its future is used by more than its "
                               "dist.wait, which cannot be lowered yet");
    start.erase();
    return success();
  }
  if (auto r = dyn_cast<dist::ReduceOp>(op)) {
    FailureOr<int64_t> root = deviceIndex(module, op, r.getRoot());
    if (failed(root))
      return failure();
    return lowerBucket(
        module, op, r.getInputs(), kReduceFn,
        {static_cast<int64_t>(r.getKind()), *root, r.getLocalReplication()});
  }
  auto bc = cast<dist::BroadcastOp>(op);
  FailureOr<int64_t> root = deviceIndex(module, op, bc.getRoot());
  if (failed(root))
    return failure();
  return lowerBucket(module, op, bc.getInputs(), kBroadcastFn,
                     {*root, bc.getLocalReplication()});
}

struct ConvertDistToRuntimePass
    : public autodist::impl::ConvertDistToRuntimeBase<
          ConvertDistToRuntimePass> {
  using ConvertDistToRuntimeBase::ConvertDistToRuntimeBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (!func.isExternal() && failed(lowerInflight(module, func)))
        return signalPassFailure();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<dist::AllReduceOp, dist::AllReduceStartOp, dist::WaitOp,
              dist::ReduceOp, dist::BroadcastOp>(op))
        ops.push_back(op);
    });
    DenseMap<Value, Started> started;
    for (Operation *op : ops)
      if (failed(lower(module, op, started)))
        return signalPassFailure();
    // A collective started and never completed would leave the runtime
    // with a request in flight at the end of the step.
    for (auto &entry : started) {
      entry.first.getDefiningOp()->emitOpError(
          "starts a collective that is never waited for in its block");
      return signalPassFailure();
    }
  }
};

} // namespace
