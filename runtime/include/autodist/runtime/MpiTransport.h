//===- MpiTransport.h - Settings made before MPI starts --------*- C++ -*-===//
//
// A collective started in one step and waited for later (overlapped buckets,
// the staleness pipeline) only moves inside MPI calls, so how Open MPI runs
// it decides whether it finishes while the ranks compute. comm::init sets
// two Open MPI parameters before MPI_Init, each unless the launch sets it:
// - the TCP eager limit: above it (64 KiB by default) a message waits for a
//   rendezvous round trip, i.e. for both ranks' next MPI calls, before its
//   data flows; below it the whole message goes to the kernel when the
//   collective starts and travels while the ranks compute;
// - libnbc's MPI_Iallreduce algorithm: by default an in-place one is always
//   binomial (a reduce to rank 0, then a broadcast: the whole buffer crosses
//   rank 0's link twice, one way after the other).
// A program that starts MPI itself calls setOpenMpiDefaults first.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_MPITRANSPORT_H
#define AUTODIST_RUNTIME_MPITRANSPORT_H

#include <cstdint>

namespace autodist::rt::comm {

/// The TCP eager limit comm::init sets (bytes).
inline constexpr int64_t kTcpEagerLimitBytes = 4 << 20;

/// A started all-reduce is issued as MPI_Iallreduce calls of at most this
/// many bytes, so that each message of a 2-rank exchange (the whole chunk)
/// stays under the eager limit with the headers MPI adds.
inline constexpr int64_t kStartedAllreduceChunkBytes = kTcpEagerLimitBytes / 2;

/// libnbc's MPI_Iallreduce algorithm for a job of `worldSize` ranks (the
/// values of coll_libnbc_iallreduce_algorithm): with 2 ranks recursive
/// doubling ("4"), one exchange of the whole buffer in both directions at
/// once (the ring's bytes in one round instead of two); with more, reduce-
/// scatter + all-gather ("3"), whose bytes per rank do not grow with the
/// ranks.
const char *iallreduceAlgorithm(int worldSize);

/// Under Open MPI, sets OMPI_MCA_btl_tcp_eager_limit (kTcpEagerLimitBytes) and
/// OMPI_MCA_coll_libnbc_iallreduce_algorithm (for the world size in
/// OMPI_COMM_WORLD_SIZE) where the environment does not have them (mpirun's
/// `--mca` arrives that way too). A no-op with other MPIs. Call before
/// MPI_Init.
void setOpenMpiDefaults();

} // namespace autodist::rt::comm

#endif // AUTODIST_RUNTIME_MPITRANSPORT_H
