//===- NpzFuzzer.cpp - Fuzz the .npz / .npy readers -----------------------===//
//
// The bytes are a .npy array (they start with its magic) or a .npz archive,
// read the way the trainer reads --data / --eval files: every array as f32
// and as i64. An Error is a clean rejection. A decoded array must survive
// encoding and decoding again unchanged.
//
// Entries of a .npz are CRC-checked, so mutations inside an entry are mostly
// rejected by the zip reader; raw .npy inputs fuzz the array decoder behind it.
//
//===----------------------------------------------------------------------===//

#include "AcceptedInputs.h"
#include "FindingCheck.h"
#include "ScratchFile.h"

#include "autodist/runtime/Error.h"
#include "autodist/runtime/Npy.h"
#include "autodist/runtime/Npz.h"

#include <cstring>

using namespace autodist;
using rt::DType;

static void checkRoundTrip(const rt::Tensor &t, DType dtype) {
  rt::Tensor again = rt::decodeNpy(rt::encodeNpy(t), dtype, "re-encoded");
  fuzz::check(again.dtype() == t.dtype() && again.shape() == t.shape() &&
                  (t.byteSize() == 0 ||
                   std::memcmp(again.data(), t.data(), t.byteSize()) == 0),
              "an array changed on encoding and decoding it again");
}

static void decodeAs(const std::vector<uint8_t> &npy, DType dtype) {
  try {
    rt::Tensor t = rt::decodeNpy(npy, dtype, "fuzz.npy");
    checkRoundTrip(t, dtype);
    fuzz::countAccepted();
  } catch (const rt::Error &) {
  }
}

static void readArchive(const uint8_t *data, size_t size) {
  fuzz::ScratchFile file("data.npz", data, size);
  try {
    rt::NpzFile npz(file.path());
    for (const std::string &name : npz.arrayNames()) {
      for (DType dtype : {DType::F32, DType::I64}) {
        try {
          checkRoundTrip(npz.read(name, dtype), dtype);
          fuzz::countAccepted();
        } catch (const rt::Error &) {
        }
      }
    }
  } catch (const rt::Error &) {
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char kNpyMagic[] = "\x93NUMPY";
  if (size >= 6 && std::memcmp(data, kNpyMagic, 6) == 0) {
    std::vector<uint8_t> npy(data, data + size);
    decodeAs(npy, DType::F32);
    decodeAs(npy, DType::I64);
    return 0;
  }
  readArchive(data, size);
  return 0;
}
