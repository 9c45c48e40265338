//===- DirectoryLock.cpp - One run per checkpoint directory ---------------===//

#include "autodist/runtime/DirectoryLock.h"
#include "autodist/runtime/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace autodist::rt {

std::string DirectoryLock::path(const std::string &dir) {
  return dir + "/.lock";
}

DirectoryLock::DirectoryLock(const std::string &dir) {
  std::string file = path(dir);
  // O_CLOEXEC: a child process must not keep the lock past this run.
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0)
    throw Error("cannot lock checkpoint directory " + inQuotes(dir) + ": " +
                inQuotes(file) + ": " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0)
    return;
  int err = errno;
  close(fd_);
  fd_ = -1;
  if (err == EWOULDBLOCK)
    throw Error("checkpoint directory " + inQuotes(dir) +
                " is in use by another run (it holds " + inQuotes(file) +
                "); wait for it to finish or use another --checkpoint");
  throw Error("cannot lock checkpoint directory " + inQuotes(dir) + ": " +
              std::strerror(err));
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0)
    close(fd_); // releases the lock
}

} // namespace autodist::rt
