//===- HalfFloat.h - bfloat16 and IEEE half <-> float32 ---------*- C++ -*-===//
//
// The runtime's one copy of the 16-bit float conversions: .npy reading and
// writing (bf16 tensors travel as float32) and the mixed-precision gemm
// (16-bit operands widened to float32). Both kinds are carried as their raw
// 16 bits (uint16_t), as compiled code stores them.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_HALFFLOAT_H
#define AUTODIST_RUNTIME_HALFFLOAT_H

#include <cstdint>
#include <cstring>

namespace autodist::rt {

/// Which 16-bit float a buffer of uint16_t holds.
enum class HalfType {
  BF16, ///< bfloat16: the upper 16 bits of an IEEE float32
  F16,  ///< IEEE binary16
};

/// "bf16" or "f16", for messages.
inline const char *halfTypeName(HalfType type) {
  return type == HalfType::BF16 ? "bf16" : "f16";
}

/// The float32 a bfloat16 stands for (exact: the bits are its upper half).
inline float bfloat16ToFloat(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// `f` rounded to the nearest bfloat16 (ties to even), as its 16 bits; a
/// NaN stays a (quiet) NaN.
inline uint16_t floatToBFloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

/// The float32 an IEEE half stands for (exact, subnormals, infinities and
/// NaN payloads included). Bit operations rather than _Float16, so that it
/// inlines into the widening loops on any x86-64 without F16C.
inline float halfToFloat(uint16_t h) {
  constexpr uint32_t halfExp = 0x7c00u << 13; // the exponent field, moved
  uint32_t u = uint32_t(h & 0x7fffu) << 13;
  uint32_t exp = u & halfExp;
  u += (127 - 15) << 23; // rebias
  if (exp == halfExp) {
    u += (128 - 16) << 23; // inf / NaN: all-ones exponent
  } else if (exp == 0) {
    // Zero or subnormal: m * 2^-24, computed as (1.m' - 1) * 2^-14 exactly.
    u += 1u << 23;
    float f, magic;
    uint32_t magicBits = 113u << 23; // 2^-14
    std::memcpy(&f, &u, sizeof f);
    std::memcpy(&magic, &magicBits, sizeof magic);
    f -= magic;
    std::memcpy(&u, &f, sizeof u);
  }
  u |= uint32_t(h & 0x8000u) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// `f` rounded to the nearest IEEE half (ties to even; overflow to
/// infinity), as its 16 bits.
uint16_t floatToHalf(float f);

/// The float32 `h` of `type` stands for.
inline float halfBitsToFloat(HalfType type, uint16_t h) {
  return type == HalfType::BF16 ? bfloat16ToFloat(h) : halfToFloat(h);
}

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_HALFFLOAT_H
