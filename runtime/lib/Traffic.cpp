//===- Traffic.cpp - Communication the compiled step asks for -------------===//

#include "autodist/runtime/Traffic.h"

namespace autodist::rt::traffic {

namespace {
Counts current;
} // namespace

void record(int64_t bytes) {
  ++current.collectives;
  current.bytes += bytes;
}

Counts take() {
  Counts c = current;
  current = Counts();
  return c;
}

} // namespace autodist::rt::traffic
