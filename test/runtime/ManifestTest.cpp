//===- ManifestTest.cpp - Manifest parsing --------------------------------===//

#include "autodist/runtime/Manifest.h"

#include "TestUtil.h"

using namespace autodist::rt;
using autodist::rt::test::errorOf;

namespace {
// The example of docs/abi.md.
const char *kAbiExample = R"({
  "version": 1,
  "model": "mlp.onnx",
  "params":  [{"name": "fc1.weight", "shape": [32, 64], "dtype": "f32"}],
  "inputs":  [{"name": "x", "shape": [-1, 64], "dtype": "f32"}],
  "outputs": [{"name": "logits", "shape": [-1, 10], "dtype": "f32"}],
  "train": {"loss": "cross_entropy", "optimizer": "adam", "lr": 0.1,
            "labels": {"name": "labels", "shape": [-1], "dtype": "i64"},
            "state": [{"name": "fc1.weight/adam_m", "shape": [32, 64], "dtype": "f32"}],
            "schedule": {"kind": "cosine", "warmup_steps": 10, "total_steps": 1000,
                         "min_lr": 0.0, "step_size": 0, "gamma": 0.1},
            "seed": 0},
  "strategy": {"builder": "allreduce"}
})";
} // namespace

TEST(Manifest, ParsesAbiExample) {
  Manifest m = Manifest::parse(kAbiExample);
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.model, "mlp.onnx");
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].name, "fc1.weight");
  EXPECT_EQ(m.params[0].shape, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(m.params[0].dtype, DType::F32);
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_TRUE(m.inputs[0].isBatched());
  EXPECT_EQ(m.inputs[0].withBatch(8), (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(m.outputs[0].name, "logits");
  ASSERT_TRUE(m.train);
  EXPECT_EQ(m.train->loss, "cross_entropy");
  EXPECT_EQ(m.train->optimizer, "adam");
  EXPECT_DOUBLE_EQ(m.train->lr, 0.1);
  ASSERT_TRUE(m.train->labels);
  EXPECT_EQ(m.train->labels->name, "labels");
  EXPECT_EQ(m.train->labels->dtype, DType::I64);
  EXPECT_EQ(m.train->labels->withBatch(4), (std::vector<int64_t>{4}));
  ASSERT_EQ(m.train->state.size(), 1u);
  EXPECT_EQ(m.train->state[0].name, "fc1.weight/adam_m");
  EXPECT_EQ(m.train->state[0].shape, (std::vector<int64_t>{32, 64}));
  const LrSchedule &s = m.train->schedule;
  EXPECT_EQ(s.kind, LrSchedule::Kind::Cosine);
  EXPECT_EQ(s.warmupSteps, 10);
  EXPECT_EQ(s.totalSteps, 1000);
  EXPECT_EQ(s.minLr, 0.0);
  EXPECT_EQ(m.strategy, "allreduce");
  EXPECT_EQ(m.train->seed, 0u); // the train step takes (seed, rank)
}

TEST(Manifest, InferenceOnly) {
  Manifest m = Manifest::parse(
      R"({"version": 1, "params": [], "train": null,
          "inputs": [{"name": "x", "shape": [-1, 2], "dtype": "f32"}],
          "outputs": [{"name": "y", "shape": [-1], "dtype": "i64"}]})");
  EXPECT_FALSE(m.train);
  EXPECT_EQ(m.outputs[0].dtype, DType::I64);
  EXPECT_EQ(m.externalDataDir, ""); // no external data
}

TEST(Manifest, ExternalDataDir) {
  Manifest m = Manifest::parse(
      R"({"version": 1, "params": [], "train": null, "inputs": [],
          "outputs": [], "external_data_dir": "/models/big"})");
  EXPECT_EQ(m.externalDataDir, "/models/big");
}

