//===- Traffic.h - Communication the compiled step asks for -----*- C++ -*-===//
//
// Counts the collectives the compiled training step calls and their payload,
// per rank, so the metrics log shows what each strategy costs.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_RUNTIME_TRAFFIC_H
#define AUTODIST_RUNTIME_TRAFFIC_H

#include <cstdint>

namespace autodist::rt::traffic {

struct Counts {
  /// Collective calls (one per bucket).
  int64_t collectives = 0;
  /// Payload bytes this rank contributed to them.
  int64_t bytes = 0;
};

/// Records one collective over `bytes` of payload.
void record(int64_t bytes);

/// The counts since the last call, which resets them.
Counts take();

} // namespace autodist::rt::traffic

#endif // AUTODIST_RUNTIME_TRAFFIC_H
