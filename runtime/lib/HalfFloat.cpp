//===- HalfFloat.cpp - float32 -> IEEE half -------------------------------===//

#include "autodist/runtime/HalfFloat.h"

namespace autodist::rt {

// The compiler's conversion rounds as IEEE says (ties to even, overflow to
// infinity, subnormals), in hardware where there is F16C.
static_assert(sizeof(_Float16) == 2, "IEEE half must be 2 bytes");

uint16_t floatToHalf(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

} // namespace autodist::rt
