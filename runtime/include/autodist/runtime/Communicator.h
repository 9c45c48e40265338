//===- Communicator.h - The collectives behind the ABI ----------*- C++ -*-===//
//
// The interface the ABI's collectives (runtime/lib/CInterface.cpp) and the
// compressors (Compress.cpp) go through: MPI now (MpiCommunicator.cpp, over
// comm::), NCCL next. A started collective's handle names the stream its
// completion is ordered on (none on CPU; the compute stream of a device
// rank for NCCL), so the wait can order the stream instead of blocking the
// host.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_COMMUNICATOR_H
#define AUTODIST_RUNTIME_COMMUNICATOR_H

#include "autodist/runtime/Comm.h"

#include <cstdint>

namespace autodist::rt {

class Placement;

/// Where a collective's work is ordered: `handle` is a device stream
/// (`cudaStream_t`) for a device communicator, null on CPU.
struct Stream {
  void *handle = nullptr;
};

/// A started collective: the communicator's id for it (0: nothing in
/// flight) and the stream its completion is ordered on.
struct CommHandle {
  int id = 0;
  Stream stream;
};

class Communicator {
public:
  virtual ~Communicator() = default;
  /// "mpi", "nccl", ...: for errors and traces.
  virtual const char *name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// In-place all-reduce of `n` contiguous floats.
  virtual void allreduce(float *data, int64_t n, ReduceOp op) = 0;
  /// Starts an in-place all-reduce (sum) of `n` floats ordered on `stream`;
  /// `data` must stay untouched until wait(). Every rank starts the same
  /// all-reduces in the same order; waits may come in any order.
  virtual CommHandle allreduceStart(float *data, int64_t n,
                                    Stream stream = {}) = 0;
  /// Completes `handle` on the same `data` (a mean divides by size()); a
  /// handle with id 0 is a no-op.
  virtual void wait(CommHandle handle, float *data, ReduceOp op) = 0;
  /// In-place reduce of `n` floats to rank `root` (others' buffers end
  /// unspecified); with `p`, in two levels through each node's proxy.
  virtual void reduce(float *data, int64_t n, ReduceOp op, int root,
                      const Placement *p = nullptr) = 0;
  /// `bytes` bytes at `data` from rank `root` to every rank; with `p`, in two
  /// levels through each node's proxy.
  virtual void broadcast(void *data, int64_t bytes, int root,
                         const Placement *p = nullptr) = 0;
  /// Every rank's `bytes` bytes at `mine`, concatenated in rank order into
  /// `all` (size() * bytes bytes).
  virtual void allgather(const void *mine, void *all, int bytes) = 0;
};

/// The communicator of this process's job: MPI's unless replaced.
Communicator &communicator();
/// Makes `c` the job's communicator (tests: a mock); null restores MPI's.
/// Returns the one it replaces.
Communicator *setCommunicator(Communicator *c);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_COMMUNICATOR_H
