//===- ReplayMain.cpp - Run a fuzz harness on files, without libFuzzer ----===//
//
// Linked with one harness's LLVMFuzzerTestOneInput instead of libFuzzer, so
// that the normal (g++) build replays the seed corpora and the committed
// crash reproducers: `<harness>-replay FILE|DIR...` feeds every file (the
// files of a directory, recursively) to the harness, one call each, and
// prints how many it ran and how many the parser accepted. A finding aborts,
// as it would under libFuzzer, after the name of the input it was found on.
//
//===----------------------------------------------------------------------===//

#include "AcceptedInputs.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

static bool runFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read '%s'\n", path.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so that reads past its end are
  // heap overflows under AddressSanitizer, as under libFuzzer.
  std::vector<uint8_t> data(bytes.begin(), bytes.end());
  std::fprintf(stderr, "input '%s'\n", path.c_str());
  LLVMFuzzerTestOneInput(data.data(), data.size());
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto &entry : fs::recursive_directory_iterator(argv[i]))
        if (entry.is_regular_file())
          files.push_back(entry.path());
      std::sort(files.begin(), files.end()); // a stable order to report
    } else {
      files.push_back(argv[i]);
    }
    for (const fs::path &file : files) {
      if (!runFile(file))
        return 1;
      ++count;
    }
  }
  std::printf("replayed %zu inputs, %zu accepted\n", count,
              autodist::fuzz::acceptedInputs());
  return 0;
}
