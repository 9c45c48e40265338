//===- AtomicFile.h - All-or-nothing file writes ----------------*- C++ -*-===//
//
// Output files (--save, --predict) are written to a temporary file in the
// target directory and renamed over the target, so a failure never leaves a
// half-written file behind.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ATOMICFILE_H
#define AUTODIST_RUNTIME_ATOMICFILE_H

#include <string>
#include <string_view>

namespace autodist::rt {

/// Replaces `path` with `contents`; throws Error naming `path` on failure.
void writeFileAtomically(const std::string &path, std::string_view contents);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_ATOMICFILE_H
