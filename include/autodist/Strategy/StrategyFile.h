//===- StrategyFile.h - strategies as AutoDist JSON files -------*- C++ -*-===//
//
// AutoDist's Strategy proto as JSON with the proto's field names
// (docs/strategy-files.md) ⇄ #dist.strategy.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_STRATEGYFILE_H
#define AUTODIST_STRATEGY_STRATEGYFILE_H

#include "dist/DistAttrs.h"

#include <string>

namespace autodist {

/// Parses strategy JSON; a failure is an error diagnostic at `loc` naming
/// the file and the key.
mlir::FailureOr<dist::StrategyAttr> parseStrategyJSON(llvm::StringRef text,
                                                      llvm::StringRef fileName,
                                                      mlir::Location loc);

/// The canonical JSON of `strategy` (every field written, fixed order).
std::string printStrategyJSON(dist::StrategyAttr strategy);

/// Reads and parses a strategy file (errors as parseStrategyJSON's).
mlir::FailureOr<dist::StrategyAttr> readStrategyFile(llvm::StringRef path,
                                                     mlir::Location loc);

/// Writes a file atomically (temporary file, then rename).
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

} // namespace autodist

#endif // AUTODIST_STRATEGY_STRATEGYFILE_H
