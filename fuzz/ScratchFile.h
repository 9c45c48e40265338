//===- ScratchFile.h - A fuzz input as a file, removed after --*- C++ -*-===//
//
// The runtime's readers take paths. A harness writes its input into a
// per-process scratch directory (in memory under /dev/shm where there is
// one, else $TMPDIR or /tmp), removes the file once the input is done and the
// directory at exit, so fuzzing leaves nothing behind.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_FUZZ_SCRATCHFILE_H
#define AUTODIST_FUZZ_SCRATCHFILE_H

#include <cstdint>
#include <string>

namespace autodist::fuzz {

/// The process's scratch directory, made on first use.
const std::string &scratchDir();

/// `name` in scratchDir() holding `size` bytes from `data`, while it lives.
class ScratchFile {
public:
  ScratchFile(const std::string &name, const uint8_t *data, size_t size);
  ~ScratchFile();
  ScratchFile(const ScratchFile &) = delete;
  ScratchFile &operator=(const ScratchFile &) = delete;

  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace autodist::fuzz

#endif // AUTODIST_FUZZ_SCRATCHFILE_H
