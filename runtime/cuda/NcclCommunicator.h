//===- NcclCommunicator.h - The collectives over NCCL -----------*- C++ -*-===//
//
// The communicator of `--target=cuda` executables, installed by
// CudaDevice::select(): one NCCL communicator over all ranks of
// MPI_COMM_WORLD, bootstrapped through MPI (rank 0's ncclUniqueId broadcast
// to the others). Blocking collectives are ordered on the compute stream,
// with the kernels that produce and consume their data. A started all-reduce
// (dist-overlap-collectives) runs on the communication stream, forked off
// the compute stream and joined back by events (StreamOrder.h), so that the
// backward pass goes on while it travels; neither blocks the host, which
// reads results after Device::synchronize().
//
// Buffers the GPU cannot address (host vectors of Compress.cpp or a strided
// bucket packed by CInterface.cpp) go through MPI (comm::) instead, after the
// compute stream has drained: every rank makes the same choice, as every
// rank calls with the same kind of buffer.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_CUDA_NCCLCOMMUNICATOR_H
#define AUTODIST_RUNTIME_CUDA_NCCLCOMMUNICATOR_H

#include "autodist/runtime/Communicator.h"
#include "autodist/runtime/StreamOrder.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <memory>
#include <vector>

namespace autodist::rt {

/// Rank 0 of `comm` makes an id (ncclGetUniqueId) and broadcasts it: every
/// rank returns the same bytes. Throws Error, on every rank, if rank 0 could
/// not make one. Without MPI (a plain process) makes one locally.
ncclUniqueId exchangeNcclId(MPI_Comm comm);

class NcclCommunicator final : public Communicator {
public:
  /// Collective over MPI_COMM_WORLD; the CUDA device must be set. Throws
  /// Error if NCCL cannot start.
  explicit NcclCommunicator(cudaStream_t stream);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator &) = delete;
  NcclCommunicator &operator=(const NcclCommunicator &) = delete;
  /// Finishes the issued collectives and frees NCCL's resources
  /// (ncclCommFinalize, ncclCommDestroy); the destructor does it otherwise.
  void shutdown();

  const char *name() const override { return "nccl"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  /// Mean: ncclAvg.
  void allreduce(float *data, int64_t n, ReduceOp op) override;
  /// A sum on the communication stream, after what the compute stream was
  /// given so far (`stream` is ignored: the compute stream is the rank's).
  CommHandle allreduceStart(float *data, int64_t n,
                            Stream stream = {}) override;
  /// Orders the compute stream after the sum; a mean divides by size()
  /// there.
  void wait(CommHandle handle, float *data, ReduceOp op) override;
  /// Flat: `p` (two levels through node proxies) is ignored, NCCL picks its
  /// own topology-aware algorithm. Mean: ncclAvg at the root.
  void reduce(float *data, int64_t n, ReduceOp op, int root,
              const Placement *p = nullptr) override;
  /// Flat, as reduce.
  void broadcast(void *data, int64_t bytes, int root,
                 const Placement *p = nullptr) override;
  void allgather(const void *mine, void *all, int bytes) override;

private:
  /// A started all-reduce: on NCCL (the count, for the mean) or on MPI (its
  /// comm:: handle). Slots are reused: steady-state starts allocate nothing.
  struct Pending {
    bool used = false;
    bool mpi = false;
    int mpiHandle = 0;
    int order = -1; // StreamOrder's token; -1 for an empty all-reduce
    int64_t n = 0;
  };

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_;
  /// The communication stream of started all-reduces, and the events that
  /// order it with the compute stream.
  cudaStream_t commStream_ = nullptr;
  std::unique_ptr<StreamApi> streamApi_;
  std::unique_ptr<StreamOrder> order_;
  int rank_ = 0, size_ = 1;
  std::vector<Pending> pending_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_CUDA_NCCLCOMMUNICATOR_H
