//===- ScratchFile.cpp - A fuzz input as a file, removed after use --------===//

#include "ScratchFile.h"

#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace autodist::fuzz {

static std::string makeScratchDir() {
  std::string base = "/tmp";
  struct stat st;
  if (const char *tmp = std::getenv("TMPDIR"); tmp && *tmp)
    base = tmp;
  else if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
           access("/dev/shm", W_OK) == 0)
    base = "/dev/shm";
  std::string pattern = base + "/autodist-fuzz-XXXXXX";
  // The harness cannot run without it: not a finding of the code under test,
  // but nothing to fuzz either.
  if (!mkdtemp(pattern.data())) {
    std::perror(("mkdtemp " + pattern).c_str());
    std::exit(1);
  }
  return pattern;
}

const std::string &scratchDir() {
  static const std::string dir = [] {
    std::string d = makeScratchDir();
    std::atexit([] { rmdir(scratchDir().c_str()); });
    return d;
  }();
  return dir;
}

ScratchFile::ScratchFile(const std::string &name, const uint8_t *data,
                         size_t size)
    : path_(scratchDir() + "/" + name) {
  std::FILE *f = std::fopen(path_.c_str(), "wb");
  // fwrite's buffer must not be null, even for no bytes.
  bool ok = f && (size == 0 || std::fwrite(data, 1, size, f) == size);
  if (f && std::fclose(f) != 0)
    ok = false;
  if (!ok) { // the environment's failure, not the code under test's
    std::perror(("cannot write " + path_).c_str());
    std::exit(1);
  }
}

ScratchFile::~ScratchFile() { std::remove(path_.c_str()); }

} // namespace autodist::fuzz
