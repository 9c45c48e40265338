//===- MpiTransport.h - Settings made before MPI starts --------*- C++ -*-===//
//-*-===//
//
// A collective started in one step and waited for later (overlapped buckets,
// the staleness pipeline) only moves inside MPI calls. Above Open MPI's TCP
// eager limit (64 KiB by default) a message waits for a rendezvous round
// trip, i.e. for both ranks' next MPI calls, before its data flows; below it
// the whole message goes to the kernel when the collective starts and
// travels while the ranks compute. comm::init raises the limit before
// MPI_Init, unless the launch sets one; a program that starts MPI itself
// calls raiseTcpEagerLimit first for the same effect.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_MPITRANSPORT_H
#define AUTODIST_RUNTIME_MPITRANSPORT_H

namespace autodist::rt::comm {

/// Open MPI's TCP eager limit set by comm::init: the chunks of buckets up to
/// 4 MiB per rank pair travel without a rendezvous.
inline constexpr const char *kTcpEagerLimit = "4194304";

/// Sets OMPI_MCA_btl_tcp_eager_limit to kTcpEagerLimit unless the environment
/// has it (mpirun's `--mca btl_tcp_eager_limit` arrives that way too). Only
/// under Open MPI; a no-op with other MPIs. Call before MPI_Init.
void raiseTcpEagerLimit();

} // namespace autodist::rt::comm

#endif // AUTODIST_RUNTIME_MPITRANSPORT_H
