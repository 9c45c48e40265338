//===- Checkpoint.cpp - Training checkpoints ------------------------------===//

#include "autodist/runtime/Checkpoint.h"
#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Npy.h"
#include "autodist/runtime/NpzWriter.h"
#include "autodist/runtime/Zip.h"

#include <algorithm>
#include <dirent.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace autodist::rt {

using nlohmann::json;

namespace {
constexpr const char *kFormat = "autodist-checkpoint";
constexpr const char *kMetaEntry = "checkpoint.json";

std::vector<std::string> namesOf(const std::vector<TensorSpec> &specs) {
  std::vector<std::string> out;
  for (const TensorSpec &s : specs)
    out.push_back(s.name);
  return out;
}

/// Loads the arrays `specs` ("parameter"s or "optimizer state"s, stored under
/// `dir`/) after checking that the checkpoint lists exactly those names.
std::vector<Tensor> readArrays(const ZipArchive &zip, const std::string &label,
                               const std::vector<std::string> &stored,
                               const std::vector<TensorSpec> &specs,
                               const std::string &kind,
                               const std::string &dir) {
  std::vector<std::string> wanted = namesOf(specs);
  for (const std::string &name : stored)
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end())
      throw Error(label + " has " + kind + " " + inQuotes(name) +
                  ", which the model does not have");
  std::vector<Tensor> out;
  for (const TensorSpec &spec : specs) {
    if (std::find(stored.begin(), stored.end(), spec.name) == stored.end())
      throw Error(label + " has no " + kind + " " + inQuotes(spec.name) +
                  " (the model's)");
    std::string what = kind + " " + inQuotes(spec.name) + " in " + label;
    Tensor t =
        decodeNpy(zip.read(dir + "/" + spec.name + ".npy"), DType::F32, what);
    if (t.shape() != spec.shape)
      throw Error(what + " has shape " + shapeString(t.shape()) +
                  ", but the model's is " + shapeString(spec.shape));
    out.push_back(std::move(t));
  }
  return out;
}
std::string residualEntry(size_t rank) {
  return "residuals/rank" + std::to_string(rank);
}

/// Loads the error-feedback residuals of `ranks` ranks, `sizes` elements
/// per bucket.
std::vector<std::vector<float>> readResiduals(const ZipArchive &zip,
                                              const std::string &label,
                                              const std::vector<int64_t> &sizes,
                                              int64_t ranks) {
  int64_t total = 0;
  for (int64_t n : sizes) {
    if (n < 0)
      throw Error(label + " has a negative residual size");
    // Nor may they wrap around: the sum sizes the buffers.
    if (__builtin_add_overflow(total, n, &total) ||
        !checkedByteSize({total}, sizeof(float)))
      throw Error(label + " has residual sizes whose sum overflows 64 bits");
  }
  std::vector<std::vector<float>> out;
  for (int64_t r = 0; r < ranks; ++r) {
    std::string entry = residualEntry(r), what = entry + " in " + label;
    Tensor t = decodeNpy(zip.read(entry + ".npy"), DType::F32, what);
    if (t.shape() != std::vector<int64_t>{total})
      throw Error(what + " has shape " + shapeString(t.shape()) +
                  ", but residual_sizes add up to " + std::to_string(total));
    const float *data = t.data<float>();
    out.emplace_back(data, data + total);
  }
  return out;
}
} // namespace

std::string Checkpoint::path(const std::string &dir) {
  return dir + "/checkpoint.npz";
}

std::vector<std::string>
Checkpoint::removeStaleTemporaries(const std::string &dir) {
  // AtomicFileWriter's names: the target, ".tmp-" and mkstemp's six chars.
  const std::string prefix = "checkpoint.npz.tmp-";
  std::vector<std::string> removed;
  DIR *d = opendir(dir.c_str());
  if (!d)
    return removed; // the lock was taken in it: cannot happen, nothing to do
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() != prefix.size() + 6 ||
        name.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::string file = dir + "/" + name;
    struct stat st;
    if (lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        unlink(file.c_str()) == 0)
      removed.push_back(file);
  }
  closedir(d);
  return removed;
}

