//===- ExportManifest.cpp - the runtime manifest --------------------------===//
//
// Describes the compiled program to the runtime (docs/abi.md): parameters,
// inputs, outputs, training settings and strategy, as JSON in the module
// attribute `autodist.manifest`.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/JSON.h"

#include <set>

namespace autodist {
#define GEN_PASS_DEF_EXPORTMANIFEST
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;
namespace json = llvm::json;

namespace {

/// `{"name", "shape", "dtype"}` of a tensor; -1 marks a dynamic dim.
json::Object tensorEntry(StringRef name, Type type) {
  auto t = cast<RankedTensorType>(type);
  json::Array shape;
  for (int64_t d : t.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  Type e = t.getElementType();
  std::string dtype = e.isF32()                 ? "f32"
                      : e.isSignlessInteger(64) ? "i64"
                      : e.isSignlessInteger(32) ? "i32"
                      : e.isSignlessInteger(1)  ? "bool"
                      : e.isF64()               ? "f64"
                      : e.isF16()               ? "f16"
                      : e.isBF16()              ? "bf16"
                      : e.isSignlessInteger(8)  ? "i8"
                      : e.isSignlessInteger(16) ? "i16"
                      : e.isUnsignedInteger(8)  ? "u8"
                      : e.isUnsignedInteger(16) ? "u16"
                      : e.isUnsignedInteger(32) ? "u32"
                      : e.isUnsignedInteger(64) ? "u64"
                                                : "unsupported";
  return json::Object{
      {"name", name}, {"shape", std::move(shape)}, {"dtype", dtype}};
}

/// The tightest bound the ops reading `v` as indices put on its values
/// (SparseAccessOpInterface), if any.
std::optional<int64_t> indexBound(Value v) {
  std::optional<int64_t> bound;
  for (OpOperand &use : v.getUses())
    if (auto op = dyn_cast<nn::SparseAccessOpInterface>(use.getOwner()))
      if (auto b = op.getIndexBound(use.getOperandNumber()))
        bound = bound ? std::min(*bound, *b) : *b;
  return bound;
}

/// The module's cluster (the local one without `dist.cluster`).
dist::ClusterAttr clusterOf(ModuleOp module) {
  if (auto c = module->getAttrOfType<dist::ClusterAttr>("dist.cluster"))
    return c;
  return dist::ClusterAttr::getLocal(module.getContext());
}

/// `{"nodes": [{"address", "devices", "replicas"}]}`: what the runtime needs
/// to map the cluster's devices to ranks (docs/abi.md). Only programs with a
/// strategy have one.
json::Value clusterEntry(dist::ClusterAttr cluster) {
  json::Array nodes;
  for (Attribute a : cluster.getNodes()) {
    auto n = cast<dist::ClusterNodeAttr>(a);
    int64_t devices = n.getCpus().size() + n.getGpus().size();
    int64_t replicas =
        n.getGpus().empty() ? n.getCpus().size() : n.getGpus().size();
    nodes.push_back(json::Object{{"address", n.getAddress()},
                                 {"devices", devices},
                                 {"replicas", replicas}});
  }
  return json::Object{{"nodes", std::move(nodes)}};
}

/// The `owners` of an optimizer-state argument (its `dist.owners`, set by
/// dist-synchronize): device indices into the cluster and the piece each
/// owns.
json::Array ownerEntries(DictionaryAttr attrs, ModuleOp module) {
  json::Array out;
  auto owners = attrs ? attrs.getAs<ArrayAttr>("dist.owners") : ArrayAttr();
  if (!owners)
    return out;
  SmallVector<std::string> devices = clusterOf(module).devices();
  for (Attribute a : owners) {
    auto piece = cast<DictionaryAttr>(a);
    json::Object entry;
    StringRef device = piece.getAs<StringAttr>("device").getValue();
    entry["device"] =
        static_cast<int64_t>(llvm::find(devices, device) - devices.begin());
    for (StringRef key : {"axis", "offset", "size"})
      if (auto v = piece.getAs<IntegerAttr>(key))
        entry[key] = v.getInt();
    out.push_back(std::move(entry));
  }
  return out;
}

/// Entries of the arguments of `func` tagged `tag`, in order.
json::Array argEntries(func::FuncOp func, StringRef tag) {
  json::Array out;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto n = func.getArgAttrOfType<StringAttr>(i, tag);
    if (!n)
      continue;
    json::Object entry =
        tensorEntry(n.getValue(), func.getArgument(i).getType());
    if (auto b = indexBound(func.getArgument(i)))
      entry["index_bound"] = *b;
    out.push_back(std::move(entry));
  }
  return out;
}

/// Marks the bag inputs (SparseAccessOpInterface::getBagOffsetsOperand) in
/// `inputs`, the entries of `forward`'s `nn.input` arguments: the ids get
/// `bag_offsets`, the offsets `bag_ids` (and `include_last_offset`), so the
/// runtime batches them as one ragged input (docs/abi.md "Bag inputs").
/// Bags of a dynamic size must be read straight from two model inputs.
LogicalResult markBagInputs(func::FuncOp forward, json::Array &inputs) {
  DenseMap<unsigned, unsigned> entryOf; // argument -> entry in `inputs`
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    if (forward.getArgAttr(i, "nn.input"))
      entryOf[i] = entryOf.size();
  auto inputArg = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner()->getParentOp() != forward ||
        !entryOf.count(arg.getArgNumber()))
      return std::nullopt;
    return arg.getArgNumber();
  };
  DenseMap<unsigned, unsigned> offsetsOf; // ids argument -> offsets argument
  WalkResult walk = forward.walk([&](nn::SparseAccessOpInterface op) {
    for (OpOperand &use : op->getOpOperands()) {
      std::optional<unsigned> k =
          op.getBagOffsetsOperand(use.getOperandNumber());
      if (!k)
        continue;
      Value ids = use.get(), offsets = op->getOperand(*k);
      auto ragged = [](Value v) {
        return cast<RankedTensorType>(v.getType()).isDynamicDim(0);
      };
      if (!ragged(ids) && !ragged(offsets))
        continue; // one call's fixed ids and offsets: nothing to batch
      std::optional<unsigned> i = inputArg(ids), o = inputArg(offsets);
      if (!i || !o) {
        op->emitOpError("reads bags of a dynamic size whose ids and offsets "
                        "are not both model inputs: the runtime batches "
                        "samples by giving each call those samples' ids and "
                        "offsets, so they must be read as the model takes "
                        "them");
        return WalkResult::interrupt();
      }
      auto [it, fresh] = offsetsOf.try_emplace(*i, *o);
      bool crossed = llvm::any_of(
          offsetsOf, [&](auto &p) { return p.second == *i || p.first == *o; });
      if ((!fresh && it->second != *o) || crossed) {
        op->emitOpError("pairs its ids and offsets inputs differently from "
                        "another bag lookup");
        return WalkResult::interrupt();
      }
      json::Object &idsEntry = *inputs[entryOf[*i]].getAsObject();
      json::Object &offEntry = *inputs[entryOf[*o]].getAsObject();
      idsEntry["bag_offsets"] = *offEntry.getString("name");
      offEntry["bag_ids"] = *idsEntry.getString("name");
      if (op.bagOffsetsIncludeEnd())
        offEntry["include_last_offset"] = true;
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The futures that cross steps (dist-staleness-pipeline): per argument
/// tagged `dist.inflight`, its packed size, the reduction of the collective
/// that fills it, and the parameters whose gradients it carries.
json::Array inflightEntries(func::FuncOp step) {
  json::Array out;
  Operation *ret = step.getBody().front().getTerminator();
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    auto name = step.getArgAttrOfType<StringAttr>(i, "dist.inflight");
    auto future = dyn_cast<dist::FutureType>(step.getArgument(i).getType());
    if (!name || !future)
      continue;
    int64_t n = 0;
    for (Type t : future.getValueTypes())
      n += cast<RankedTensorType>(t).getNumElements();
    std::string op = "mean";
    for (unsigned r = 0; r < step.getNumResults(); ++r)
      if (step.getResultAttr(r, "dist.inflight") == name)
        if (auto start =
                ret->getOperand(r).getDefiningOp<dist::AllReduceStartOp>())
          op = dist::stringifyReductionKind(start.getKind()).str();
    json::Array params;
    if (auto list = step.getArgAttrOfType<ArrayAttr>(i, "dist.inflight_params"))
      for (Attribute a : list)
        params.push_back(cast<StringAttr>(a).getValue());
    out.push_back(json::Object{{"name", name.getValue()},
                               {"shape", json::Array{n}},
                               {"dtype", "f32"},
                               {"op", op},
                               {"params", std::move(params)}});
  }
  return out;
}

json::Value trainEntry(ModuleOp module, func::FuncOp step) {
  auto train = module->getAttrOfType<DictionaryAttr>("autodist.train");
  if (!step || !train)
    return nullptr;
  json::Object obj;
  json::Object schedule;
  for (NamedAttribute a : train) {
    StringRef key = a.getName().getValue();
    json::Value v = nullptr;
    if (auto s = dyn_cast<StringAttr>(a.getValue()))
      v = s.getValue();
    else if (auto f = dyn_cast<FloatAttr>(a.getValue()))
      v = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(a.getValue()))
      v = i.getInt();
    // The schedule's own fields go into "schedule" (docs/abi.md).
    if (key == "schedule")
      schedule["kind"] = std::move(v);
    else if (llvm::is_contained({"warmup_steps", "total_steps", "min_lr",
                                 "step_size", "gamma"},
                                key))
      schedule[key] = std::move(v);
    else
      obj[key] = std::move(v);
  }
  obj["schedule"] = std::move(schedule);
  obj["labels"] = nullptr;
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (auto n = step.getArgAttrOfType<StringAttr>(i, "nn.label"))
      obj["labels"] = tensorEntry(n.getValue(), step.getArgument(i).getType());
  json::Array state = argEntries(step, "nn.state");
  unsigned k = 0;
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    if (!step.getArgAttr(i, "nn.state"))
      continue;
    json::Object &entry = *state[k].getAsObject();
    json::Array owners = ownerEntries(step.getArgAttrDict(i), module);
    if (!owners.empty())
      entry["owners"] = std::move(owners);
    // Per-rank state (dist-compressor-state, weight prediction's local
    // gradients) and PowerSGD's Q, which does not start at zero.
    if (step.getArgAttr(i, "dist.per_rank"))
      entry["per_rank"] = true;
    // fp16 loss scaling's scale (autodist-build-train-step).
    if (auto init = step.getArgAttrOfType<FloatAttr>(i, "nn.state_init"))
      entry["init"] = json::Object{{"kind", "constant"},
                                   {"value", init.getValueAsDouble()}};
    if (auto init = step.getArgAttrOfType<StringAttr>(i, "dist.init")) {
      auto seed = step.getArgAttrOfType<IntegerAttr>(i, "dist.init_seed");
      entry["init"] = json::Object{{"kind", init.getValue()},
                                   {"seed", seed ? seed.getInt() : 0}};
    }
    // Weight prediction's ŵ, which starts as its parameter.
    if (auto param = step.getArgAttrOfType<StringAttr>(i, "dist.init_param"))
      entry["init"] =
          json::Object{{"kind", "param"}, {"name", param.getValue()}};
    ++k;
  }
  obj["state"] = std::move(state);
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    if (step.getArgAttr(i, "dist.ranks")) // the step takes the rank count
      obj["ranks_input"] = true;
    if (step.getArgAttr(i, "nn.next_lr")) // weight prediction's next step
      obj["next_lr_input"] = true;
  }
  json::Array inflight = inflightEntries(step);
  if (!inflight.empty())
    obj["inflight"] = std::move(inflight);
  return obj;
}

