//===- DatasetTest.cpp - Validating data files against the manifest -------===//

#include "autodist/runtime/Dataset.h"
#include "autodist/runtime/Npy.h"

#include "TestUtil.h"
#include "ZipWriter.h"

using namespace autodist::rt;
using namespace autodist::rt::test;

namespace {
const std::vector<TensorSpec> kInputs = {{"x", {-1, 2, 3}, DType::F32}};
const TensorSpec kLabels = {"labels", {-1}, DType::I64};

std::string writeData(const std::vector<int64_t> &xShape, int64_t labels,
                      bool withLabels = true) {
  std::string path = tempPath("data.npz");
  ZipEntries entries = {{"x.npy", encodeNpy(Tensor(DType::F32, xShape))}};
  if (withLabels)
    entries.push_back({"labels.npy", encodeNpy(Tensor(DType::I64, {labels}))});
  writeZip(path, entries, false);
  return path;
}
} // namespace

TEST(Dataset, LoadsInputsAndLabels) {
  std::string path = writeData({5, 2, 3}, 5);
  Dataset ds(path, kInputs, &kLabels, true);
  EXPECT_EQ(ds.numSamples(), 5);
  ASSERT_EQ(ds.inputs().size(), 1u);
  EXPECT_EQ(ds.inputs()[0].shape(), (std::vector<int64_t>{5, 2, 3}));
  ASSERT_NE(ds.labels(), nullptr);
  EXPECT_EQ(ds.labels()->shape(), (std::vector<int64_t>{5}));
}

TEST(Dataset, LabelsOptionalUnlessRequired) {
  std::string path = writeData({4, 2, 3}, 0, false);
  EXPECT_EQ(Dataset(path, kInputs, &kLabels, false).labels(), nullptr);
  EXPECT_EQ(errorOf([&] { Dataset(path, kInputs, &kLabels, true); }),
            "data file '" + path + "' has no array 'labels' (has: x)");
}

TEST(Dataset, ShapeMismatch) {
  std::string path = writeData({5, 3, 2}, 5);
  EXPECT_EQ(errorOf([&] { Dataset(path, kInputs, &kLabels, true); }),
            "array 'x' in data file '" + path +
                "' has shape [5, 3, 2], expected [-1, 2, 3] (-1: any number "
                "of samples)");
  path = writeData({5, 6}, 5);
  EXPECT_NE(errorOf([&] {
              Dataset(path, kInputs, &kLabels, true);
            }).find("has shape [5, 6], expected [-1, 2, 3]"),
            std::string::npos);
}

TEST(Dataset, SampleCountMismatch) {
  std::string path = writeData({5, 2, 3}, 4);
  EXPECT_EQ(errorOf([&] { Dataset(path, kInputs, &kLabels, true); }),
            "array 'labels' in data file '" + path +
                "' has 4 samples, but the arrays before it have 5");
}

TEST(Dataset, WholeInputsWithoutBatchDimension) {
  // Static inputs given at exactly their shapes are one call's arguments,
  // even when their leading dimensions differ (a [3,5] x [5,4] product).
  const std::vector<TensorSpec> specs = {{"a", {3, 5}, DType::F32},
                                         {"b", {5, 4}, DType::F32},
                                         {"s", {}, DType::F32}};
  std::string path = tempPath("whole.npz");
  writeZip(path,
           {{"a.npy", encodeNpy(Tensor(DType::F32, {3, 5}))},
            {"b.npy", encodeNpy(Tensor(DType::F32, {5, 4}))},
            {"s.npy", encodeNpy(Tensor(DType::F32, {}))}},
           false);
  Dataset ds(path, specs, nullptr, false);
  EXPECT_TRUE(ds.whole());
  EXPECT_EQ(ds.numSamples(), 1);
  EXPECT_EQ(ds.inputs()[1].shape(), (std::vector<int64_t>{5, 4}));
  // A batched input keeps the sample semantics.
  EXPECT_FALSE(
      Dataset(writeData({5, 2, 3}, 5), kInputs, nullptr, false).whole());
}
