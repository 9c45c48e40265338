//===- CheckpointFuzzer.cpp - Fuzz the checkpoint reader ------------------===//
//
// Checkpoint::read of a model whose parameters and optimizer state are
// kParams and kState: the 2-layer MLP of examples/mlp/make_mlp.py --in 4
// --hidden 3 --classes 2 trained with Adam, which fuzz/make_corpus.py trains
// to write the seed checkpoint. An Error is a clean rejection; an accepted
// checkpoint must hold exactly the arrays it was asked for.
//
// Input: a checkpoint.npz as written (it starts with a zip signature, "PK"),
// or, so that the fuzzer can change the entries without breaking their
// CRCs, a list of entries the harness zips itself with the runtime's
// NpzWriter: repeated [u8 name length][name][u32 LE data length][data],
// lengths cut at the end of the input.
//
//===----------------------------------------------------------------------===//

#include "AcceptedInputs.h"
#include "FindingCheck.h"
#include "ScratchFile.h"

#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Checkpoint.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/NpzWriter.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string_view>

using namespace autodist;
using rt::DType;
using rt::TensorSpec;

static const std::vector<TensorSpec> kParams = {
    {"fc1.weight", {3, 4}, DType::F32},
    {"fc1.bias", {3}, DType::F32},
    {"fc2.weight", {2, 3}, DType::F32},
    {"fc2.bias", {2}, DType::F32}};

static std::vector<TensorSpec> adamState() {
  std::vector<TensorSpec> state;
  for (const char *suffix : {"adam_m", "adam_v"})
    for (const TensorSpec &p : kParams)
      state.push_back({p.name + "/" + suffix, p.shape, DType::F32});
  return state;
}
static const std::vector<TensorSpec> kState = adamState();

/// Zips the entries listed in `data` (see the file comment) into `path`.
static void zipEntries(const std::string &path, const uint8_t *data,
                       size_t size) {
  rt::AtomicFileWriter out(path);
  rt::NpzWriter npz(out);
  size_t pos = 0;
  auto take = [&](size_t n) {
    n = std::min(n, size - pos);
    std::string_view bytes(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
    return bytes;
  };
  while (pos < size) {
    std::string name(take(data[pos++]));
    uint32_t length = 0;
    std::string_view field = take(4);
    std::memcpy(&length, field.data(), field.size()); // little-endian host
    npz.addFile(name, take(length));
  }
  npz.finish();
  out.commit();
}

static void checkMatches(const std::vector<rt::Tensor> &arrays,
                         const std::vector<TensorSpec> &specs) {
  fuzz::check(arrays.size() == specs.size(),
              "a checkpoint was read with the wrong number of arrays");
  for (size_t i = 0; i < specs.size(); ++i)
    fuzz::check(arrays[i].shape() == specs[i].shape &&
                    arrays[i].dtype() == DType::F32,
                "a checkpoint array does not have its spec's shape");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &dir = fuzz::scratchDir();
  std::string path = rt::Checkpoint::path(dir);
  bool asWritten = size >= 2 && data[0] == 'P' && data[1] == 'K';
  // Removes checkpoint.npz however this input ends.
  fuzz::ScratchFile file("checkpoint.npz", asWritten ? data : nullptr,
                         asWritten ? size : 0);
  try {
    if (!asWritten)
      zipEntries(path, data, size);
    rt::Checkpoint c = rt::Checkpoint::read(dir, kParams, kState);
    checkMatches(c.params, kParams);
    checkMatches(c.state, kState);
    if (!c.residuals.sizes.empty()) {
      fuzz::check(c.residuals.perRank.size() ==
                      static_cast<size_t>(c.info.worldSize),
                  "checkpoint residuals are not one list per rank");
      int64_t total = std::accumulate(c.residuals.sizes.begin(),
                                      c.residuals.sizes.end(), int64_t(0));
      for (const std::vector<float> &r : c.residuals.perRank)
        fuzz::check(static_cast<int64_t>(r.size()) == total,
                    "a rank's checkpoint residuals do not fill its buckets");
    }
    fuzz::countAccepted();
  } catch (const rt::Error &) {
  }
  return 0;
}
