//===- TraceLoopCalls.cpp - trace hooks around outlined loop nests --------===//
//
// The runtime's trace sees its own calls (sgemm, collectives) and, between
// them, anonymous compiled code. Every outlined loop nest is one operator
// (or a fused chain of them); bracketing its calls with hooks names that
// code after the ONNX nodes it came from.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "autodist/runtime/AbiNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace autodist {
#define GEN_PASS_DEF_TRACELOOPCALLS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kBegin = autodist::abi::kTraceOpBegin;
constexpr llvm::StringLiteral kEnd = autodist::abi::kTraceOpEnd;
constexpr llvm::StringLiteral kNames = autodist::abi::kTraceOpNames;

/// The ONNX node names in `loc` (NameLocs, through fused and call-site
/// locations), in order, once each.
void collectNames(Location loc, llvm::SetVector<StringRef> &names) {
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l))
      names.insert(name.getName().getValue());
    return WalkResult::advance();
  });
}

/// The event name of a call at `loc`: its nodes, at most three of them.
std::string eventName(Location loc) {
  llvm::SetVector<StringRef> names;
  collectNames(loc, names);
  if (names.empty())
    return "compute";
  std::string out;
  for (auto [i, n] : llvm::enumerate(names)) {
    if (i == 3) {
      out += " +" + std::to_string(names.size() - 3) + " more";
      break;
    }
    out += (i ? ", " : "") + n.str();
  }
  return out;
}

/// Declares the hook `name` (taking `inputs`) unless the module has it.
void declareHook(ModuleOp module, StringRef name, TypeRange inputs) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                b.getFunctionType(inputs, {}));
  f.setPrivate();
}

/// The names table: `names` NUL-separated, ended by an empty name.
void defineNames(ModuleOp module, ArrayRef<std::string> names) {
  std::vector<int8_t> bytes;
  for (const std::string &n : names) {
    bytes.insert(bytes.end(), n.begin(), n.end());
    bytes.push_back(0);
  }
  bytes.push_back(0);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto type =
      MemRefType::get({static_cast<int64_t>(bytes.size())}, b.getI8Type());
  auto value = DenseElementsAttr::get(
      RankedTensorType::get(type.getShape(), b.getI8Type()),
      ArrayRef<int8_t>(bytes));
  memref::GlobalOp::create(b, module.getLoc(), kNames,
                           b.getStringAttr("public"), type, value,
                           /*constant=*/true, /*alignment=*/nullptr);
}

struct TraceLoopCallsPass
    : public autodist::impl::TraceLoopCallsBase<TraceLoopCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && callee->hasAttr("autodist.outlined"))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    if (Operation *taken = module.lookupSymbol(kNames)) {
      taken->emitError() << "autodist-trace-loop-calls: the symbol '" << kNames
                         << "' is reserved for the trace names";
      return signalPassFailure();
    }
    OpBuilder b(module.getContext());
    declareHook(module, kBegin, {b.getI32Type()});
    declareHook(module, kEnd, {});
    std::vector<std::string> names;
    llvm::StringMap<int32_t> ids;
    for (func::CallOp call : calls) {
      std::string name = eventName(call.getLoc());
      auto [it, inserted] =
          ids.insert({name, static_cast<int32_t>(names.size())});
      if (inserted)
        names.push_back(name);
      int32_t id = it->second;
      b.setInsertionPoint(call);
      Value idValue = arith::ConstantIntOp::create(b, call.getLoc(), id, 32);
      func::CallOp::create(b, call.getLoc(), kBegin, TypeRange(), idValue);
      b.setInsertionPointAfter(call);
      func::CallOp::create(b, call.getLoc(), kEnd, TypeRange(), ValueRange());
    }
    defineNames(module, names);
  }
};

} // namespace