json::Value strategyEntry(ModuleOp module) {
  auto s = module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
  if (!s)
    return nullptr;
  std::set<int64_t> groups;
  for (Attribute n : s.getNodes())
    if (auto sync = dyn_cast_or_null<dist::SynchronizerAttrInterface>(
            cast<dist::NodeConfigAttr>(n).getSynchronizer()))
      if (std::optional<int64_t> group = sync.getAllReduceGroup())
        groups.insert(*group);
  return json::Object{{"id", s.getId()},
                      {"buckets", static_cast<int64_t>(groups.size())}};
}

struct ExportManifestPass
    : public autodist::impl::ExportManifestBase<ExportManifestPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>("forward");
    if (!forward) {
      module.emitError("no @forward function to export");
      return signalPassFailure();
    }
    auto step = module.lookupSymbol<func::FuncOp>("train_step");
    json::Array outputs;
    for (unsigned i = 0; i < forward.getNumResults(); ++i) {
      auto n = forward.getResultAttrOfType<StringAttr>(i, "nn.output");
      outputs.push_back(tensorEntry(n ? n.getValue() : "output",
                                    forward.getResultTypes()[i]));
    }
    json::Array inputs = argEntries(forward, "nn.input");
    if (failed(markBagInputs(forward, inputs)))
      return signalPassFailure();
    auto source = module->getAttrOfType<StringAttr>("autodist.source");
    auto externalDir =
        module->getAttrOfType<StringAttr>("autodist.external_data_dir");
    json::Object manifest{
        {"version", 1},
        {"model", source ? source.getValue() : ""},
        {"params", argEntries(forward, "nn.param")},
        {"inputs", std::move(inputs)},
        {"outputs", std::move(outputs)},
        {"train", trainEntry(module, step)},
        {"strategy", strategyEntry(module)},
        {"cluster", module->hasAttr("dist.strategy")
                        ? clusterEntry(clusterOf(module))
                        : json::Value(nullptr)},
    };
    if (externalDir) // the directory of the parameters' external data
      manifest["external_data_dir"] = externalDir.getValue();
    // --precision=tf32: the runtime's f32 products may use TF32.
    if (auto math =
            module->getAttrOfType<StringAttr>("autodist.float32_matmul"))
      manifest["float32_matmul"] = math.getValue();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << json::Value(std::move(manifest));
    module->setAttr("autodist.manifest", StringAttr::get(&getContext(), text));
    UnitAttr unit = UnitAttr::get(&getContext());
    forward->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
    if (step)
      step->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
  }
};

} // namespace
