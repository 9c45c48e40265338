//===- NcclCommunicator.cpp - The collectives over NCCL -------------------===//
//
// See NcclCommunicator.h. NCCL calls are checked and turned into Errors that
// name the call; the id exchange broadcasts rank 0's status along with the id
// so that a failure there is reported on every rank instead of leaving the
// others waiting in ncclCommInitRank.
//
//===----------------------------------------------------------------------===//

#include "NcclCommunicator.h"

#include "CudaContext.h"

#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Error.h"

#include <cstring>
#include <string>

namespace autodist::rt {
namespace {

void checkNccl(ncclResult_t result, const char *call) {
  if (result != ncclSuccess)
    throw Error(std::string("NCCL ") + call +
                " failed: " + ncclGetErrorString(result));
}

/// Where a collective's buffer lives.
enum class Memory { Host, Managed, Device };

Memory memoryOf(const void *p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError(); // an unknown pointer is host memory
    return Memory::Host;
  }
  switch (attributes.type) {
  case cudaMemoryTypeDevice:
    return Memory::Device;
  case cudaMemoryTypeManaged:
    return Memory::Managed;
  default:
    return Memory::Host;
  }
}

/// Whether NCCL can take every buffer; if not, the host will read them over
/// MPI, so the stream is drained first, and a device-only buffer (which the
/// host cannot read) is an error.
bool onDevice(std::initializer_list<const void *> buffers, const char *what) {
  bool host = false, deviceOnly = false;
  for (const void *p : buffers) {
    Memory m = memoryOf(p);
    host |= m == Memory::Host;
    deviceOnly |= m == Memory::Device;
  }
  if (!host)
    return true;
  if (deviceOnly)
    throw Error(std::string("nccl: ") + what +
                " between GPU memory and host memory is not supported");
  cuda::check(cudaStreamSynchronize(cuda::computeStream()),
              "cudaStreamSynchronize");
  return false;
}

ncclRedOp_t ncclOp(ReduceOp op) {
  return op == ReduceOp::Mean ? ncclAvg : ncclSum;
}
} // namespace

ncclUniqueId exchangeNcclId(MPI_Comm comm) {
  // Rank 0's status travels with the id.
  struct {
    int status;
    ncclUniqueId id;
  } message{};
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = 0;
  if (initialized && !finalized)
    MPI_Comm_rank(comm, &rank);
  if (rank == 0)
    message.status = ncclGetUniqueId(&message.id);
  if (initialized && !finalized)
    MPI_Bcast(&message, sizeof message, MPI_BYTE, 0, comm);
  checkNccl(static_cast<ncclResult_t>(message.status),
            "ncclGetUniqueId (on rank 0)");
  return message.id;
}

namespace {
/// StreamOrder's calls on CUDA.
class CudaStreamApi final : public StreamApi {
public:
  void *createEvent() override {
    cudaEvent_t e = nullptr;
    cuda::check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
                "cudaEventCreateWithFlags");
    return e;
  }
  void destroyEvent(void *event) noexcept override {
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }
  void record(void *event, void *stream) override {
    cuda::check(cudaEventRecord(static_cast<cudaEvent_t>(event),
                                static_cast<cudaStream_t>(stream)),
                "cudaEventRecord");
  }
  void streamWait(void *stream, void *event) override {
    cuda::check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream),
                                    static_cast<cudaEvent_t>(event), 0),
                "cudaStreamWaitEvent");
  }
};
} // namespace

NcclCommunicator::NcclCommunicator(cudaStream_t stream)
    : stream_(stream), rank_(comm::rank()), size_(comm::size()) {
  ncclUniqueId id = exchangeNcclId(MPI_COMM_WORLD);
  checkNccl(ncclCommInitRank(&comm_, size_, id, rank_), "ncclCommInitRank");
  // High priority, as DDP's NCCL stream: a gradient's all-reduce should not
  // queue behind the backward pass's kernels.
  int least = 0, greatest = 0;
  cuda::check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
              "cudaDeviceGetStreamPriorityRange");
  cuda::check(cudaStreamCreateWithPriority(&commStream_, cudaStreamNonBlocking,
                                           greatest),
              "cudaStreamCreateWithPriority");
  streamApi_ = std::make_unique<CudaStreamApi>();
  order_ = std::make_unique<StreamOrder>(*streamApi_, stream_, commStream_);
}

