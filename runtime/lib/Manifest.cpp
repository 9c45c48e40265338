//===- Manifest.cpp - The compiled model's manifest -----------------------===//

#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace autodist::rt {

using nlohmann::json;

std::vector<int64_t> TensorSpec::withBatch(int64_t batch) const {
  std::vector<int64_t> out = shape;
  for (int64_t &d : out)
    if (d == -1)
      d = batch;
  return out;
}

namespace {
TensorSpec parseSpec(const json &j) {
  TensorSpec s;
  s.name = j.at("name").get<std::string>();
  s.shape = j.at("shape").get<std::vector<int64_t>>();
  for (int64_t d : s.shape)
    if (d < -1)
      throw Error("invalid model manifest: " + inQuotes(s.name) +
                  " has a negative dimension");
  std::string dtype = j.at("dtype").get<std::string>();
  std::optional<DType> named = dtypeNamed(dtype);
  if (!named)
    throw Error("invalid model manifest: " + inQuotes(s.name) +
                " has unsupported dtype " + inQuotes(dtype));
  s.dtype = *named;
  if (j.contains("index_bound")) {
    s.indexBound = j.at("index_bound").get<int64_t>();
    if (*s.indexBound < 1 || (s.dtype != DType::I64 && s.dtype != DType::I32))
      throw Error("invalid model manifest: " + inQuotes(s.name) +
                  " has an invalid index_bound");
  }
  if (j.contains("bag_offsets"))
    s.bagOffsets = j.at("bag_offsets").get<std::string>();
  if (j.contains("bag_ids"))
    s.bagIds = j.at("bag_ids").get<std::string>();
  s.offsetsIncludeEnd = j.value("include_last_offset", false);
  return s;
}

/// The bag inputs name each other: ids and offsets, both 1-D integer inputs
/// with a dynamic size.
void checkBagInputs(const std::vector<TensorSpec> &inputs) {
  auto find = [&](const std::string &name) -> const TensorSpec * {
    for (const TensorSpec &s : inputs)
      if (s.name == name)
        return &s;
    return nullptr;
  };
  auto bad = [](const TensorSpec &s, const std::string &why) {
    return Error("invalid model manifest: input " + inQuotes(s.name) + " " +
                 why);
  };
  auto ragged = [](const TensorSpec &s) {
    return s.shape.size() == 1 && s.shape[0] == -1 &&
           (s.dtype == DType::I64 || s.dtype == DType::I32);
  };
  for (const TensorSpec &s : inputs) {
    if (!s.bagOffsets.empty() && !s.bagIds.empty())
      throw bad(s, "is both bag ids and bag offsets");
    if (!s.bagOffsets.empty()) {
      const TensorSpec *o = find(s.bagOffsets);
      if (!o || o->bagIds != s.name || !ragged(s) || !ragged(*o))
        throw bad(s, "has an invalid bag_offsets entry");
    }
    if (!s.bagIds.empty()) {
      const TensorSpec *ids = find(s.bagIds);
      if (!ids || ids->bagOffsets != s.name)
        throw bad(s, "has an invalid bag_ids entry");
    }
  }
}

/// `owners` of an optimizer-state entry (docs/abi.md), checked against its
/// shape.
std::vector<OwnedPiece> parseOwners(const json &j, const TensorSpec &s) {
  std::vector<OwnedPiece> out;
  for (const json &e : j) {
    OwnedPiece piece;
    piece.device = e.at("device").get<int64_t>();
    if (e.contains("axis")) {
      piece.axis = e.at("axis").get<int64_t>();
      piece.offset = e.at("offset").get<int64_t>();
      piece.size = e.at("size").get<int64_t>();
    }
    bool whole = piece.axis == -1 && !e.contains("axis");
    if (piece.device < 0 ||
        (!whole && (piece.axis < 0 || piece.axis >= (int64_t)s.shape.size() ||
                    piece.offset < 0 || piece.size < 1 ||
                    piece.offset + piece.size > s.shape[piece.axis])))
      throw Error("invalid model manifest: optimizer state " +
                  inQuotes(s.name) + " has an invalid owner entry " + e.dump());
    out.push_back(piece);
  }
  return out;
}

/// A state entry's `init`: a constant, PowerSGD's Q (which needs a seed and
/// one static dimension) or a parameter of the same shape.
void parseStateInit(const json &j, TensorSpec &s,
                    const std::vector<TensorSpec> &params) {
  std::string kind = j.at("kind").get<std::string>();
  if (kind == "param") {
    std::string name = j.at("name").get<std::string>();
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].name == name) {
        if (params[i].shape != s.shape || params[i].dtype != s.dtype)
          throw Error("invalid model manifest: state " + inQuotes(s.name) +
                      " starts as parameter " + inQuotes(name) +
                      ", which has another shape or type");
        s.paramInit = i;
        return;
      }
    throw Error("invalid model manifest: state " + inQuotes(s.name) +
                " starts as parameter " + inQuotes(name) +
                ", which the model does not have");
  }
  if (kind == "constant") {
    double v = j.at("value").get<double>();
    if (s.dtype != DType::F32 || !std::isfinite(v) ||
        std::abs(v) > std::numeric_limits<float>::max())
      throw Error("invalid model manifest: state " + inQuotes(s.name) +
                  " (constant) must be f32 with a finite value");
    s.constantInit = static_cast<float>(v);
    return;
  }
  if (kind != "powersgd_q")
    throw Error("invalid model manifest: state " + inQuotes(s.name) +
                " has unknown init kind " + inQuotes(kind) +
                " (expected powersgd_q, constant or param)");
  if (s.dtype != DType::F32 || s.shape.size() != 1 || s.shape[0] < 1)
    throw Error("invalid model manifest: state " + inQuotes(s.name) +
                " (powersgd_q) must be f32 of one static dimension");
  s.powerSGDSeed = j.at("seed").get<int64_t>();
}

