//===- Affinity.h - Which CPUs a rank runs on -------------------*- C++ -*-===//
//
// `--pin=auto|cores|none`: the CPU affinity of every thread of a rank and the
// number of BLAS threads that goes with it. The ranks of a node share its
// CPUs in contiguous blocks, one BLAS thread per CPU of the block, so that
// ranks neither migrate between cores nor oversubscribe them:
//   cores  local rank r of n gets CPUs [r*C/n, (r+1)*C/n) of the C CPUs the
//          node's ranks may use (cpu r % C when n > C); when the launcher
//          bound groups of ranks to disjoint CPU sets (e.g. one socket
//          each), each group splits its own set that way;
//   auto   (the default) keeps the launcher's binding when it gave the ranks
//          of the node disjoint CPU sets smaller than the machine (e.g.
//          `mpirun -np 2`, which binds to cores), else pins like `cores`;
//   none   leaves the affinity alone and gives each rank 1/n of its CPUs as
//          BLAS threads.
// OPENBLAS_NUM_THREADS / OMP_NUM_THREADS, when set, fix the BLAS thread count.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_AFFINITY_H
#define AUTODIST_RUNTIME_AFFINITY_H

#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

enum class PinMode { Auto, Cores, None };

/// Parses a `--pin` value: "auto", "cores" or "none".
std::optional<PinMode> parsePinMode(const std::string &value);

/// The CPUs of `allowed` (ascending) that local rank `rank` of `ranks` gets
/// with `--pin=cores`: the contiguous block [rank*C/ranks, (rank+1)*C/ranks)
/// of the C allowed CPUs, or the single CPU allowed[rank % C] when there are
/// more ranks than CPUs. Never empty when `allowed` is not.
std::vector<int> cpuBlock(const std::vector<int> &allowed, int rank, int ranks);

/// The CPUs local rank `rank` gets with `--pin=cores`, given the current CPUs
/// of every rank of the node (`masks`, ascending, in local rank order): the
/// ranks whose CPUs equal this rank's split them with cpuBlock, in rank
/// order, when any two masks are equal or disjoint; otherwise all ranks split
/// the union of the masks.
std::vector<int> coresBlock(const std::vector<std::vector<int>> &masks,
                            int rank);

/// Whether no CPU occurs in two of `sets`.
bool disjoint(const std::vector<std::vector<int>> &sets);

/// `cpus` (ascending) in the kernel's list syntax: "0-3,6,8-9".
std::string cpuListString(const std::vector<int> &cpus);

/// What pinThreads did to this rank.
struct Pinning {
  enum class Action { Pinned, Kept, Untouched };
  Action action = Action::Untouched;
  std::vector<int> cpus; // the rank's CPUs afterwards, read from the kernel
  int blasThreads = 1;
  bool blasThreadsFromEnv = false; // OPENBLAS_NUM_THREADS/OMP_NUM_THREADS

  /// One line, e.g. "pinned to CPUs 2-3 (2 BLAS threads)".
  std::string describe() const;
};

/// Decides and applies this rank's CPU affinity for `mode` (see the file
/// comment) to every thread of the process, including those OpenBLAS and MPI
/// started before main, then sets the BLAS thread count to the number of
/// CPUs the rank got. Collective over the ranks of the node. Throws Error if
/// the kernel refuses the affinity.
Pinning pinThreads(PinMode mode);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_AFFINITY_H
