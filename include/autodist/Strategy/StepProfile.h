//===- StepProfile.h - a measured step for the cost models ------*- C++ -*-===//
//
// The cost model of `--stale=auto` costs ops at a nominal rate; a metrics
// log (the runtime's `--log`) of the synchronous program measures what one
// step really takes on the machine. dist-strategy reads it into the module
// attribute `dist.step_time` and StaleSetModel scales its timeline to it.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_STEPPROFILE_H
#define AUTODIST_STRATEGY_STEPPROFILE_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

namespace autodist {

/// The module attribute holding the measured step time (f64, seconds).
inline constexpr llvm::StringLiteral kStepTimeAttrName = "dist.step_time";

/// The median step time in seconds of a metrics log (JSON lines with
/// `step` and the cumulative `time_s`), leaving out the first 5 steps when
/// the log has 10 or more (start-up), else the first. A failure is an error
/// at `loc` naming the file and, for a malformed line, the line.
mlir::FailureOr<double> readStepProfile(llvm::StringRef path,
                                        mlir::Location loc);

} // namespace autodist

#endif // AUTODIST_STRATEGY_STEPPROFILE_H
