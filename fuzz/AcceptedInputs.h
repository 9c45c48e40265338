//===- AcceptedInputs.h - Count the inputs a harness accepted ---*- C++ -*-===//
//
// A harness calls countAccepted() when the parser under test accepted its
// input. ReplayMain prints the count, so that a test can tell a harness that
// exercises its parser from one that rejects every input up front.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_FUZZ_ACCEPTEDINPUTS_H
#define AUTODIST_FUZZ_ACCEPTEDINPUTS_H

#include <cstddef>

namespace autodist::fuzz {

inline size_t &acceptedInputs() {
  static size_t count = 0;
  return count;
}

inline void countAccepted() { ++acceptedInputs(); }

} // namespace autodist::fuzz

#endif // AUTODIST_FUZZ_ACCEPTEDINPUTS_H
