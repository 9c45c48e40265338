//===- Comm.cpp - The MPI process group -----------------------------------===//

#include "autodist/runtime/Comm.h"
#include "AsyncAllreduce.h"
#include "CommTimeout.h"
#include "autodist/runtime/MpiTransport.h"
#include "autodist/runtime/Placement.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mpi.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace autodist::rt::comm {

using detail::beginCollective;
using detail::CollectiveCall;

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
  CollectiveCall call = beginCollective("agreement", sizeof value);
  detail::run(
      call,
      [&] {
        MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, op, MPI_COMM_WORLD);
      },
      [&](MPI_Request *r) {
        MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_INT, op, MPI_COMM_WORLD, r);
      });
  return value;
}
} // namespace

namespace {
/// Whether a launcher (mpirun, mpiexec, srun) started this process as a rank
/// of a job. A plain process is a job of one: it needs no communication, and
/// an MPI singleton would still make a session directory under TMPDIR, which
/// singletons and jobs starting and ending at once race on ("A call to mkdir
/// was unable to create the desired directory").
bool launchedAsRank() {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                          "PMI_SIZE", "PMI_FD", "MPI_LOCALNRANKS"})
    if (std::getenv(var))
      return true;
  return false;
}
} // namespace

void init(int *argc, char ***argv, Progress progress) {
  int init = 0, done = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&done);
  static const bool launched = launchedAsRank();
  if (init || done || !launched)
    return;
  setOpenMpiDefaults();
  if (progress == Progress::Thread) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr, "warning: --comm-progress=thread needs "
                           "MPI_THREAD_MULTIPLE, which this MPI does not "
                           "provide; using ops\n");
      progress = Progress::Ops;
    }
  } else {
    MPI_Init(argc, argv);
  }
  detail::setProgress(progress);
  initializedHere = true;
}

void finalize() {
  detail::stopProgressThread();
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

namespace {
/// The ranks of this node (MPI_COMM_TYPE_SHARED); the caller frees it.
MPI_Comm nodeComm() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &node);
  return node;
}

/// `query` (MPI_Comm_rank or MPI_Comm_size) on this node's ranks; `single`
/// without MPI.
int ofNode(int (*query)(MPI_Comm, int *), int single) {
  ensureInit();
  if (!active())
    return single;
  MPI_Comm node = nodeComm();
  int v = single;
  query(node, &v);
  MPI_Comm_free(&node);
  return v;
}
} // namespace

int localSize() { return ofNode(MPI_Comm_size, 1); }

int localRank() { return ofNode(MPI_Comm_rank, 0); }

std::vector<char> localAllgather(const void *data, int bytes) {
  ensureInit();
  const char *first = static_cast<const char *>(data);
  if (!active())
    return std::vector<char>(first, first + bytes);
  MPI_Comm node = nodeComm();
  int s = 1;
  MPI_Comm_size(node, &s);
  std::vector<char> all(static_cast<size_t>(s) * bytes);
  CollectiveCall call = beginCollective("node allgather", bytes);
  detail::run(
      call,
      [&] {
        MPI_Allgather(data, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, node);
      },
      [&](MPI_Request *r) {
        MPI_Iallgather(data, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, node,
                       r);
      });
  MPI_Comm_free(&node);
  return all;
}

void allgather(const void *mine, void *all, int bytes) {
  if (size() == 1) {
    std::memcpy(all, mine, bytes);
    return;
  }
  CollectiveCall call = beginCollective("allgather", bytes);
  detail::run(
      call,
      [&] {
        MPI_Allgather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE,
                      MPI_COMM_WORLD);
      },
      [&](MPI_Request *r) {
        MPI_Iallgather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE,
                       MPI_COMM_WORLD, r);
      });
}