NcclCommunicator::~NcclCommunicator() {
  try {
    shutdown();
  } catch (const std::exception &) {
    // At exit: nothing left to report to.
  }
  order_.reset();
  if (commStream_)
    (void)cudaStreamDestroy(commStream_);
}

void NcclCommunicator::shutdown() {
  if (!comm_)
    return;
  ncclComm_t c = comm_;
  comm_ = nullptr;
  ncclResult_t finalized = ncclCommFinalize(c);
  checkNccl(ncclCommDestroy(c), "ncclCommDestroy");
  checkNccl(finalized, "ncclCommFinalize");
}

void NcclCommunicator::allreduce(float *data, int64_t n, ReduceOp op) {
  if (n <= 0)
    return;
  if (!onDevice({data}, "allreduce"))
    return comm::allreduce(data, n, op);
  checkNccl(ncclAllReduce(data, data, n, ncclFloat, ncclOp(op), comm_, stream_),
            "ncclAllReduce");
}

CommHandle NcclCommunicator::allreduceStart(float *data, int64_t n, Stream) {
  size_t slot = 0;
  while (slot < pending_.size() && pending_[slot].used)
    ++slot;
  if (slot == pending_.size())
    pending_.emplace_back();
  Pending p;
  p.used = true;
  p.n = n;
  if (n > 0 && !onDevice({data}, "allreduce")) {
    p.mpi = true;
    p.mpiHandle = comm::allreduceStart(data, n);
  } else if (n > 0) {
    auto comm = static_cast<cudaStream_t>(order_->fork());
    checkNccl(ncclAllReduce(data, data, n, ncclFloat, ncclSum, comm_, comm),
              "ncclAllReduce");
    p.order = order_->recordDone();
  }
  pending_[slot] = p;
  return {static_cast<int>(slot + 1), Stream{stream_}};
}

void NcclCommunicator::wait(CommHandle handle, float *data, ReduceOp op) {
  if (handle.id == 0)
    return;
  size_t slot = static_cast<size_t>(handle.id) - 1;
  if (handle.id < 0 || slot >= pending_.size() || !pending_[slot].used)
    throw Error("nccl: wait for all-reduce " + std::to_string(handle.id) +
                ", which is not in flight");
  Pending p = pending_[slot];
  pending_[slot] = Pending();
  if (p.mpi)
    return comm::allreduceWait(p.mpiHandle, data, op);
  if (p.order >= 0)
    order_->join(p.order);
  if (op == ReduceOp::Mean && size_ > 1)
    cuda::scaleOnStream(data, 1, p.n, p.n, static_cast<float>(size_),
                        /*divide=*/true);
}

void NcclCommunicator::reduce(float *data, int64_t n, ReduceOp op, int root,
                              const Placement *p) {
  if (n <= 0)
    return;
  if (!onDevice({data}, "reduce"))
    return p ? comm::reduceViaNodes(data, n, op, root, *p)
             : comm::reduce(data, n, op, root);
  checkNccl(
      ncclReduce(data, data, n, ncclFloat, ncclOp(op), root, comm_, stream_),
      "ncclReduce");
}

void NcclCommunicator::broadcast(void *data, int64_t bytes, int root,
                                 const Placement *p) {
  if (bytes <= 0)
    return;
  if (!onDevice({data}, "broadcast"))
    return p ? comm::broadcastViaNodes(data, bytes, root, *p)
             : comm::broadcast(data, bytes, root);
  checkNccl(ncclBroadcast(data, data, bytes, ncclUint8, root, comm_, stream_),
            "ncclBroadcast");
}

void NcclCommunicator::allgather(const void *mine, void *all, int bytes) {
  if (bytes <= 0)
    return;
  if (!onDevice({mine, all}, "allgather"))
    return comm::allgather(mine, all, bytes);
  checkNccl(ncclAllGather(mine, all, bytes, ncclUint8, comm_, stream_),
            "ncclAllGather");
}

} // namespace autodist::rt
