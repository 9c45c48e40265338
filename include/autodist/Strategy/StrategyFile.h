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

/// Parses strategy JSON; on failure `error` names the file and the key.
mlir::FailureOr<dist::StrategyAttr> parseStrategyJSON(mlir::MLIRContext *ctx,
                                                      llvm::StringRef text,
                                                      llvm::StringRef fileName,
                                                      std::string &error);

/// The canonical JSON of `strategy` (every field written, fixed order).
std::string printStrategyJSON(dist::StrategyAttr strategy);

/// Reads and parses a strategy file.
mlir::FailureOr<dist::StrategyAttr> readStrategyFile(mlir::MLIRContext *ctx,
                                                     llvm::StringRef path,
                                                     std::string &error);

/// Writes a file atomically (temporary file, then rename).
mlir::LogicalResult writeFileAtomically(llvm::StringRef path,
                                        llvm::StringRef contents,
                                        std::string &error);

} // namespace autodist

#endif // AUTODIST_STRATEGY_STRATEGYFILE_H
