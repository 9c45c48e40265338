//===- ZipWriter.h - Minimal ZIP writer for tests ---------------*- C++ -*-===//
//
// Writes .npz-style archives (stored or raw-deflated entries) so the tests can
// make data files without numpy.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_TEST_RUNTIME_ZIPWRITER_H
#define AUTODIST_TEST_RUNTIME_ZIPWRITER_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace autodist::rt::test {

using ZipEntries = std::vector<std::pair<std::string, std::vector<uint8_t>>>;

/// Writes `entries` (name, bytes) to `path`; `deflate` compresses them.
void writeZip(const std::string &path, const ZipEntries &entries, bool deflate);

/// A hand-made .npy: `descr` like "<f8", `shape` like "(2, 3)".
std::vector<uint8_t> makeNpy(const std::string &descr, const std::string &shape,
                             const void *data, size_t bytes,
                             bool fortranOrder = false);

} // namespace autodist::rt::test

#endif // AUTODIST_TEST_RUNTIME_ZIPWRITER_H
