//===- DistVerifier.cpp - strategies checked against program and cluster --===//
//
// A strategy attached to a module (`dist.strategy`) must fit the program it
// distributes (each variable a parameter, partitions within the parameter's
// shape, groups in range) and the cluster (`dist.cluster`): every device it
// names must exist.
//
//===----------------------------------------------------------------------===//

#include "dist/DistAttrs.h"
#include "dist/DistDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace autodist::dist;

namespace {

/// Parameter shapes by ONNX name, from @train_step or else @forward.
llvm::StringMap<RankedTensorType> parameterTypes(ModuleOp module) {
  llvm::StringMap<RankedTensorType> params;
  for (StringRef name : {"train_step", "forward"}) {
    auto fn = dyn_cast_or_null<FunctionOpInterface>(
        SymbolTable::lookupSymbolIn(module, name));
    if (!fn)
      continue;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto n = fn.getArgAttrOfType<StringAttr>(i, "nn.param"))
        if (auto t = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]))
          params[n.getValue()] = t;
    if (!params.empty())
      break;
  }
  return params;
}

struct StrategyChecker {
  Operation *op;
  llvm::StringMap<RankedTensorType> params;
  llvm::StringSet<> devices; // empty: no cluster to check against
  int64_t numVariables;

  InFlightDiagnostic error(StringRef var, StringRef field) {
    return op->emitError() << "strategy: parameter '" << var << "' field '"
                           << field << "': ";
  }

  LogicalResult checkDevice(StringRef var, StringRef field, StringRef device) {
    if (devices.empty() || devices.contains(device))
      return success();
    return error(var, field)
           << "device '" << device << "' is not in the cluster";
  }

  LogicalResult checkSynchronizer(StringRef var, Attribute sync) {
    if (!sync) // a partitioned variable's shards carry the synchronizers
      return success();
    auto s = cast<SynchronizerAttrInterface>(sync);
    if (std::optional<StringRef> server = s.getServerDevice())
      if (!server->empty() && failed(checkDevice(var, "server", *server)))
        return failure();
    if (std::optional<int64_t> group = s.getAllReduceGroup())
      if (*group >= numVariables)
        return error(var, "group")
               << "group " << *group << " is out of range (there are "
               << numVariables << " variables)";
    return success();
  }

  LogicalResult checkPartition(StringRef var, PartitionAttr p) {
    auto it = params.find(var);
    if (it == params.end())
      return success();
    RankedTensorType t = it->second;
    if ((int64_t)p.getShards().size() != t.getRank())
      return error(var, "partition")
             << "lists " << p.getShards().size() << " axes for a rank-"
             << t.getRank() << " parameter " << t;
    int64_t dim = t.getDimSize(p.getAxis());
    if (p.getNumShards() > dim)
      return error(var, "partition")
             << p.getNumShards() << " shards along axis " << p.getAxis()
             << ", which has only " << dim << " elements";
    if (!p.getSizes().empty()) {
      int64_t sum = 0;
      for (int64_t s : p.getSizes())
        sum += s;
      if (sum != dim)
        return error(var, "partition")
               << "shard sizes add up to " << sum << ", axis " << p.getAxis()
               << " has " << dim;
    }
    return success();
  }

  LogicalResult check(StrategyAttr strategy) {
    for (Attribute r : strategy.getReplicas())
      if (failed(checkDevice("*", "replicas", cast<StringAttr>(r).getValue())))
        return failure();
    for (Attribute a : strategy.getNodes()) {
      auto node = cast<NodeConfigAttr>(a);
      StringRef var = node.getVarName();
      if (!params.empty() && !params.count(var))
        return op->emitError()
               << "strategy: '" << var << "' is not a parameter of the program";
      if (failed(checkSynchronizer(var, node.getSynchronizer())))
        return failure();
      if (PartitionAttr p = node.getPartition()) {
        if (failed(checkPartition(var, p)))
          return failure();
        for (Attribute part : node.getParts())
          if (failed(checkSynchronizer(
                  cast<NodeConfigAttr>(part).getVarName(),
                  cast<NodeConfigAttr>(part).getSynchronizer())))
            return failure();
      }
    }
    return success();
  }
};

} // namespace

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == "dist.cluster") {
    if (!isa<ClusterAttr>(attr.getValue()))
      return op->emitError() << "'dist.cluster' must be a #dist.cluster";
    return success();
  }
  if (name != "dist.strategy")
    return success();
  auto strategy = dyn_cast<StrategyAttr>(attr.getValue());
  if (!strategy)
    return op->emitError() << "'dist.strategy' must be a #dist.strategy";
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return success();
  StrategyChecker checker{op, parameterTypes(module), {}, 0};
  if (auto cluster = module->getAttrOfType<ClusterAttr>("dist.cluster"))
    for (const std::string &d : cluster.devices())
      checker.devices.insert(d);
  checker.numVariables = checker.params.empty()
                             ? (int64_t)strategy.getNodes().size()
                             : (int64_t)checker.params.size();
  return checker.check(strategy);
}