void Checkpoint::write(const std::string &dir, const CheckpointInfo &info,
                       const std::vector<TensorSpec> &paramSpecs,
                       const std::vector<Tensor> &params,
                       const std::vector<TensorSpec> &stateSpecs,
                       const std::vector<Tensor> &state,
                       const Residuals &residuals) {
  json meta = {{"format", kFormat},
               {"version", kCheckpointVersion},
               {"step", info.step},
               {"world_size", info.worldSize},
               {"batch_size", info.batchSize},
               {"model", info.model},
               {"params", namesOf(paramSpecs)},
               {"state", namesOf(stateSpecs)}};
  if (info.seed)
    meta["seed"] = static_cast<int64_t>(*info.seed);
  if (!residuals.perRank.empty())
    meta["residual_sizes"] = residuals.sizes;
  AtomicFileWriter out(path(dir));
  NpzWriter npz(out);
  npz.addFile(kMetaEntry, meta.dump() + "\n");
  for (size_t i = 0; i < paramSpecs.size(); ++i)
    npz.addArray("params/" + paramSpecs[i].name, params[i]);
  for (size_t i = 0; i < stateSpecs.size(); ++i)
    npz.addArray("state/" + stateSpecs[i].name, state[i]);
  for (size_t r = 0; r < residuals.perRank.size(); ++r) {
    const std::vector<float> &v = residuals.perRank[r];
    Tensor t(DType::F32, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data<float>());
    npz.addArray(residualEntry(r), t);
  }
  npz.finish();
  out.commit();
}

Checkpoint Checkpoint::read(const std::string &dir,
                            const std::vector<TensorSpec> &paramSpecs,
                            const std::vector<TensorSpec> &stateSpecs) {
  std::string file = path(dir), label = "checkpoint " + inQuotes(file);
  struct stat st;
  if (stat(file.c_str(), &st) != 0)
    throw Error("cannot resume: there is no checkpoint " + inQuotes(file) +
                " (run without --resume to start from scratch)");
  ZipArchive zip(file, "checkpoint");
  if (!zip.contains(kMetaEntry))
    throw Error(label + " is not an AutoDist checkpoint (it has no " +
                kMetaEntry + ")");

  Checkpoint c;
  std::vector<std::string> params, state;
  try {
    std::vector<uint8_t> bytes = zip.read(kMetaEntry);
    json meta = json::parse(bytes.begin(), bytes.end());
    if (meta.at("format").get<std::string>() != kFormat)
      throw Error(label + " is not an AutoDist checkpoint (format " +
                  inQuotes(meta["format"].get<std::string>()) + ")");
    int version = meta.at("version").get<int>();
    if (version != kCheckpointVersion)
      throw Error(label + " has format version " + std::to_string(version) +
                  " (this runtime reads " + std::to_string(kCheckpointVersion) +
                  ")");
    c.info.step = meta.at("step").get<int64_t>();
    c.info.worldSize = meta.at("world_size").get<int64_t>();
    c.info.batchSize = meta.at("batch_size").get<int64_t>();
    c.info.model = meta.value("model", "");
    params = meta.at("params").get<std::vector<std::string>>();
    state = meta.at("state").get<std::vector<std::string>>();
    if (meta.contains("seed"))
      c.info.seed = static_cast<uint64_t>(meta["seed"].get<int64_t>());
    if (meta.contains("residual_sizes"))
      c.residuals.sizes = meta["residual_sizes"].get<std::vector<int64_t>>();
  } catch (const json::exception &e) {
    throw Error(label + " has a corrupt " + kMetaEntry + ": " + e.what());
  }
  if (c.info.step < 0 || c.info.worldSize < 1 || c.info.batchSize < 1)
    throw Error(label + " has a corrupt " + kMetaEntry +
                ": step, world_size or batch_size out of range");
  c.params = readArrays(zip, label, params, paramSpecs, "parameter", "params");
  c.state =
      readArrays(zip, label, state, stateSpecs, "optimizer state", "state");
  if (!c.residuals.sizes.empty())
    c.residuals.perRank =
        readResiduals(zip, label, c.residuals.sizes, c.info.worldSize);
  return c;
}

void Checkpoint::checkResumable(const std::string &dir, int64_t ranks,
                                int64_t batch, int64_t totalSteps,
                                std::optional<uint64_t> seed) const {
  std::string label = "checkpoint " + inQuotes(path(dir));
  // Which samples a step uses depends on both (BatchPlan).
  if (ranks != info.worldSize)
    throw Error(
        label + " was written by a run of " + std::to_string(info.worldSize) +
        (info.worldSize == 1 ? " rank" : " ranks") + ", but this run has " +
        std::to_string(ranks) + "; resume with the same number of ranks");
  if (batch != info.batchSize)
    throw Error(label + " was written with --batch-size=" +
                std::to_string(info.batchSize) +
                ", but this run has --batch-size=" + std::to_string(batch) +
                "; resume with the same batch size");
  // Dropout's masks depend on it.
  if (seed && info.seed && *seed != *info.seed)
    throw Error(label +
                " was written with --seed=" + std::to_string(*info.seed) +
                ", but this run has --seed=" + std::to_string(*seed) +
                "; resume with the same seed");
  if (info.step > totalSteps)
    throw Error(label + " is at step " + std::to_string(info.step) +
                ", past --steps=" + std::to_string(totalSteps) +
                " (the total step count, including the steps before the "
                "checkpoint)");
}

} // namespace autodist::rt
