//===- Comm.h - The MPI process group ---------------------------*- C++ -*-===//
//
// All ranks of MPI_COMM_WORLD. The executable runs under `mpirun -np N` or as
// a plain process (a job of one: MPI is not initialized, see launchedAsRank).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_COMM_H
#define AUTODIST_RUNTIME_COMM_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

class Placement;

/// Reduction of the ABI's all-reduce (`op` argument): 0 = sum, 1 = mean.
enum class ReduceOp : int32_t { Sum = 0, Mean = 1 };

namespace comm {

/// How started all-reduces move forward while compiled code computes
/// (--comm-progress; runtime/lib/AsyncAllreduce.cpp): each start tests the
/// requests in flight (Starts), so does every operator boundary (Ops), or a
/// progress thread does (Thread, needs MPI_THREAD_MULTIPLE).
enum class Progress { Starts, Ops, Thread };
std::optional<Progress> parseProgress(const std::string &value);

/// Initializes MPI once, with the thread support `progress` needs; later
/// calls (and calls after finalize) do nothing.
void init(int *argc, char ***argv, Progress progress = Progress::Ops);
/// Finalizes MPI if this process initialized it.
void finalize();
int rank();
int size();
/// Number of ranks on this node (for sizing thread pools).
int localSize();
/// This rank's index among the ranks of its node, in world rank order.
int localRank();
/// Every rank of this node's `bytes` bytes at `data`, concatenated in local
/// rank order. Collective over the node.
std::vector<char> localAllgather(const void *data, int bytes);

/// In-place all-reduce of `n` contiguous floats.
void allreduce(float *data, int64_t n, ReduceOp op);
/// Starts a non-blocking in-place all-reduce (sum) of `n` contiguous floats
/// and returns its handle (>= 1); `data` must stay untouched until
/// `allreduceWait(handle, ...)`. Every rank starts the same all-reduces in
/// the same order; waits may come in any order.
int allreduceStart(float *data, int64_t n);
/// Completes the all-reduce `handle` (blocking until every rank's data has
/// arrived), divides by the number of ranks for a mean, and frees the handle.
/// `data` must be the pointer the all-reduce was started on. Handle 0 is
/// nothing in flight: a no-op.
void allreduceWait(int handle, float *data, ReduceOp op);
/// The number of started, not yet waited for, all-reduces.
int pendingAllreduces();
/// The progress mode in effect (Ops unless init was given another, or
/// Thread was asked for and MPI lacks MPI_THREAD_MULTIPLE: then Ops).
Progress progress();
/// Called by the runtime's entry points at operator boundaries of compiled
/// code: with Progress::Ops and all-reduces in flight, lets MPI progress
/// them. Costs one atomic load otherwise.
void progressAtOpBoundary();
/// Copies `bytes` bytes at `data` from rank `root` to every rank.
void broadcast(void *data, int64_t bytes, int root);
/// In-place reduce of `n` contiguous floats to rank `root`. Other ranks'
/// buffers are left with unspecified (partial) values.
void reduce(float *data, int64_t n, ReduceOp op, int root);
/// `reduce` in two levels (local replication): within each node of `p` to
/// the node's proxy (the root on its own node, else the node's first rank),
/// then from the proxies to the root.
void reduceViaNodes(float *data, int64_t n, ReduceOp op, int root,
                    const Placement &p);
/// `broadcast` in two levels: from the root to the nodes' proxies, then from
/// each proxy to the other ranks of its node.
void broadcastViaNodes(void *data, int64_t bytes, int root, const Placement &p);
/// Point to point: rank `to` receives `bytes` bytes at `data` from rank
/// `from`; other ranks do nothing.
void sendTo(void *data, int64_t bytes, int from, int to);
/// Integer all-reduce (max / min), used to agree on errors.
int allreduceMax(int value);
int allreduceMin(int value);

/// --comm-timeout: from now on, a collective that has not completed
/// `seconds` after this rank began waiting for it (0: never) ends the whole
/// job with MPI_Abort and one `error:` line naming the ranks that did not
/// arrive (runtime/lib/CommTimeout.h). Collective: every rank calls it, with
/// the same value.
void setTimeout(double seconds);

/// While one lives, collectives wait without the timeout: for agreements
/// after a phase in which one rank may work alone for long (rank 0 writing
/// a checkpoint, evaluating, running inference).
class WithoutTimeout {
public:
  WithoutTimeout();
  ~WithoutTimeout();
  WithoutTimeout(const WithoutTimeout &) = delete;
  WithoutTimeout &operator=(const WithoutTimeout &) = delete;

private:
  double saved_;
};

/// Every rank's `bytes` bytes at `mine`, concatenated in rank order into
/// `all` (size() * bytes bytes).
void allgather(const void *mine, void *all, int bytes);

/// Kills every rank with `code`; for failures one rank cannot report alone.
[[noreturn]] void abort(int code);

} // namespace comm
} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_COMM_H
