//===- AtomicFile.cpp - All-or-nothing file writes ------------------------===//

#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace autodist::rt {

void writeFileAtomically(const std::string &path, std::string_view contents) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  auto failWith = [&](int err) {
    if (fd >= 0) {
      close(fd);
      unlink(tmp.c_str());
    }
    throw Error("cannot write " + inQuotes(path) + ": " + std::strerror(err));
  };
  if (fd < 0)
    failWith(errno);
  // mkstemp creates 0600; give the file the permissions a plain create would.
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0)
    failWith(errno);
  for (size_t done = 0; done < contents.size();) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      failWith(errno);
    done += n;
  }
  if (fsync(fd) != 0)
    failWith(errno);
  int rc = close(fd);
  fd = -1;
  if (rc != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    throw Error("cannot write " + inQuotes(path) + ": " + std::strerror(err));
  }
}

} // namespace autodist::rt