// --precision=tf32's field; absent (or "ieee") keeps f32 products exact.
TEST(Manifest, Float32Matmul) {
  const char *base = R"({"version": 1, "params": [], "train": null,
                         "inputs": [], "outputs": [])";
  EXPECT_FALSE(Manifest::parse(std::string(base) + "}").tf32);
  EXPECT_FALSE(
      Manifest::parse(std::string(base) + R"(, "float32_matmul": "ieee"})")
          .tf32);
  EXPECT_TRUE(
      Manifest::parse(std::string(base) + R"(, "float32_matmul": "tf32"})")
          .tf32);
  try {
    Manifest::parse(std::string(base) + R"(, "float32_matmul": "fp8"})");
    FAIL() << "an unknown float32_matmul was accepted";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "invalid model manifest: float32_matmul 'fp8' "
                           "(expected ieee or tf32)");
  }
}

// No state, no schedule, no labels: plain SGD, constant lr, label-free loss.
TEST(Manifest, OptionalTrainFields) {
  Manifest m = Manifest::parse(
      R"({"version": 1, "params": [], "outputs": [],
          "inputs": [{"name": "x", "shape": [-1, 2], "dtype": "f32"}],
          "train": {"loss": "mse", "optimizer": "sgd", "lr": 0.5,
                    "labels": null, "state": []}})");
  ASSERT_TRUE(m.train);
  EXPECT_FALSE(m.train->labels);
  EXPECT_TRUE(m.train->state.empty());
  EXPECT_EQ(m.train->schedule.kind, LrSchedule::Kind::Constant);
  EXPECT_FALSE(m.train->seed); // no dropout: no (seed, rank) arguments
  m = Manifest::parse(
      R"({"version": 1, "params": [], "outputs": [], "inputs": [],
          "train": {"lr": 0.5, "schedule": {"kind": "step", "step_size": 3,
                                            "gamma": 0.5}}})");
  EXPECT_FALSE(m.train->labels);
  EXPECT_EQ(m.train->schedule.kind, LrSchedule::Kind::Step);
  EXPECT_EQ(m.train->schedule.stepSize, 3);
  EXPECT_EQ(m.train->schedule.gamma, 0.5);
}

TEST(Manifest, ScheduleErrors) {
  auto error = [](const std::string &schedule) {
    return errorOf([&] {
      Manifest::parse(R"({"version": 1, "params": [], "outputs": [],
                          "inputs": [], "train": {"lr": 1, "schedule": )" +
                      schedule + "}}");
    });
  };
  EXPECT_EQ(error(R"({"kind": "linear"})"),
            "invalid model manifest: train.schedule has unknown kind 'linear' "
            "(expected constant, cosine or step)");
  EXPECT_EQ(error(R"({"kind": "cosine", "warmup_steps": 5, "total_steps": 4})"),
            "invalid model manifest: train.schedule 'cosine' needs 0 <= "
            "warmup_steps <= total_steps and total_steps >= 1 (got 5 and 4)");
  EXPECT_EQ(error(R"({"kind": "step", "step_size": 0, "gamma": 0.1})"),
            "invalid model manifest: train.schedule 'step' needs step_size >= "
            "1 (got 0)");
  EXPECT_EQ(error(R"({"kind": "step", "step_size": 2})"),
            "invalid model manifest: train.schedule 'step' needs step_size "
            "and gamma");
}

