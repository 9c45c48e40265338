//===- LrSchedule.cpp - Learning rate per step ----------------------------===//

#include "autodist/runtime/LrSchedule.h"

#include <cmath>

namespace autodist::rt {

double LrSchedule::at(double lr, int64_t step) const {
  switch (kind) {
  case Kind::Constant:
    return lr;
  case Kind::Cosine: {
    if (step <= warmupSteps) // warmupSteps > 0 here, since step >= 1
      return lr * static_cast<double>(step) / warmupSteps;
    if (step >= totalSteps)
      return minLr;
    double progress =
        static_cast<double>(step - warmupSteps) / (totalSteps - warmupSteps);
    return minLr + (lr - minLr) * 0.5 * (1 + std::cos(M_PI * progress));
  }
  case Kind::Step:
    return lr * std::pow(gamma, static_cast<double>((step - 1) / stepSize));
  }
  return lr;
}

} // namespace autodist::rt
