//===- ResourceSpec.h - AutoDist YAML resource specs ------------*- C++ -*-===//
//
// AutoDist's resource spec (`nodes:` with address, cpus, gpus, chief,
// network_bandwidth, ssh_config; `ssh:`) ⇄ #dist.cluster, and MPI hostfiles.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_RESOURCESPEC_H
#define AUTODIST_STRATEGY_RESOURCESPEC_H

#include "dist/DistAttrs.h"

#include <string>

namespace autodist {

/// Parses a resource spec; a failure is an error diagnostic at `loc` naming
/// the file, line and key.
mlir::FailureOr<dist::ClusterAttr> parseResourceSpec(llvm::StringRef yaml,
                                                     llvm::StringRef fileName,
                                                     mlir::Location loc);

/// Reads and parses a resource spec file (errors as parseResourceSpec's).
mlir::FailureOr<dist::ClusterAttr> readResourceSpec(llvm::StringRef path,
                                                    mlir::Location loc);

/// An OpenMPI hostfile: one `address slots=N` line per node, N its replica
/// devices (GPUs, or CPUs on a node without GPUs).
std::string mpiHostfile(dist::ClusterAttr cluster);

} // namespace autodist

#endif // AUTODIST_STRATEGY_RESOURCESPEC_H
