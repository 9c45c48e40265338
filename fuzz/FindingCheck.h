//===- FindingCheck.h - Report a broken invariant as a crash ----*- C++ -*-===//
//
// libFuzzer only notices crashes and sanitizer reports, so a harness turns a
// violated property of the code under test (e.g. a parsed value that does
// not survive printing and parsing again) into an abort with a message.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_FUZZ_FINDINGCHECK_H
#define AUTODIST_FUZZ_FINDINGCHECK_H

#include <cstdio>
#include <cstdlib>

namespace autodist::fuzz {

[[noreturn]] inline void finding(const char *what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

inline void check(bool ok, const char *what) {
  if (!ok)
    finding(what);
}

} // namespace autodist::fuzz

#endif // AUTODIST_FUZZ_FINDINGCHECK_H