void allreduce(float *data, int64_t n, ReduceOp op) {
  int ranks = size();
  if (ranks > 1) {
    CollectiveCall call = beginCollective("allreduce", n * sizeof(float));
    // MPI counts are int; reduce huge buffers in pieces.
    constexpr int64_t chunk = 1 << 30;
    for (int64_t done = 0; done < n; done += chunk) {
      float *p = data + done;
      int count = static_cast<int>(std::min(chunk, n - done));
      detail::run(
          call,
          [&] {
            MPI_Allreduce(MPI_IN_PLACE, p, count, MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD);
          },
          [&](MPI_Request *r) {
            MPI_Iallreduce(MPI_IN_PLACE, p, count, MPI_FLOAT, MPI_SUM,
                           MPI_COMM_WORLD, r);
          });
    }
  }
  if (op == ReduceOp::Mean && ranks > 1)
    for (int64_t i = 0; i < n; ++i)
      data[i] /= static_cast<float>(ranks);
}

namespace {
constexpr int64_t kChunk = 1 << 30; // MPI counts are int

/// MPI_Bcast of `bytes` bytes from `root` of `c`. `call` is numbered by the
/// caller on every rank, also on those that skip a sub-communicator's part.
void broadcastIn(MPI_Comm c, void *data, int64_t bytes, int root,
                 const CollectiveCall &call) {
  for (int64_t done = 0; done < bytes; done += kChunk) {
    char *p = static_cast<char *>(data) + done;
    int count = static_cast<int>(std::min(kChunk, bytes - done));
    detail::run(
        call, [&] { MPI_Bcast(p, count, MPI_BYTE, root, c); },
        [&](MPI_Request *r) { MPI_Ibcast(p, count, MPI_BYTE, root, c, r); });
  }
}
} // namespace

void broadcast(void *data, int64_t bytes, int root) {
  if (size() == 1)
    return;
  broadcastIn(MPI_COMM_WORLD, data, bytes, root,
              beginCollective("broadcast", bytes));
}

namespace {
/// MPI_Reduce (sum) of `n` floats to `root` of `c`, in place at the root.
void reduceIn(MPI_Comm c, float *data, int64_t n, int root,
              const CollectiveCall &call) {
  int me = 0;
  MPI_Comm_rank(c, &me);
  for (int64_t done = 0; done < n; done += kChunk) {
    int count = static_cast<int>(std::min(kChunk, n - done));
    // In place at the root; the others only send.
    const void *send = me == root ? MPI_IN_PLACE : data + done;
    void *recv = me == root ? data + done : nullptr;
    detail::run(
        call,
        [&] { MPI_Reduce(send, recv, count, MPI_FLOAT, MPI_SUM, root, c); },
        [&](MPI_Request *r) {
          MPI_Ireduce(send, recv, count, MPI_FLOAT, MPI_SUM, root, c, r);
        });
  }
}

void divide(float *data, int64_t n, int ranks) {
  for (int64_t i = 0; i < n; ++i)
    data[i] /= static_cast<float>(ranks);
}

/// The ranks of each node, and the proxies of the nodes for one root, as
/// communicators: created on first use by every rank (the collectives that
/// use them run in the same order on all ranks), kept for the process.
struct NodeComms {
  std::vector<int> layout; // first rank of every node, and the world size
  MPI_Comm node = MPI_COMM_NULL;
  std::map<int, MPI_Comm> proxies; // by root; MPI_COMM_NULL off the proxies
};

std::vector<int> layoutOf(const Placement &p) {
  std::vector<int> out;
  for (int k = 0; k <= p.numNodes(); ++k)
    out.push_back(k < p.numNodes() ? p.firstRank(k) : p.worldSize());
  return out;
}

/// The proxy of node `node` for `root`.
int proxyOf(const Placement &p, int node, int root) {
  return p.nodeOfRank(root) == node ? root : p.firstRank(node);
}

NodeComms &nodeComms(const Placement &p) {
  static NodeComms comms;
  std::vector<int> layout = layoutOf(p);
  if (comms.layout != layout) {
    comms = NodeComms();
    comms.layout = layout;
    MPI_Comm_split(MPI_COMM_WORLD, p.nodeOfRank(rank()), rank(), &comms.node);
  }
  return comms;
}

/// The proxies for `root`, the root first; MPI_COMM_NULL on other ranks.
MPI_Comm proxyComm(const Placement &p, int root) {
  NodeComms &comms = nodeComms(p);
  auto it = comms.proxies.find(root);
  if (it != comms.proxies.end())
    return it->second;
  int me = rank();
  bool proxy = proxyOf(p, p.nodeOfRank(me), root) == me;
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, proxy ? 0 : MPI_UNDEFINED,
                 me == root ? 0 : me + 1, &c);
  return comms.proxies[root] = c;
}