std::vector<ClusterNode> parseCluster(const json &j) {
  std::vector<ClusterNode> out;
  for (const json &n : j.at("nodes")) {
    ClusterNode node;
    node.address = n.value("address", "");
    node.devices = n.at("devices").get<int64_t>();
    node.replicas = n.at("replicas").get<int64_t>();
    if (node.devices < 1 || node.replicas < 1)
      throw Error("invalid model manifest: cluster node " +
                  inQuotes(node.address) +
                  " needs at least one device and one replica");
    out.push_back(node);
  }
  return out;
}

std::vector<TensorSpec> parseSpecs(const json &j, const char *key) {
  std::vector<TensorSpec> out;
  for (const json &e : j.at(key))
    out.push_back(parseSpec(e));
  return out;
}

Error invalidSchedule(const std::string &what) {
  return Error("invalid model manifest: train.schedule " + what);
}

/// Fields a kind does not use may be omitted; those it uses are checked here
/// so that LrSchedule::at never divides by zero.
LrSchedule parseSchedule(const json &j) {
  LrSchedule s;
  std::string kind = j.at("kind").get<std::string>();
  s.warmupSteps = j.value("warmup_steps", int64_t(0));
  s.totalSteps = j.value("total_steps", int64_t(0));
  s.minLr = j.value("min_lr", 0.0);
  s.stepSize = j.value("step_size", int64_t(0));
  s.gamma = j.value("gamma", 1.0);
  if (kind == "constant") {
    s.kind = LrSchedule::Kind::Constant;
  } else if (kind == "cosine") {
    s.kind = LrSchedule::Kind::Cosine;
    if (s.warmupSteps < 0 || s.totalSteps < 1 || s.totalSteps < s.warmupSteps)
      throw invalidSchedule("'cosine' needs 0 <= warmup_steps <= "
                            "total_steps and total_steps >= 1 (got " +
                            std::to_string(s.warmupSteps) + " and " +
                            std::to_string(s.totalSteps) + ")");
    if (!std::isfinite(s.minLr))
      throw invalidSchedule("'cosine' has a non-finite min_lr");
  } else if (kind == "step") {
    s.kind = LrSchedule::Kind::Step;
    if (!j.contains("step_size") || !j.contains("gamma"))
      throw invalidSchedule("'step' needs step_size and gamma");
    if (s.stepSize < 1)
      throw invalidSchedule("'step' needs step_size >= 1 (got " +
                            std::to_string(s.stepSize) + ")");
    if (!std::isfinite(s.gamma))
      throw invalidSchedule("'step' has a non-finite gamma");
  } else {
    throw invalidSchedule("has unknown kind " + inQuotes(kind) +
                          " (expected constant, cosine or step)");
  }
  return s;
}
} // namespace

