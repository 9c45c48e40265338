//===- TempFileRegistry.cpp - Temporaries removed on SIGINT/SIGTERM -------===//

#include "autodist/runtime/TempFileRegistry.h"

#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace autodist::rt::tempfiles {

namespace {
// A run has a handful of outputs open at once (--save's model and data
// file, a checkpoint, a trace).
constexpr int kSlots = 16;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

struct Slot {
  char path[PATH_MAX];
  std::atomic<bool> used{false}; // lock-free, so readable in the handler
};
Slot slots[kSlots];
struct sigaction previous[sizeof kSignals / sizeof kSignals[0]];

void onSignal(int sig) {
  for (Slot &s : slots)
    if (s.used.load())
      unlink(s.path);
  // Then what would have happened without us: usually the default action,
  // ending the process by `sig` (delivered when this handler returns).
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i)
    if (kSignals[i] == sig)
      sigaction(sig, &previous[i], nullptr);
  raise(sig);
}

void installHandlers() {
  struct sigaction action = {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals)
    sigaddset(&action.sa_mask, sig); // one handler run at a time
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    sigaction(kSignals[i], nullptr, &previous[i]);
    if (previous[i].sa_handler == SIG_IGN)
      continue; // e.g. nohup: the signal does not end the process
    sigaction(kSignals[i], &action, nullptr);
  }
}
} // namespace

int remember(const std::string &path) {
  static std::once_flag installed;
  std::call_once(installed, installHandlers);
  if (path.size() >= PATH_MAX)
    return -1;
  static std::mutex mutex; // slots are taken by one thread at a time
  std::lock_guard<std::mutex> lock(mutex);
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].used.load())
      continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].used.store(true); // the path is complete before it is seen
    return i;
  }
  return -1;
}

void forget(int slot) {
  if (slot >= 0)
    slots[slot].used.store(false);
}

} // namespace autodist::rt::tempfiles
