//===- EmitRuntimeABI.cpp - packed entry points and the manifest ----------===//
//
// The runtime calls every entry point the same way, `autodist_<f>(void
// **args)`, whatever the model's arity (docs/abi.md). This pass writes those
// wrappers around the `_mlir_ciface_<f>` functions and the manifest global.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "autodist/runtime/AbiNames.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dominance.h"

namespace autodist {
#define GEN_PASS_DEF_EMITRUNTIMEABI
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The entry points: the function's name in the IR and its packed
/// wrapper's in the ABI.
struct EntryPoint {
  StringLiteral function, wrapper;
};
constexpr EntryPoint kEntryPoints[] = {{"forward", abi::kForward},
                                       {"train_step", abi::kTrainStep}};

/// Emits `wrapper(ptr args)` calling `ciface` with the descriptor pointers
/// `args[0..n)`.
LogicalResult emitPackedWrapper(OpBuilder &b, LLVM::LLVMFuncOp ciface,
                                StringRef wrapperName) {
  Location loc = ciface.getLoc();
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  for (Type t : ciface.getFunctionType().getParams())
    if (t != ptr)
      return ciface.emitOpError("entry point argument of type ")
             << t << " is not a memref descriptor pointer";
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr});
  auto wrapper = LLVM::LLVMFuncOp::create(b, loc, wrapperName, fnType);
  Block *entry = wrapper.addEntryBlock(b);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value args = entry->getArgument(0);
  SmallVector<Value> descriptors;
  for (unsigned i = 0; i < ciface.getNumArguments(); ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    descriptors.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
  }
  LLVM::CallOp::create(b, loc, ciface, descriptors);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

/// A NUL-terminated external constant string global.
void emitStringGlobal(OpBuilder &b, Location loc, StringRef name,
                      StringRef text) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::External, name, b.getStringAttr(bytes));
}

/// Drops the `nn.*` and `dist.*` argument and result tags, which LLVM IR has
/// no use for.
void stripTags(LLVM::LLVMFuncOp func) {
  auto strip = [](DictionaryAttr dict) -> DictionaryAttr {
    if (!dict)
      return dict;
    SmallVector<NamedAttribute> kept;
    for (NamedAttribute a : dict)
      if (!a.getName().getValue().starts_with("nn.") &&
          !a.getName().getValue().starts_with("dist."))
        kept.push_back(a);
    return DictionaryAttr::get(dict.getContext(), kept);
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttrs(i, strip(func.getArgAttrDict(i)));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    func.setResultAttrs(i, strip(func.getResultAttrDict(i)));
  // Outlined loop nests (autodist-outline-loops) stay separate functions.
  if (func->removeAttr("autodist.outlined"))
    func.setNoInline(true);
}

/// Whether `func`'s control flow has a cycle (a branch to a block that
/// dominates the branch: the lowered loops are natural loops).
bool hasLoops(LLVM::LLVMFuncOp func) {
  DominanceInfo dom(func);
  for (Block &block : func.getBody())
    for (Block *succ : block.getSuccessors())
      if (dom.dominates(succ, &block))
        return true;
  return false;
}

/// Entry points whose loop nests were all outlined are straight-line
/// sequences of calls, allocations and copies: LLVM's optimizations gain
/// nothing there but cost time that grows with the layers (a 12-block GPT's
/// `train_step` is 60k lines of IR), so they are compiled as `optnone`.
void skipOptimizingIfStraightLine(LLVM::LLVMFuncOp func) {
  if (func.isExternal() || hasLoops(func))
    return;
  func.setNoInline(true);
  func.setOptimizeNone(true);
}

struct EmitRuntimeABIPass
    : public autodist::impl::EmitRuntimeABIBase<EmitRuntimeABIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto manifest = module->getAttrOfType<StringAttr>("autodist.manifest");
    if (!manifest) {
      module.emitError("no autodist.manifest (run autodist-export-manifest "
                       "before lowering)");
      return signalPassFailure();
    }
    module.walk(stripTags);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    for (auto [name, wrapperName] : kEntryPoints) {
      auto ciface =
          module.lookupSymbol<LLVM::LLVMFuncOp>(("_mlir_ciface_" + name).str());
      if (!ciface)
        continue;
      // A function with results gets a leading result pointer in its C
      // interface, which the packed calling convention has no slot for.
      auto impl = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (impl &&
          !isa<LLVM::LLVMVoidType>(impl.getFunctionType().getReturnType())) {
        impl.emitOpError("entry point still returns values (results must be "
                         "out-params: buffer-results-to-out-params)");
        return signalPassFailure();
      }
      if (failed(emitPackedWrapper(b, ciface, wrapperName)))
        return signalPassFailure();
      if (impl)
        skipOptimizingIfStraightLine(impl);
    }
    emitStringGlobal(b, module.getLoc(), abi::kManifest, manifest.getValue());
  }
};

} // namespace
