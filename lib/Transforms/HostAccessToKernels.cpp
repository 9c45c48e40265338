//===- HostAccessToKernels.cpp - memory accesses left on the host ---------===//
//
// On the cuda target the buffers of compiled code are device memory: after
// convert-linalg-to-parallel-loops, whatever still reads or writes them
// outside an scf.parallel (a full reduction's scf.for, a loss's scalar
// arithmetic, a rank-0 copy) would be a host access. Each maximal run of
// such ops becomes a one-iteration scf.parallel, i.e. a one-thread kernel.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "autodist/runtime/AbiNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace autodist {
#define GEN_PASS_DEF_HOSTACCESSTOKERNELS
#define GEN_PASS_DEF_CHECKDEVICEACCESSES
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// An op only the host can run: a call (runtime functions take the buffers
/// themselves), an allocation.
bool isHostOnly(Operation *op) {
  return isa<func::CallOp, memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
             func::ReturnOp>(op);
}

/// Whether `op` reads or writes buffer contents.
bool isAccess(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
             memref::CopyOp>(op);
}

enum class Kind {
  /// Runs on the device: an access, or a loop/if over accesses only.
  Device,
  /// Host control flow around host-only ops: its regions are visited.
  HostRegions,
  /// Anything else at the host level.
  Host
};

Kind classify(Operation *op) {
  if (isAccess(op))
    return Kind::Device;
  // A parallel loop at the host level is a kernel already.
  if (op->getNumRegions() == 0 || isHostOnly(op) || isa<scf::ParallelOp>(op))
    return Kind::Host;
  if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op))
    return Kind::Host;
  bool access = false, hostOnly = false;
  op->walk([&](Operation *inner) {
    access |= isAccess(inner);
    hostOnly |= inner != op && isHostOnly(inner);
  });
  if (hostOnly)
    return Kind::HostRegions;
  return access ? Kind::Device : Kind::Host;
}

/// Whether `op` is inside a parallel loop (a kernel, after this pass).
bool inKernel(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() != nullptr;
}