TEST(Manifest, Errors) {
  auto error = [](const char *json) {
    return errorOf([&] { Manifest::parse(json); });
  };
  EXPECT_EQ(error("{").rfind("invalid model manifest: ", 0), 0u);
  EXPECT_NE(error(R"({"version": 1, "inputs": [], "outputs": []})")
                .find("'params' not found"),
            std::string::npos);
  EXPECT_EQ(error(R"({"version": 2})"),
            "unsupported model manifest version 2 (this runtime reads 1)");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [],
                      "params": [{"name": "w", "shape": [2], "dtype": "f8"}]})"),
            "invalid model manifest: 'w' has unsupported dtype 'f8'");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [],
                      "params": [{"name": "w", "shape": [2], "dtype": "f16"}]})"),
            "invalid model manifest: parameter 'w' has dtype 'f16' "
            "(parameters are f32)");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [],
                      "params": [{"name": "w", "shape": [-1], "dtype": "f32"}]})"),
            "invalid model manifest: parameter 'w' has a dynamic dimension");
  EXPECT_EQ(
      error(R"({"version": 1, "inputs": [], "outputs": [], "params": [],
                "train": {"lr": 1, "state": [{"name": "m", "shape": [-1],
                                              "dtype": "f32"}]}})"),
      "invalid model manifest: optimizer state 'm' must be f32 with a static "
      "shape");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [], "params": [],
                "train": {"lr": 1, "state": [
                  {"name": "m", "shape": [1], "dtype": "f32"},
                  {"name": "m", "shape": [1], "dtype": "f32"}]}})"),
            "invalid model manifest: optimizer state 'm' appears twice");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [], "params": [],
                "train": {"lr": 1, "state": [
                  {"name": "m", "shape": [1], "dtype": "f32"}],
                  "inflight": [{"name": "m", "shape": [4], "dtype": "f32"}]}})"),
            "invalid model manifest: in-flight state 'm' appears twice");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [], "params": [],
                "train": {"lr": 1, "inflight": [
                  {"name": "f", "shape": [2, 2], "dtype": "f32"}]}})"),
            "invalid model manifest: in-flight state 'f' must be f32 of one "
            "static dimension");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [], "params": [],
                "train": {"lr": 1, "inflight": [
                  {"name": "f", "shape": [2], "dtype": "f32", "op": "max"}]}})"),
            "invalid model manifest: in-flight state 'f' has unknown op 'max'");
}

// In-flight state (staleness): the buffer, its reduction and parameters.
TEST(Manifest, Inflight) {
  Manifest m = Manifest::parse(R"({"version": 1, "inputs": [], "outputs": [],
      "params": [], "train": {"lr": 1, "inflight": [
        {"name": "inflight.0", "shape": [14], "dtype": "f32", "op": "mean",
         "params": ["a", "b"]}]}})");
  ASSERT_EQ(m.train->inflight.size(), 1u);
  EXPECT_EQ(m.train->inflight[0].buffer.name, "inflight.0");
  EXPECT_EQ(m.train->inflight[0].buffer.shape, std::vector<int64_t>{14});
  EXPECT_TRUE(m.train->inflight[0].mean);
  EXPECT_EQ(m.train->inflight[0].params, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(m.train->ranksInput);
  EXPECT_FALSE(m.train->nextLrInput);
  EXPECT_TRUE(Manifest::parse(R"({"version": 1, "inputs": [], "outputs": [],
      "params": [], "train": {"lr": 1, "ranks_input": true}})")
                  .train->ranksInput);
  EXPECT_TRUE(Manifest::parse(R"({"version": 1, "inputs": [], "outputs": [],
      "params": [], "train": {"lr": 1, "next_lr_input": true}})")
                  .train->nextLrInput);
}

// Weight prediction's predicted weights start as their parameter (init kind
// "param"), which must exist with the same shape.
TEST(Manifest, ParamStateInit) {
  auto parse = [](const char *entry) {
    return Manifest::parse(std::string(R"({"version": 1, "inputs": [],
        "outputs": [], "params": [
          {"name": "b", "shape": [3], "dtype": "f32"},
          {"name": "w", "shape": [4, 3], "dtype": "f32"}],
        "train": {"lr": 1, "state": [)") +
                           entry + "]}}");
  };
  Manifest m = parse(R"({"name": "w/wp_weight", "shape": [4, 3],
      "dtype": "f32", "per_rank": true, "init": {"kind": "param", "name": "w"}})");
  EXPECT_EQ(m.train->state[0].paramInit, std::optional<size_t>(1));
  EXPECT_FALSE(parse(R"({"name": "w/m", "shape": [4, 3], "dtype": "f32"})")
                   .train->state[0]
                   .paramInit);
  auto error = [&](const char *entry) {
    try {
      parse(entry);
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"name": "s", "shape": [4, 3], "dtype": "f32",
                      "init": {"kind": "param", "name": "v"}})"),
            "invalid model manifest: state 's' starts as parameter 'v', "
            "which the model does not have");
  EXPECT_EQ(error(R"({"name": "s", "shape": [3, 4], "dtype": "f32",
                      "init": {"kind": "param", "name": "w"}})"),
            "invalid model manifest: state 's' starts as parameter 'w', "
            "which has another shape or type");
}

