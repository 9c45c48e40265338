//===- DirectoryLock.h - One run per checkpoint directory -------*- C++ -*-===//
//
// Two runs writing the same checkpoint directory would replace each other's
// checkpoints, and a resumed run could read one the other is about to
// replace. The rank that writes the checkpoint (rank 0) holds an exclusive
// flock on DIR/.lock for the whole run; the kernel drops it when the process
// ends, however it ends, so a killed run never leaves the directory locked.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_DIRECTORYLOCK_H
#define AUTODIST_RUNTIME_DIRECTORYLOCK_H

#include <string>

namespace autodist::rt {

class DirectoryLock {
public:
  /// Locks the existing directory `dir` without waiting; throws Error
  /// naming it if another process holds the lock or it cannot be taken.
  explicit DirectoryLock(const std::string &dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;

  /// DIR/.lock.
  static std::string path(const std::string &dir);

private:
  int fd_ = -1;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DIRECTORYLOCK_H
