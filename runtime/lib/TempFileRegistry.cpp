//===- TempFileRegistry.cpp - Temporaries removed on SIGINT/SIGTERM -------===//

#include "autodist/runtime/TempFileRegistry.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
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
// Threads inside create(): between mkstemp's open and the slot's path being
// final. A signal can land on another thread (BLAS, MPI) meanwhile.
std::atomic<int> creating{0};
// Set by the handler: a create() that starts after it makes no file.
std::atomic<bool> dying{false};

void onSignal(int sig) {
  dying.store(true);
  // Let a create() on another thread finish, so its file is in the table;
  // bounded, since the signal may have interrupted that very create().
  for (int i = 0; i < 200 && creating.load() > 0; ++i) {
    timespec ms = {0, 1000000};
    nanosleep(&ms, nullptr);
  }
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

void pauseIfDying() {
  while (dying.load())
    pause();
}

int create(std::string &path, int &slot) {
  creating.fetch_add(1);
  if (dying.load()) { // the handler runs on another thread: wait for the end
    creating.fetch_sub(1);
    pauseIfDying();
  }
  slot = remember(path);
  int fd;
  if (slot >= 0) {
    // mkstemp fills in the slot's own copy, so the handler sees the name
    // as soon as the file can exist.
    fd = mkstemp(slots[slot].path);
    if (fd >= 0)
      path = slots[slot].path;
  } else {
    fd = mkstemp(path.data());
  }
  int err = errno;
  creating.fetch_sub(1);
  if (fd < 0) {
    forget(slot);
    slot = -1;
  }
  errno = err;
  return fd;
}

void forget(int slot) {
  if (slot >= 0)
    slots[slot].used.store(false);
}

} // namespace autodist::rt::tempfiles
