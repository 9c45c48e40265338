//===- MpiCommunicator.cpp - The communicator over MPI --------------------===//
//
// Communicator on comm:: (MPI_COMM_WORLD, runtime/lib/Comm.cpp and
// AsyncAllreduce.cpp). MPI has no streams: a start's stream is carried in
// its handle and not used.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Communicator.h"

namespace autodist::rt {
namespace {

class MpiCommunicator final : public Communicator {
public:
  const char *name() const override { return "mpi"; }
  int rank() const override { return comm::rank(); }
  int size() const override { return comm::size(); }
  void allreduce(float *data, int64_t n, ReduceOp op) override {
    comm::allreduce(data, n, op);
  }
  CommHandle allreduceStart(float *data, int64_t n, Stream stream) override {
    return {comm::allreduceStart(data, n), stream};
  }
  void wait(CommHandle handle, float *data, ReduceOp op) override {
    comm::allreduceWait(handle.id, data, op);
  }
  void reduce(float *data, int64_t n, ReduceOp op, int root,
              const Placement *p) override {
    if (p)
      comm::reduceViaNodes(data, n, op, root, *p);
    else
      comm::reduce(data, n, op, root);
  }
  void broadcast(void *data, int64_t bytes, int root,
                 const Placement *p) override {
    if (p)
      comm::broadcastViaNodes(data, bytes, root, *p);
    else
      comm::broadcast(data, bytes, root);
  }
  void allgather(const void *mine, void *all, int bytes) override {
    comm::allgather(mine, all, bytes);
  }
};

MpiCommunicator &mpi() {
  static MpiCommunicator c;
  return c;
}

Communicator *current = nullptr;

} // namespace

Communicator &communicator() { return current ? *current : mpi(); }

Communicator *setCommunicator(Communicator *c) {
  Communicator *was = &communicator();
  current = c;
  return was;
}

} // namespace autodist::rt
