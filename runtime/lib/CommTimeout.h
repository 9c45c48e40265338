//===- CommTimeout.h - Bounded waits for the collectives --------*- C++ -*-===//
//
// --comm-timeout (comm::setTimeout): every collective of Comm.cpp is a
// non-blocking MPI call completed here. Without a timeout that is
// MPI_Waitall. With one, the requests are polled against a deadline; a
// collective that misses it ends the job: the ranks still waiting tell each
// other which collective they are in (point to point, on a communicator of
// their own, for a short grace period), the lowest of them names the ranks
// that never answered (stopped, frozen, or stuck outside the collectives)
// and MPI_Abort ends every process. Polling is what MPI_Waitall's own
// progress loop does; the clock is read between polls, the roll call's
// communicator probed only after 50 ms of waiting.
//
// Private to the runtime library: the rest of it sees comm:: only.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_LIB_COMMTIMEOUT_H
#define AUTODIST_RUNTIME_LIB_COMMTIMEOUT_H

#include <cstdint>
#include <mpi.h>

namespace autodist::rt::comm::detail {

/// One collective call of this rank, for the timeout's message: its number
/// (every rank makes the same calls in the same order, so a number names
/// the same collective on every rank), its name and payload in bytes.
struct CollectiveCall {
  uint64_t number = 0;
  const char *name = "";
  int64_t bytes = 0;
};

/// Numbers this rank's next collective call.
CollectiveCall beginCollective(const char *name, int64_t bytes);

/// Completes the `n` requests of `call` (MPI_Waitall, or polled against
/// the timeout; on timeout it does not return).
void waitAll(int n, MPI_Request *requests, const CollectiveCall &call);
inline void wait(MPI_Request &request, const CollectiveCall &call) {
  waitAll(1, &request, call);
}

/// Whether waits are now bounded: a timeout is set, and no
/// comm::WithoutTimeout lives.
bool bounded();

/// One MPI call of `call`: its blocking form `blocking()` when waits are
/// not bounded (MPI's tuned algorithms for blocking calls: --comm-timeout=0
/// gives exactly the results and speed of having no timeout), else its
/// non-blocking form `start(&request)`, completed by wait().
template <typename Blocking, typename Start>
void run(const CollectiveCall &call, Blocking blocking, Start start) {
  if (!bounded()) {
    blocking();
    return;
  }
  MPI_Request request;
  start(&request);
  wait(request, call);
}

} // namespace autodist::rt::comm::detail

#endif // AUTODIST_RUNTIME_LIB_COMMTIMEOUT_H
