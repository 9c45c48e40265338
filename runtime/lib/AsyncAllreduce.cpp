//===- AsyncAllreduce.cpp - Started all-reduces and their progress --------===//
//
// `dist.all_reduce_start` / `dist.wait` at run time: a table of started
// MPI_Iallreduce requests, and how they move forward while compiled code
// computes. OpenMPI progresses a non-blocking collective only inside MPI
// calls (its build reports "OMPI progress: no"), so something has to call
// MPI while the step computes (--comm-progress, docs/netcluster.md measures
// the three):
//
//   starts  each start tests the requests in flight;
//   ops     also every operator boundary of the compiled code (the trace
//           hooks, sgemm and convolution calls), when requests are in flight;
//   thread  a progress thread tests them every 100 us while any are in
//           flight (MPI_THREAD_MULTIPLE).
//
//===----------------------------------------------------------------------===//

#include "AsyncAllreduce.h"
#include "CommTimeout.h"
#include "autodist/runtime/MpiTransport.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mpi.h>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace autodist::rt::comm {

using detail::beginCollective;
using detail::CollectiveCall;

namespace {
/// A started non-blocking all-reduce: one request per MPI-sized piece.
struct PendingAllreduce {
  float *data = nullptr;
  int64_t n = 0;
  std::vector<MPI_Request> requests;
  CollectiveCall call;
  bool used = false;
};

/// The request table; a handle is an index. Freed slots are reused. All
/// access holds `tableMutex` (the progress thread tests the requests too;
/// MPI forbids two threads on one request).
std::vector<PendingAllreduce> &pending() {
  static std::vector<PendingAllreduce> table;
  return table;
}
std::mutex tableMutex;
/// Started and not yet waited for; read without the lock at op boundaries.
std::atomic<int> inFlight{0};

Progress mode = Progress::Ops;

/// Lets MPI progress the started all-reduces. Holds `tableMutex`.
void poke() {
  for (PendingAllreduce &p : pending()) {
    if (!p.used || p.requests.empty())
      continue;
    int done = 0;
    MPI_Testall(static_cast<int>(p.requests.size()), p.requests.data(), &done,
                MPI_STATUSES_IGNORE);
  }
}

/// The progress thread (Progress::Thread): sleeps while nothing is in
/// flight, else tests the requests every `interval`.
struct ProgressThread {
  std::thread thread;
  std::condition_variable wake;
  bool stop = false;

  void run() {
    const auto interval = std::chrono::microseconds(100);
    std::unique_lock<std::mutex> lock(tableMutex);
    while (!stop) {
      if (inFlight.load() == 0) {
        wake.wait(lock, [&] { return stop || inFlight.load() > 0; });
        continue;
      }
      poke();
      lock.unlock();
      std::this_thread::sleep_for(interval);
      lock.lock();
    }
  }
};

ProgressThread &progressThread() {
  static ProgressThread t;
  return t;
}
} // namespace

std::optional<Progress> parseProgress(const std::string &value) {
  if (value == "starts")
    return Progress::Starts;
  if (value == "ops")
    return Progress::Ops;
  if (value == "thread")
    return Progress::Thread;
  return std::nullopt;
}

void detail::setProgress(Progress p) { mode = p; }

Progress progress() { return mode; }

void progressAtOpBoundary() {
  if (mode != Progress::Ops || inFlight.load(std::memory_order_relaxed) == 0)
    return;
  // At most one test per 200 µs: a stale bucket is in flight during a whole
  // step, and a model of many small operators would otherwise poll every
  // socket at each of them. (On the emulated cluster this did not change
  // the step time measurably; it bounds the cost.)
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  Clock::time_point now = Clock::now();
  if (now - last < std::chrono::microseconds(200))
    return;
  last = now;
  std::lock_guard<std::mutex> lock(tableMutex);
  poke();
}

void detail::stopProgressThread() {
  ProgressThread &t = progressThread();
  if (!t.thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(tableMutex);
    t.stop = true;
  }
  t.wake.notify_one();
  t.thread.join();
}

int allreduceStart(float *data, int64_t n) {
  bool multi = size() > 1;
  std::unique_lock<std::mutex> lock(tableMutex);
  std::vector<PendingAllreduce> &table = pending();
  auto slot = std::find_if(table.begin(), table.end(),
                           [](const PendingAllreduce &p) { return !p.used; });
  int handle = static_cast<int>(slot - table.begin());
  if (slot == table.end())
    table.emplace_back();
  PendingAllreduce &p = table[handle];
  p.data = data;
  p.n = n;
  p.used = true;
  p.requests.clear();
  ++inFlight;
  if (multi) {
    poke();
    p.call = beginCollective("allreduce_start", n * sizeof(float));
    // Chunks whose messages stay eager (no rendezvous to wait for between
    // two progress calls); the sum is per element, so unchanged.
    constexpr int64_t chunk = kStartedAllreduceChunkBytes / sizeof(float);
    for (int64_t done = 0; done < n; done += chunk) {
      p.requests.emplace_back();
      MPI_Iallreduce(MPI_IN_PLACE, data + done,
                     static_cast<int>(std::min(chunk, n - done)), MPI_FLOAT,
                     MPI_SUM, MPI_COMM_WORLD, &p.requests.back());
    }
    if (mode == Progress::Thread) {
      ProgressThread &t = progressThread();
      if (!t.thread.joinable())
        t.thread = std::thread([&t] { t.run(); });
      lock.unlock();
      t.wake.notify_one();
    }
  }
  return handle + 1;
}

void allreduceWait(int handle, float *data, ReduceOp op) {
  if (handle == 0) // nothing in flight (e.g. the first stale step)
    return;
  --handle;
  std::lock_guard<std::mutex> lock(tableMutex);
  std::vector<PendingAllreduce> &table = pending();
  if (handle < 0 || handle >= static_cast<int>(table.size()) ||
      !table[handle].used || table[handle].data != data)
    throw std::invalid_argument("no all-reduce " + std::to_string(handle + 1) +
                                " started on this buffer");
  PendingAllreduce &p = table[handle];
  if (!p.requests.empty())
    detail::waitAll(static_cast<int>(p.requests.size()), p.requests.data(),
                    p.call);
  int ranks = size();
  if (op == ReduceOp::Mean && ranks > 1)
    for (int64_t i = 0; i < p.n; ++i)
      data[i] /= static_cast<float>(ranks);
  p = PendingAllreduce();
  --inFlight;
}

int pendingAllreduces() { return inFlight.load(); }

} // namespace autodist::rt::comm