Manifest Manifest::parse(std::string_view text) {
  Manifest m;
  try {
    json j = json::parse(text);
    m.version = j.at("version").get<int>();
    if (m.version != 1)
      throw Error("unsupported model manifest version " +
                  std::to_string(m.version) + " (this runtime reads 1)");
    m.model = j.value("model", "");
    if (j.contains("external_data_dir") && !j["external_data_dir"].is_null())
      m.externalDataDir = j["external_data_dir"].get<std::string>();
    m.params = parseSpecs(j, "params");
    m.inputs = parseSpecs(j, "inputs");
    checkBagInputs(m.inputs);
    m.outputs = parseSpecs(j, "outputs");
    if (j.contains("strategy") && j["strategy"].is_object())
      m.strategy = j["strategy"].value("builder", "");
    if (j.contains("cluster") && !j["cluster"].is_null())
      m.cluster = parseCluster(j["cluster"]);
    if (j.contains("float32_matmul")) {
      std::string math = j["float32_matmul"].get<std::string>();
      if (math != "ieee" && math != "tf32")
        throw Error("invalid model manifest: float32_matmul " + inQuotes(math) +
                    " (expected ieee or tf32)");
      m.tf32 = math == "tf32";
    }
    if (j.contains("train") && !j["train"].is_null()) {
      const json &t = j["train"];
      TrainSpec train;
      train.loss = t.value("loss", "");
      train.optimizer = t.value("optimizer", "");
      train.lr = t.at("lr").get<double>();
      if (t.contains("labels") && !t["labels"].is_null())
        train.labels = parseSpec(t["labels"]);
      if (t.contains("state") && !t["state"].is_null()) {
        train.state = parseSpecs(t, "state");
        for (size_t i = 0; i < train.state.size(); ++i) {
          const json &e = t["state"][i];
          TensorSpec &spec = train.state[i];
          if (e.contains("owners"))
            spec.owners = parseOwners(e["owners"], spec);
          spec.perRank = e.value("per_rank", false);
          if (e.contains("init") && !e["init"].is_null())
            parseStateInit(e["init"], spec, m.params);
        }
      }
      train.ranksInput = t.value("ranks_input", false);
      train.nextLrInput = t.value("next_lr_input", false);
      if (t.contains("inflight") && !t["inflight"].is_null())
        for (const json &e : t.at("inflight")) {
          InflightSpec f;
          f.buffer = parseSpec(e);
          std::string op = e.value("op", "mean");
          if (op != "mean" && op != "sum")
            throw Error("invalid model manifest: in-flight state " +
                        inQuotes(f.buffer.name) + " has unknown op " +
                        inQuotes(op));
          f.mean = op == "mean";
          if (e.contains("params"))
            f.params = e.at("params").get<std::vector<std::string>>();
          if (f.buffer.dtype != DType::F32 || f.buffer.shape.size() != 1 ||
              f.buffer.shape[0] < 1)
            throw Error("invalid model manifest: in-flight state " +
                        inQuotes(f.buffer.name) +
                        " must be f32 of one static dimension");
          train.inflight.push_back(std::move(f));
        }
      if (t.contains("schedule") && !t["schedule"].is_null())
        train.schedule = parseSchedule(t["schedule"]);
      if (t.contains("seed") && !t["seed"].is_null())
        train.seed = static_cast<uint64_t>(t["seed"].get<int64_t>());
      m.train = train;
    }
  } catch (const json::exception &e) {
    throw Error(std::string("invalid model manifest: ") + e.what());
  }
  for (const TensorSpec &p : m.params) {
    for (int64_t d : p.shape)
      if (d < 0)
        throw Error("invalid model manifest: parameter " + inQuotes(p.name) +
                    " has a dynamic dimension");
    if (p.dtype != DType::F32) // the parameter files, checkpoints and
                               // optimizers are f32
      throw Error("invalid model manifest: parameter " + inQuotes(p.name) +
                  " has dtype " + inQuotes(dtypeName(p.dtype)) +
                  " (parameters are f32)");
  }
  // Training splits every input along its leading dimension; inference
  // also takes scalars (whole inputs).
  for (const TensorSpec &in : m.inputs)
    if (m.train && in.shape.empty())
      throw Error("invalid model manifest: input " + inQuotes(in.name) +
                  " has no batch dimension");
  if (m.train && m.train->labels && m.train->labels->shape.empty())
    throw Error("invalid model manifest: labels " +
                inQuotes(m.train->labels->name) + " have no batch dimension");
  // Checkpoints store parameters and state by name.
  auto checkUnique = [](const std::vector<TensorSpec> &specs,
                        const char *kind) {
    std::set<std::string> seen;
    for (const TensorSpec &s : specs)
      if (!seen.insert(s.name).second)
        throw Error(std::string("invalid model manifest: ") + kind + " " +
                    inQuotes(s.name) + " appears twice");
  };
  checkUnique(m.params, "parameter");
  if (m.train) {
    checkUnique(m.train->state, "optimizer state");
    // In-flight state is checkpointed beside the optimizer state.
    std::set<std::string> seen;
    for (const TensorSpec &s : m.train->state)
      seen.insert(s.name);
    for (const InflightSpec &f : m.train->inflight)
      if (!seen.insert(f.buffer.name).second)
        throw Error("invalid model manifest: in-flight state " +
                    inQuotes(f.buffer.name) + " appears twice");
  }
  if (m.train)
    for (const TensorSpec &s : m.train->state)
      if (s.dtype != DType::F32 || std::any_of(s.shape.begin(), s.shape.end(),
                                               [](int64_t d) { return d < 0; }))
        throw Error("invalid model manifest: optimizer state " +
                    inQuotes(s.name) + " must be f32 with a static shape");
  return m;
}

} // namespace autodist::rt
