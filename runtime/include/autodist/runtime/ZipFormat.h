//===- ZipFormat.h - ZIP record signatures shared by reader and writer ----===//
#ifndef AUTODIST_RUNTIME_ZIPFORMAT_H
#define AUTODIST_RUNTIME_ZIPFORMAT_H

#include <cstdint>

namespace autodist::rt::zip {
constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
// zlib counts in uInt; feed it at most this much at a time.
constexpr uint64_t kZlibChunk = 1u << 30;
} // namespace autodist::rt::zip

#endif // AUTODIST_RUNTIME_ZIPFORMAT_H