// State every rank keeps its own (compressor error feedback) and PowerSGD's
// Q, which starts from a seed instead of zero.
TEST(Manifest, PerRankStateAndInit) {
  Manifest m = Manifest::parse(R"({"version": 1, "inputs": [], "outputs": [],
      "params": [], "train": {"lr": 1, "state": [
        {"name": "w/m", "shape": [4, 3], "dtype": "f32"},
        {"name": "powersgd.0/residual", "shape": [12], "dtype": "f32",
         "per_rank": true},
        {"name": "powersgd.0/q", "shape": [3], "dtype": "f32",
         "per_rank": true, "init": {"kind": "powersgd_q", "seed": 7}}]}})");
  const std::vector<TensorSpec> &s = m.train->state;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FALSE(s[0].perRank);
  EXPECT_FALSE(s[0].powerSGDSeed);
  EXPECT_TRUE(s[1].perRank);
  EXPECT_FALSE(s[1].powerSGDSeed);
  EXPECT_TRUE(s[2].perRank);
  EXPECT_EQ(s[2].powerSGDSeed, 7);
  auto error = [](const char *entry) {
    try {
      Manifest::parse(std::string(R"({"version": 1, "inputs": [],
          "outputs": [], "params": [], "train": {"lr": 1, "state": [)") +
                      entry + "]}}");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"name": "q", "shape": [3], "dtype": "f32",
                      "init": {"kind": "ones"}})"),
            "invalid model manifest: state 'q' has unknown init kind 'ones' "
            "(expected powersgd_q, constant or param)");
  EXPECT_EQ(error(R"({"name": "q", "shape": [3, 2], "dtype": "f32",
                      "init": {"kind": "powersgd_q", "seed": 1}})"),
            "invalid model manifest: state 'q' (powersgd_q) must be f32 of one "
            "static dimension");
}

// fp16 loss scaling's scale starts at a constant (init kind "constant").
TEST(Manifest, ConstantStateInit) {
  Manifest m = Manifest::parse(R"({"version": 1, "inputs": [], "outputs": [],
      "params": [], "train": {"lr": 1, "state": [
        {"name": "amp/loss_scale", "shape": [], "dtype": "f32",
         "init": {"kind": "constant", "value": 65536.0}},
        {"name": "amp/growth_tracker", "shape": [], "dtype": "f32"}]}})");
  const std::vector<TensorSpec> &s = m.train->state;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].constantInit, 65536.0f);
  EXPECT_FALSE(s[1].constantInit);
  EXPECT_THROW(Manifest::parse(R"({"version": 1, "inputs": [], "outputs": [],
      "params": [], "train": {"lr": 1, "state": [
        {"name": "s", "shape": [], "dtype": "f32",
         "init": {"kind": "constant", "value": 1e39}}]}})"),
               Error);
}

