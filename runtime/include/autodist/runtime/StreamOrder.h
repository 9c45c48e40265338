//===- StreamOrder.h - A communication stream beside the compute stream -*- C++
//-*-===//
//
// The order of a device rank's started collectives (docs/cuda.md,
// "Overlap"): a collective runs on its own communication stream, so that
// the compute stream goes on with the backward pass while it travels
// (DDP's design). Events carry the two orders: the collective starts after
// everything the compute stream was given before it (its gradients), and
// the compute stream's work after the wait starts after the collective.
// Neither blocks the host.
//
// The logic takes its stream and event calls from a StreamApi, so that it
// is tested with a mock on machines without a GPU (test/runtime); the CUDA
// runtime gives it cudaEventRecord / cudaStreamWaitEvent.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_STREAMORDER_H
#define AUTODIST_RUNTIME_STREAMORDER_H

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace autodist::rt {

/// The stream and event calls StreamOrder needs (CUDA's, or a test's).
class StreamApi {
public:
  virtual ~StreamApi() = default;
  /// An event without timing (cudaEventDisableTiming).
  virtual void *createEvent() = 0;
  virtual void destroyEvent(void *event) noexcept = 0;
  /// Marks the work issued on `stream` so far (cudaEventRecord).
  virtual void record(void *event, void *stream) = 0;
  /// Work issued on `stream` after this waits for `event`'s last record
  /// (cudaStreamWaitEvent: the record at the time of this call).
  virtual void streamWait(void *stream, void *event) = 0;
};

/// Forks collectives off the compute stream onto the communication stream
/// and joins them back, with one reusable fork event and one event per
/// collective in flight (reused once joined: the steady state creates
/// none).
class StreamOrder {
public:
  StreamOrder(StreamApi &api, void *compute, void *comm)
      : api_(api), compute_(compute), comm_(comm) {}
  ~StreamOrder() {
    if (fork_)
      api_.destroyEvent(fork_);
    for (void *e : done_)
      api_.destroyEvent(e);
  }
  StreamOrder(const StreamOrder &) = delete;
  StreamOrder &operator=(const StreamOrder &) = delete;

  /// Orders the communication stream after what the compute stream has
  /// been given so far; returns the stream to issue the collective on.
  void *fork() {
    if (!fork_)
      fork_ = api_.createEvent();
    api_.record(fork_, compute_);
    api_.streamWait(comm_, fork_);
    return comm_;
  }

  /// Marks the end of the collective just issued on the communication
  /// stream: the token join() takes (>= 0).
  int recordDone() {
    size_t slot = 0;
    while (slot < busy_.size() && busy_[slot])
      ++slot;
    if (slot == busy_.size()) {
      done_.push_back(api_.createEvent());
      busy_.push_back(false);
    }
    api_.record(done_[slot], comm_);
    busy_[slot] = true;
    return static_cast<int>(slot);
  }

  /// Orders the compute stream after the collective of `token`, which is
  /// free again. Throws std::logic_error for a token not in flight.
  void join(int token) {
    if (token < 0 || static_cast<size_t>(token) >= busy_.size() ||
        !busy_[token])
      throw std::logic_error("stream order: join of collective " +
                             std::to_string(token) +
                             ", which is not in flight");
    api_.streamWait(compute_, done_[token]);
    busy_[token] = false;
  }

  /// Collectives forked and not joined yet.
  size_t inFlight() const {
    size_t n = 0;
    for (bool b : busy_)
      n += b;
    return n;
  }
  /// Events made so far (the fork event and the done events).
  size_t events() const { return (fork_ ? 1 : 0) + done_.size(); }

private:
  StreamApi &api_;
  void *compute_, *comm_;
  void *fork_ = nullptr;
  std::vector<void *> done_;
  std::vector<bool> busy_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_STREAMORDER_H
