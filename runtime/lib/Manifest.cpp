//===- Manifest.cpp - The compiled model's manifest -----------------------===//

#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Error.h"

#include <nlohmann/json.hpp>

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
  if (dtype != "f32" && dtype != "i64")
    throw Error("invalid model manifest: " + inQuotes(s.name) +
                " has unsupported dtype " + inQuotes(dtype));
  s.dtype = dtype == "f32" ? DType::F32 : DType::I64;
  return s;
}

std::vector<TensorSpec> parseSpecs(const json &j, const char *key) {
  std::vector<TensorSpec> out;
  for (const json &e : j.at(key))
    out.push_back(parseSpec(e));
  return out;
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
    m.params = parseSpecs(j, "params");
    m.inputs = parseSpecs(j, "inputs");
    m.outputs = parseSpecs(j, "outputs");
    if (j.contains("strategy") && j["strategy"].is_object())
      m.strategy = j["strategy"].value("builder", "");
    if (j.contains("train") && !j["train"].is_null()) {
      const json &t = j["train"];
      TrainSpec train;
      train.loss = t.value("loss", "");
      train.optimizer = t.value("optimizer", "");
      train.lr = t.at("lr").get<double>();
      train.labels = parseSpec(t.at("labels"));
      m.train = train;
    }
  } catch (const json::exception &e) {
    throw Error(std::string("invalid model manifest: ") + e.what());
  }
  for (const TensorSpec &p : m.params)
    for (int64_t d : p.shape)
      if (d < 0)
        throw Error("invalid model manifest: parameter " + inQuotes(p.name) +
                    " has a dynamic dimension");
  for (const TensorSpec &in : m.inputs)
    if (in.shape.empty())
      throw Error("invalid model manifest: input " + inQuotes(in.name) +
                  " has no batch dimension");
  if (m.train && m.train->labels.shape.size() != 1)
    throw Error("invalid model manifest: labels must have rank 1");
  return m;
}

} // namespace autodist::rt