// The cluster's nodes and the parts of the optimizer state that parameter
// servers own (docs/abi.md).
TEST(Manifest, ClusterAndStateOwners) {
  Manifest m = Manifest::parse(
      R"({"version": 1, "params": [], "inputs": [], "outputs": [],
          "cluster": {"nodes": [{"address": "a", "devices": 2, "replicas": 1},
                                {"address": "b", "devices": 3, "replicas": 2}]},
          "train": {"lr": 1, "state": [
            {"name": "w/m", "shape": [4, 3], "dtype": "f32",
             "owners": [{"device": 1, "axis": 0, "offset": 0, "size": 2},
                        {"device": 4, "axis": 0, "offset": 2, "size": 2}]},
            {"name": "b/m", "shape": [3], "dtype": "f32",
             "owners": [{"device": 2}]},
            {"name": "c/m", "shape": [3], "dtype": "f32"}]}})");
  ASSERT_EQ(m.cluster.size(), 2u);
  EXPECT_EQ(m.cluster[1].address, "b");
  EXPECT_EQ(m.cluster[1].devices, 3);
  EXPECT_EQ(m.cluster[1].replicas, 2);
  const std::vector<TensorSpec> &s = m.train->state;
  ASSERT_EQ(s[0].owners.size(), 2u);
  EXPECT_EQ(s[0].owners[1].device, 4);
  EXPECT_EQ(s[0].owners[1].axis, 0);
  EXPECT_EQ(s[0].owners[1].offset, 2);
  EXPECT_EQ(s[0].owners[1].size, 2);
  ASSERT_EQ(s[1].owners.size(), 1u);
  EXPECT_EQ(s[1].owners[0].axis, -1); // the whole tensor
  EXPECT_TRUE(s[2].owners.empty());
}

TEST(Manifest, OwnerErrors) {
  auto error = [](const char *owner) {
    std::string json =
        R"({"version": 1, "params": [], "inputs": [], "outputs": [],
            "train": {"lr": 1, "state": [{"name": "m", "shape": [4, 3],
                                          "dtype": "f32", "owners": [)" +
        std::string(owner) + "]}]}}";
    return errorOf([&] { Manifest::parse(json); });
  };
  EXPECT_EQ(error(R"({"device": 0, "axis": 0, "offset": 3, "size": 2})"),
            "invalid model manifest: optimizer state 'm' has an invalid owner "
            "entry {\"axis\":0,\"device\":0,\"offset\":3,\"size\":2}");
  EXPECT_NE(error(R"({"device": 0, "axis": 2, "offset": 0, "size": 1})")
                .find("invalid owner entry"),
            std::string::npos);
  EXPECT_NE(error(R"({"device": -1})").find("invalid owner entry"),
            std::string::npos);
  EXPECT_EQ(errorOf([] {
              Manifest::parse(
                  R"({"version": 1, "params": [], "inputs": [], "outputs": [],
                      "cluster": {"nodes": [{"address": "a", "devices": 0,
                                             "replicas": 1}]}})");
            }),
            "invalid model manifest: cluster node 'a' needs at least one "
            "device and one replica");
}

TEST(Manifest, BagInputsNameEachOther) {
  auto with = [](const std::string &inputs) {
    return R"({"version": 1, "params": [], "outputs": [], "inputs": [)" +
           inputs + "]}";
  };
  Manifest m = Manifest::parse(with(
      R"({"name": "ids", "shape": [-1], "dtype": "i64", "bag_offsets": "o"},
         {"name": "o", "shape": [-1], "dtype": "i32", "bag_ids": "ids",
          "include_last_offset": true})"));
  EXPECT_EQ(m.inputs[0].bagOffsets, "o");
  EXPECT_EQ(m.inputs[1].bagIds, "ids");
  EXPECT_TRUE(m.inputs[1].offsetsIncludeEnd);
  EXPECT_FALSE(m.inputs[0].offsetsIncludeEnd);
  EXPECT_EQ(
      errorOf([&] {
        Manifest::parse(with(
            R"({"name": "ids", "shape": [-1], "dtype": "i64", "bag_offsets": "o"})"));
      }),
      "invalid model manifest: input 'ids' has an invalid bag_offsets "
      "entry");
  EXPECT_EQ(
      errorOf([&] {
        Manifest::parse(with(
            R"({"name": "ids", "shape": [-1, 2], "dtype": "i64", "bag_offsets": "o"},
                     {"name": "o", "shape": [-1], "dtype": "i64", "bag_ids": "ids"})"));
      }),
      "invalid model manifest: input 'ids' has an invalid bag_offsets "
      "entry");
  EXPECT_EQ(
      errorOf([&] {
        Manifest::parse(with(
            R"({"name": "o", "shape": [-1], "dtype": "i64", "bag_ids": "x"})"));
      }),
      "invalid model manifest: input 'o' has an invalid bag_ids entry");
}
