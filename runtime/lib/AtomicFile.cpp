//===- AtomicFile.cpp - All-or-nothing file writes ------------------------===//

#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/OutputPath.h"
#include "autodist/runtime/TempFileRegistry.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace autodist::rt {

AtomicFileWriter::AtomicFileWriter(const std::string &path)
    : path_(path), target_(followSymlinks(path)),
      tmp_(target_ + ".tmp-XXXXXX") {
  // Never rename over a device, FIFO, socket or directory.
  checkOutputPath(path_);
  fd_ = tempfiles::create(tmp_, slot_);
  if (fd_ < 0)
    fail(errno);
  // mkstemp creates 0600; give the file the permissions a plain create would.
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd_, 0666 & ~mask) != 0)
    fail(errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    close(fd_);
    unlink(tmp_.c_str());
  }
  tempfiles::forget(slot_);
}

void AtomicFileWriter::fail(int err) {
  tempfiles::pauseIfDying();
  if (fd_ >= 0) {
    close(fd_);
    unlink(tmp_.c_str());
    fd_ = -1;
  }
  tempfiles::forget(slot_);
  slot_ = -1;
  throw Error("cannot write " + inQuotes(path_) + ": " + std::strerror(err));
}

void AtomicFileWriter::write(const void *data, size_t size) {
  auto bytes = static_cast<const char *>(data);
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd_, bytes + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      fail(errno);
    done += n;
  }
  offset_ += size;
}

void AtomicFileWriter::commit() {
  if (fsync(fd_) != 0)
    fail(errno);
  int rc = close(fd_);
  fd_ = -1;
  if (rc != 0 || std::rename(tmp_.c_str(), target_.c_str()) != 0) {
    int err = errno;
    tempfiles::pauseIfDying();
    unlink(tmp_.c_str());
    tempfiles::forget(slot_);
    slot_ = -1;
    throw Error("cannot write " + inQuotes(path_) + ": " + std::strerror(err));
  }
  // Only now: a signal before the rename removes the temporary.
  tempfiles::forget(slot_);
  slot_ = -1;
}

void writeFileAtomically(const std::string &path, std::string_view contents) {
  AtomicFileWriter out(path);
  out.write(contents);
  out.commit();
}

} // namespace autodist::rt
