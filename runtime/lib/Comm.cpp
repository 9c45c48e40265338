//===- Comm.cpp - The MPI process group -----------------------------------===//

#include "autodist/runtime/Comm.h"

#include <algorithm>
#include <cstdlib>
#include <mpi.h>

namespace autodist::rt::comm {

namespace {
bool initializedHere = false;

bool active() {
  int init = 0, done = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&done);
  return init && !done;
}

/// Compiled code may call the all-reduce before main() set things up (e.g. in
/// unit tests); initialize lazily then.
void ensureInit() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done)
    init(nullptr, nullptr);
}

int reduceInt(int value, MPI_Op op) {
  ensureInit();
  if (!active())
    return value;
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, op, MPI_COMM_WORLD);
  return value;
}
} // namespace

void init(int *argc, char ***argv) {
  int init = 0, done = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&done);
  if (init || done)
    return;
  MPI_Init(argc, argv);
  initializedHere = true;
}

void finalize() {
  if (initializedHere && active())
    MPI_Finalize();
}

int rank() {
  ensureInit();
  int r = 0;
  if (active())
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  ensureInit();
  int s = 1;
  if (active())
    MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

int localSize() {
  ensureInit();
  if (!active())
    return 1;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &node);
  int s = 1;
  MPI_Comm_size(node, &s);
  MPI_Comm_free(&node);
  return s;
}

void allreduce(float *data, int64_t n, ReduceOp op) {
  int ranks = size();
  if (ranks > 1) {
    // MPI counts are int; reduce huge buffers in pieces.
    constexpr int64_t chunk = 1 << 30;
    for (int64_t done = 0; done < n; done += chunk)
      MPI_Allreduce(MPI_IN_PLACE, data + done,
                    static_cast<int>(std::min(chunk, n - done)), MPI_FLOAT,
                    MPI_SUM, MPI_COMM_WORLD);
  }
  if (op == ReduceOp::Mean && ranks > 1)
    for (int64_t i = 0; i < n; ++i)
      data[i] /= static_cast<float>(ranks);
}

void broadcast(void *data, int64_t bytes, int root) {
  if (size() == 1)
    return;
  constexpr int64_t chunk = 1 << 30; // MPI counts are int
  for (int64_t done = 0; done < bytes; done += chunk)
    MPI_Bcast(static_cast<char *>(data) + done,
              static_cast<int>(std::min(chunk, bytes - done)), MPI_BYTE, root,
              MPI_COMM_WORLD);
}

int allreduceMax(int value) { return reduceInt(value, MPI_MAX); }
int allreduceMin(int value) { return reduceInt(value, MPI_MIN); }

void abort(int code) {
  if (active())
    MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

} // namespace autodist::rt::comm
