//===- LrSchedule.h - Learning rate per step --------------------*- C++ -*-===//
//
// The manifest's `train.schedule` (docs/abi.md). The runtime, not the compiled
// step, computes each step's learning rate, so --lr can rescale a schedule
// without recompiling and a resumed run continues the schedule exactly.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_LRSCHEDULE_H
#define AUTODIST_RUNTIME_LRSCHEDULE_H

#include <cstdint>

namespace autodist::rt {

struct LrSchedule {
  enum class Kind { Constant, Cosine, Step };
  Kind kind = Kind::Constant;
  int64_t warmupSteps = 0; // cosine: linear warmup from 0
  int64_t totalSteps = 0;  // cosine: where min_lr is reached
  double minLr = 0;        // cosine
  int64_t stepSize = 0;    // step: steps between decays
  double gamma = 1;        // step: decay factor

  /// The learning rate of 1-based step `step` for base rate `lr`.
  double at(double lr, int64_t step) const;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_LRSCHEDULE_H