struct HostAccessToKernelsPass
    : public autodist::impl::HostAccessToKernelsBase<HostAccessToKernelsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) {
      if (f.isExternal())
        return;
      deviceValues.clear();
      kernels.clear();
      visitBlock(f.getBody().front());
      for (scf::ParallelOp k : kernels)
        if (failed(passEscapes(k)))
          return signalPassFailure();
    });
  }

  /// Wraps the runs of device ops of `block`, recursing into host control
  /// flow.
  void visitBlock(Block &block) {
    llvm::SetVector<Operation *> group;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      Kind kind = classify(&op);
      bool joins = kind == Kind::Device;
      // Pure arithmetic on a value computed on the device runs there too
      // (cf.assert too: it checks such a value).
      if (!joins && (isMemoryEffectFree(&op) || isa<cf::AssertOp>(&op)) &&
          op.getNumRegions() == 0)
        joins = llvm::any_of(op.getOperands(),
                             [&](Value v) { return deviceValues.contains(v); });
      if (joins) {
        group.insert(&op);
        deviceValues.insert(op.getResults().begin(), op.getResults().end());
        continue;
      }
      // Pure ops independent of the run stay on the host, before it.
      if (isMemoryEffectFree(&op) && op.getNumRegions() == 0)
        continue;
      wrap(group);
      group.clear();
      if (kind == Kind::HostRegions)
        for (Region &r : op.getRegions())
          for (Block &b : r)
            visitBlock(b);
    }
    wrap(group);
  }

  /// Moves `group` (in block order) into a one-iteration scf.parallel after
  /// its last op.
  void wrap(const llvm::SetVector<Operation *> &group) {
    if (group.empty())
      return;
    // A parallel loop inside the run (a scatter's row update, in a serial
    // loop over the rows) runs in the run's one thread.
    SmallVector<scf::ParallelOp> nested;
    for (Operation *op : group)
      op->walk([&](scf::ParallelOp p) { nested.push_back(p); });
    for (scf::ParallelOp p : nested)
      serialize(p);
    Operation *last = group.back();
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    Location loc = group.front()->getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{one}, ValueRange{one});
    Operation *terminator = loop.getBody()->getTerminator();
    for (Operation *op : group)
      op->moveBefore(terminator);
    kernels.push_back(loop);
  }

  /// Passes the scalars kernel `k` computes for later code through device
  /// buffers: a later kernel loads them; the host reads them with the
  /// runtime's autodist_rt_read_i64 (a copy from the device, which waits for
  /// it). A buffer (a view computed from device data) cannot be passed.
  LogicalResult passEscapes(scf::ParallelOp k) {
    for (Operation &op : k.getBody()->without_terminator())
      for (Value r : op.getResults()) {
        SmallVector<OpOperand *> device, host;
        for (OpOperand &use : r.getUses())
          if (!k->isAncestor(use.getOwner()))
            (inKernel(use.getOwner()) ? device : host).push_back(&use);
        if (device.empty() && host.empty())
          continue;
        if (isa<BaseMemRefType>(r.getType()))
          return atLevelOf(k,
                           (device.empty() ? host : device).front()->getOwner())
                     ->emitOpError("uses a view computed from device memory "
                                   "outside the kernel that computes it (")
                 << op.getName() << " at " << op.getLoc() << ")";
        if (!device.empty())
          passToKernels(k, r, device);
        if (!host.empty() && failed(passToHost(k, op, r, host)))
          return failure();
      }
    return success();
  }

  /// `op`'s ancestor in `k`'s block (the kernel or host op using a value of
  /// `k`), or `op` itself.
  static Operation *atLevelOf(scf::ParallelOp k, Operation *op) {
    for (Operation *at = op; at; at = at->getParentOp())
      if (at->getBlock() == k->getBlock())
        return at;
    return op;
  }

  /// A device buffer of `type`, allocated before `k` and freed at the end
  /// of its block; `v` stored into it at the end of `k`'s body.
  Value spill(scf::ParallelOp k, Value v) {
    OpBuilder b(k);
    Location loc = v.getLoc();
    auto type = MemRefType::get({}, v.getType());
    Value buffer = memref::AllocOp::create(b, loc, type);
    b.setInsertionPoint(k.getBody()->getTerminator());
    memref::StoreOp::create(b, loc, v, buffer);
    b.setInsertionPoint(k->getBlock()->getTerminator());
    memref::DeallocOp::create(b, loc, buffer);
    return buffer;
  }

  void passToKernels(scf::ParallelOp k, Value v, ArrayRef<OpOperand *> uses) {
    Value buffer = spill(k, v);
    for (OpOperand *use : uses) {
      OpBuilder b(use->getOwner());
      use->set(memref::LoadOp::create(b, v.getLoc(), buffer));
    }
  }

  LogicalResult passToHost(scf::ParallelOp k, Operation &op, Value v,
                           ArrayRef<OpOperand *> uses) {
    Type type = v.getType();
    auto intType = dyn_cast<IntegerType>(type);
    if (!type.isIndex() && !(intType && intType.getWidth() <= 64))
      return uses.front()->getOwner()->emitOpError(
                 "reads a value the cuda target computes in device memory on "
                 "the host (")
             << op.getName() << " at " << op.getLoc()
             << "): only integers and indices can be read back";
    // In the kernel: widened to i64.
    OpBuilder b(k.getBody()->getTerminator());
    Location loc = v.getLoc();
    Type i64 = b.getI64Type();
    Value wide = v;
    if (type.isIndex())
      wide = arith::IndexCastOp::create(b, loc, i64, v);
    else if (intType.getWidth() < 64)
      wide = arith::ExtSIOp::create(b, loc, i64, v);
    Value buffer = spill(k, wide);
    func::FuncOp read = readFunction(k->getParentOfType<ModuleOp>());
    for (OpOperand *use : uses) {
      b.setInsertionPoint(use->getOwner());
      Value back =
          func::CallOp::create(b, loc, read, ValueRange{buffer}).getResult(0);
      if (type.isIndex())
        back = arith::IndexCastOp::create(b, loc, type, back);
      else if (intType.getWidth() < 64)
        back = arith::TruncIOp::create(b, loc, type, back);
      use->set(back);
    }
    return success();
  }

  /// `i64 @autodist_rt_read_i64(memref<i64>)` (docs/abi.md), declared once.
  func::FuncOp readFunction(ModuleOp module) {
    StringRef name = autodist::abi::kReadI64;
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Type i64 = b.getI64Type();
    auto f = func::FuncOp::create(
        b, module.getLoc(), name,
        b.getFunctionType({MemRefType::get({}, i64)}, {i64}));
    f.setPrivate();
    f->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    return f;
  }

  llvm::DenseSet<Value> deviceValues;
  SmallVector<scf::ParallelOp> kernels;

  /// Replaces `loop` (no reductions) by a nest of scf.for loops.
  static void serialize(scf::ParallelOp loop) {
    OpBuilder b(loop);
    SmallVector<Value> ivs;
    Block *body = nullptr;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      auto f = scf::ForOp::create(b, loop.getLoc(), lb, ub, step);
      ivs.push_back(f.getInductionVar());
      body = f.getBody();
      b.setInsertionPoint(body->getTerminator());
    }
    Block &old = loop.getRegion().front();
    for (auto [from, to] : llvm::zip(old.getArguments(), ivs))
      from.replaceAllUsesWith(to);
    old.getTerminator()->erase();
    body->getOperations().splice(body->getTerminator()->getIterator(),
                                 old.getOperations());
    loop.erase();
  }
};

struct CheckDeviceAccessesPass
    : public autodist::impl::CheckDeviceAccessesBase<CheckDeviceAccessesPass> {
  void runOnOperation() override {
    // The first one only: one op the mapping missed says what to fix.
    WalkResult r = getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<scf::ParallelOp>(op)) {
        op->emitOpError("could not be mapped to a GPU kernel");
        return WalkResult::interrupt();
      }
      if (isAccess(op)) {
        op->emitOpError("accesses device memory from the host");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
