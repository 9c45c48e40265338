//===- CommTimeout.cpp - Bounded waits for the collectives ----------------===//

#include "CommTimeout.h"
#include "autodist/runtime/Comm.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace autodist::rt::comm {

namespace {
using Clock = std::chrono::steady_clock;

/// How long the roll call waits for the other ranks' answers, and how long
/// a waiting rank lets pass before it listens for one (so that a
/// collective that completes soon never probes).
constexpr std::chrono::milliseconds kGrace(2000), kListenAfter(50);
/// A gap this long between two polls means this process was not running
/// (SIGSTOP, a frozen machine): its own waiting time is no evidence then.
constexpr std::chrono::milliseconds kFrozen(1000);
/// The roll call's tag on its own communicator.
constexpr int kRollCallTag = 7;

struct TimeoutState {
  double seconds = 0; // 0: wait forever
  MPI_Comm rollCall = MPI_COMM_NULL;
  uint64_t calls = 0; // collective calls numbered so far
};
TimeoutState &state() {
  static TimeoutState s;
  return s;
}

/// "0, 2 and 5".
std::string listOf(const std::vector<int> &ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i)
      s += i + 1 == ranks.size() ? " and " : ", ";
    s += std::to_string(ranks[i]);
  }
  return s;
}

std::string seconds(const TimeoutState &s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s.seconds);
  return buf;
}

std::string rankWord(const std::vector<int> &ranks) {
  return ranks.size() == 1 ? "rank " : "ranks ";
}

/// Tells every rank which collective this one waits in (`call`), hears
/// theirs for the grace period, and ends the job. Every waiting rank joins
/// in: an `initiator`, whose own deadline passed, or one that another
/// rank's report reached first. Only initiators speak: a rank that joins
/// may be the one the others waited for, continued (MPI_Abort sends
/// SIGCONT before it kills) with their reports long arrived.
[[noreturn]] void rollCall(const detail::CollectiveCall &call, bool initiator) {
  TimeoutState &s = state();
  int me = rank(), n = size();
  // A report: the collective's number, and whether the sender initiated.
  long long mine[2] = {static_cast<long long>(call.number), initiator ? 1 : 0};
  std::vector<long long> theirs(2 * static_cast<size_t>(n), -1);
  std::vector<MPI_Request> recvs(n, MPI_REQUEST_NULL),
      sends(n, MPI_REQUEST_NULL);
  for (int r = 0; r < n; ++r) {
    if (r == me)
      continue;
    MPI_Irecv(&theirs[2 * r], 2, MPI_LONG_LONG, r, kRollCallTag, s.rollCall,
              &recvs[r]);
    MPI_Isend(mine, 2, MPI_LONG_LONG, r, kRollCallTag, s.rollCall, &sends[r]);
  }
  theirs[2 * me] = mine[0];
  theirs[2 * me + 1] = mine[1];
  std::vector<bool> heard(n, false);
  heard[me] = true;
  int missing = n - 1;
  Clock::time_point end = Clock::now() + kGrace;
  while (missing > 0 && Clock::now() < end) {
    for (int r = 0; r < n; ++r) {
      if (heard[r])
        continue;
      int flag = 0;
      MPI_Test(&recvs[r], &flag, MPI_STATUS_IGNORE);
      if (flag) {
        heard[r] = true;
        --missing;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  std::vector<int> absent, waiting, elsewhere;
  for (int r = 0; r < n; ++r) {
    if (!heard[r])
      absent.push_back(r);
    else if (theirs[2 * r] == mine[0])
      waiting.push_back(r);
    else
      elsewhere.push_back(r);
  }
  // The lowest initiator speaks; the others give it time to.
  int speaker = 0;
  while (speaker < n && (!heard[speaker] || !theirs[2 * speaker + 1]))
    ++speaker;
  if (speaker == me) {
    std::string msg =
        "collective #" + std::to_string(call.number) + " (" + call.name + ", " +
        std::to_string(call.bytes) +
        " bytes) did not complete within --comm-timeout=" + seconds(s) + " s: ";
    if (!absent.empty())
      msg += rankWord(absent) + listOf(absent) +
             " did not arrive (stopped, frozen, or stuck outside the "
             "collectives)";
    else
      msg += "every rank is waiting in a collective (a deadlock)";
    msg += "; " + rankWord(waiting) + listOf(waiting) + " waited in it";
    for (int r : elsewhere)
      msg += ", rank " + std::to_string(r) + " in collective #" +
             std::to_string(theirs[2 * r]);
    msg += "; aborting the job";
    std::fprintf(stderr, "error: %s\n", msg.c_str());
    std::fflush(stderr);
  } else {
    std::this_thread::sleep_for(kGrace);
  }
  abort(1);
}
} // namespace

void setTimeout(double seconds) {
  TimeoutState &s = state();
  s.seconds = seconds;
  if (seconds > 0 && size() > 1 && s.rollCall == MPI_COMM_NULL)
    MPI_Comm_dup(MPI_COMM_WORLD, &s.rollCall);
}

WithoutTimeout::WithoutTimeout() : saved_(state().seconds) {
  state().seconds = 0;
}

WithoutTimeout::~WithoutTimeout() { state().seconds = saved_; }

namespace detail {

CollectiveCall beginCollective(const char *name, int64_t bytes) {
  return {++state().calls, name, bytes};
}

bool bounded() {
  const TimeoutState &s = state();
  return s.seconds > 0 && s.rollCall != MPI_COMM_NULL;
}

void waitAll(int n, MPI_Request *requests, const CollectiveCall &call) {
  const TimeoutState &s = state();
  if (!bounded()) {
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    return;
  }
  int done = 0;
  MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
  if (done)
    return;
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(s.seconds));
  const Clock::time_point start = Clock::now();
  const Clock::time_point listen = start + kListenAfter;
  Clock::time_point deadline = start + timeout, last = start;
  for (;;) {
    MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
    if (done)
      return;
    Clock::time_point now = Clock::now();
    if (now - last > kFrozen) // this process was not running
      deadline = now + timeout;
    last = now;
    if (now < listen)
      continue;
    // A slow collective: another rank may have started a roll call.
    int called = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, kRollCallTag, s.rollCall, &called,
               MPI_STATUS_IGNORE);
    if (now >= deadline)
      rollCall(call, /*initiator=*/true);
    if (called)
      rollCall(call, /*initiator=*/false);
  }
}

} // namespace detail
} // namespace autodist::rt::comm
