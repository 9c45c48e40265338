//===- StaleSetModel.h - which gradients cannot hide their traffic -*- C++ -*-//
//
// The cost model behind `auto_stale` (SAPipe's partial staleness): which
// parameters' gradient all-reduces cannot finish behind the rest of the
// backward pass at the cluster's bandwidth. Shared by
// dist-staleness-pipeline (which applies the choice) and dist-explain
// (which prints it).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_STRATEGY_STALESETMODEL_H
#define AUTODIST_STRATEGY_STALESETMODEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace autodist {

/// The model's view of one all-reduced parameter.
struct StaleCandidate {
  std::string name;
  double readyS = 0; // when its gradient is computed, from the step's start
  double commS = 0;  // its all-reduce alone on the slowest link
  int64_t group = 0; // its all-reduce group (bucket) when synchronous
  bool stale = false;
};

struct StaleSetChoice {
  llvm::SmallVector<StaleCandidate> params; // in the order they become ready
  double computeS = 0;                      // the whole step's computation
  bool measured = false; // computeS from dist.step_time, not the nominal rate
  double bandwidthGbit = 0;   // the slowest node link (0: one node)
  double exposedAllSyncS = 0; // communication past the step, nothing stale
  double exposedS = 0;        // the same with the chosen stale set

  llvm::SmallVector<llvm::StringRef> staleNames() const;
};

/// Chooses the stale set of `step` (@train_step, before or after
/// dist-synchronize): from the parameter whose gradient is ready last
/// (nearest the input) backwards, the fewest parameters that, made stale,
/// leave the synchronous all-reduces exposed past the end of the backward
/// pass by at most 5% of the step. Fails (with an error) when the step has
/// no all-reduced parameter.
mlir::FailureOr<StaleSetChoice> chooseStaleSet(mlir::ModuleOp module,
                                               mlir::func::FuncOp step);

} // namespace autodist

#endif // AUTODIST_STRATEGY_STALESETMODEL_H
