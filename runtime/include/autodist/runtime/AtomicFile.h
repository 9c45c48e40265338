//===- AtomicFile.h - All-or-nothing file writes ----------------*- C++ -*-===//
//
// Output files (--save, --predict, checkpoints) are written to a temporary
// file in the target directory and renamed over the target, so a failure
// never leaves a half-written file behind and readers see the old or the new
// file, never a mix.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ATOMICFILE_H
#define AUTODIST_RUNTIME_ATOMICFILE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace autodist::rt {

/// Streams a file into `path`.tmp-XXXXXX; commit() renames it to `path`.
/// Destroyed without commit() (e.g. by an exception), it removes the
/// temporary. Errors are Error naming `path`. A symlink at `path` is
/// followed (the temporary goes beside its target, which is replaced; the
/// link stays); anything but a regular file there is refused
/// (checkOutputPath). A SIGINT/SIGTERM/SIGHUP while the temporary exists
/// removes it (TempFileRegistry.h).
class AtomicFileWriter {
public:
  explicit AtomicFileWriter(const std::string &path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;

  void write(const void *data, size_t size);
  void write(std::string_view s) { write(s.data(), s.size()); }
  /// Bytes written so far.
  uint64_t offset() const { return offset_; }
  /// Flushes to disk and renames over `path`.
  void commit();

private:
  [[noreturn]] void fail(int err);

  std::string path_, target_, tmp_;
  int fd_ = -1;
  int slot_ = -1; // tempfiles:: slot of tmp_ (removed on SIGINT/SIGTERM)
  uint64_t offset_ = 0;
};

/// Replaces `path` with `contents`; throws Error naming `path` on failure.
void writeFileAtomically(const std::string &path, std::string_view contents);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_ATOMICFILE_H