int commSize(MPI_Comm c) {
  int s = 1;
  MPI_Comm_size(c, &s);
  return s;
}
} // namespace

void reduce(float *data, int64_t n, ReduceOp op, int root) {
  int ranks = size();
  if (ranks == 1)
    return;
  reduceIn(MPI_COMM_WORLD, data, n, root,
           beginCollective("reduce", n * sizeof(float)));
  if (op == ReduceOp::Mean && rank() == root)
    divide(data, n, ranks);
}

void reduceViaNodes(float *data, int64_t n, ReduceOp op, int root,
                    const Placement &p) {
  int ranks = size();
  if (ranks == 1)
    return;
  int me = rank(), node = p.nodeOfRank(me);
  NodeComms &comms = nodeComms(p);
  MPI_Comm proxies = proxyComm(p, root);
  int proxy = proxyOf(p, node, root);
  CollectiveCall call = beginCollective("reduce", n * sizeof(float));
  if (p.endRank(node) - p.firstRank(node) > 1)
    reduceIn(comms.node, data, n, proxy - p.firstRank(node), call);
  if (proxies != MPI_COMM_NULL && commSize(proxies) > 1)
    reduceIn(proxies, data, n, 0, call);
  if (op == ReduceOp::Mean && me == root)
    divide(data, n, ranks);
}

void broadcastViaNodes(void *data, int64_t bytes, int root,
                       const Placement &p) {
  if (size() == 1)
    return;
  int me = rank(), node = p.nodeOfRank(me);
  NodeComms &comms = nodeComms(p);
  MPI_Comm proxies = proxyComm(p, root);
  CollectiveCall call = beginCollective("broadcast", bytes);
  if (proxies != MPI_COMM_NULL && commSize(proxies) > 1)
    broadcastIn(proxies, data, bytes, 0, call);
  if (p.endRank(node) - p.firstRank(node) > 1)
    broadcastIn(comms.node, data, bytes,
                proxyOf(p, node, root) - p.firstRank(node), call);
}

void sendTo(void *data, int64_t bytes, int from, int to) {
  int me = rank();
  // Numbered on every rank (all of them make the call), used by two.
  CollectiveCall call = beginCollective("send", bytes);
  if (from == to || (me != from && me != to))
    return;
  for (int64_t done = 0; done < bytes; done += kChunk) {
    int count = static_cast<int>(std::min(kChunk, bytes - done));
    char *p = static_cast<char *>(data) + done;
    if (me == from)
      detail::run(
          call, [&] { MPI_Send(p, count, MPI_BYTE, to, 0, MPI_COMM_WORLD); },
          [&](MPI_Request *r) {
            MPI_Isend(p, count, MPI_BYTE, to, 0, MPI_COMM_WORLD, r);
          });
    else
      detail::run(
          call,
          [&] {
            MPI_Recv(p, count, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
          },
          [&](MPI_Request *r) {
            MPI_Irecv(p, count, MPI_BYTE, from, 0, MPI_COMM_WORLD, r);
          });
  }
}

int allreduceMax(int value) { return reduceInt(value, MPI_MAX); }
int allreduceMin(int value) { return reduceInt(value, MPI_MIN); }

void abort(int code) {
  if (active())
    MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

} // namespace autodist::rt::comm
