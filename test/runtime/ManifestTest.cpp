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
  "train": {"loss": "cross_entropy", "optimizer": "sgd", "lr": 0.1,
            "labels": {"name": "labels", "shape": [-1], "dtype": "i64"}},
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
  EXPECT_EQ(m.train->optimizer, "sgd");
  EXPECT_DOUBLE_EQ(m.train->lr, 0.1);
  EXPECT_EQ(m.train->labels.name, "labels");
  EXPECT_EQ(m.train->labels.dtype, DType::I64);
  EXPECT_EQ(m.train->labels.withBatch(4), (std::vector<int64_t>{4}));
  EXPECT_EQ(m.strategy, "allreduce");
}

TEST(Manifest, InferenceOnly) {
  Manifest m = Manifest::parse(
      R"({"version": 1, "params": [], "train": null,
          "inputs": [{"name": "x", "shape": [-1, 2], "dtype": "f32"}],
          "outputs": [{"name": "y", "shape": [-1], "dtype": "i64"}]})");
  EXPECT_FALSE(m.train);
  EXPECT_EQ(m.outputs[0].dtype, DType::I64);
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
                      "params": [{"name": "w", "shape": [2], "dtype": "f16"}]})"),
            "invalid model manifest: 'w' has unsupported dtype 'f16'");
  EXPECT_EQ(error(R"({"version": 1, "inputs": [], "outputs": [],
                      "params": [{"name": "w", "shape": [-1], "dtype": "f32"}]})"),
            "invalid model manifest: parameter 'w' has a dynamic dimension");
}
