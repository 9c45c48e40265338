//===- DatasetTest.cpp - Validating data files against the manifest -------===//

#include "autodist/runtime/Dataset.h"
#include "autodist/runtime/Npy.h"

#include "TestUtil.h"
#include "ZipWriter.h"

#include <cstring>

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

TEST(Dataset, OnDemandRowsEqualTheLoadedArrays) {
  // Stored arrays are read a batch at a time, converted like decodeNpy
  // (float64 -> f32, int32 -> i64); deflated ones are loaded whole.
  const std::vector<TensorSpec> inputs = {{"x", {-1, 2, 3}, DType::F32},
                                          {"d", {-1, 2}, DType::F32}};
  double d[10];
  int32_t labels[5];
  for (int i = 0; i < 10; ++i)
    d[i] = 0.25 * i - 1;
  for (int i = 0; i < 5; ++i)
    labels[i] = 4 - i;
  Tensor x(DType::F32, {5, 2, 3});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.data<float>()[i] = 1.5f * i;
  for (bool deflate : {false, true}) {
    std::string path = tempPath(deflate ? "deflated.npz" : "stored.npz");
    writeZip(path,
             {{"x.npy", encodeNpy(x)},
              {"d.npy", makeNpy("<f8", "(5, 2)", d, sizeof d)},
              {"labels.npy", makeNpy("<i4", "(5,)", labels, sizeof labels)}},
             deflate);
    Dataset loaded(path, inputs, &kLabels, true);
    Dataset onDemand(path, inputs, &kLabels, true,
                     Dataset::Residency::OnDemand);
    ASSERT_EQ(onDemand.numSamples(), 5);
    EXPECT_EQ(onDemand.inputs()[0].inMemory(), deflate);
    EXPECT_EQ(onDemand.inputs()[1].shape(), (std::vector<int64_t>{5, 2}));
    for (int64_t first : {0, 2, 3}) {
      int64_t count = 5 - first < 2 ? 5 - first : 2;
      for (size_t k = 0; k < inputs.size(); ++k) {
        DataArray &a = loaded.inputs()[k], &b = onDemand.inputs()[k];
        size_t bytes = count * a.tensor().rowElements() * 4;
        EXPECT_EQ(
            std::memcmp(a.rows(first, count), b.rows(first, count), bytes), 0)
            << "array " << k << " rows " << first;
      }
      EXPECT_EQ(std::memcmp(loaded.labels()->rows(first, count),
                            onDemand.labels()->rows(first, count), count * 8),
                0);
    }
    std::vector<int64_t> seen;
    onDemand.labels()->forEachChunk(
        [&](const void *p, int64_t first, int64_t n) {
          EXPECT_EQ(first, static_cast<int64_t>(seen.size()));
          auto *v = static_cast<const int64_t *>(p);
          seen.insert(seen.end(), v, v + n);
        });
    EXPECT_EQ(seen, (std::vector<int64_t>{4, 3, 2, 1, 0}));
  }
}

// The trainer reads step t + 1's rows while step t runs: into the other
// buffer, so step t's rows stay intact, and the next rows() call for exactly
// those rows takes them without a read; any other rows are read as before.
TEST(Dataset, ReadAheadKeepsTheCurrentRows) {
  Tensor x(DType::F32, {6, 2, 3});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.data<float>()[i] = 0.5f * i;
  std::string path = tempPath("ahead.npz");
  writeZip(path, {{"x.npy", encodeNpy(x)}}, false);
  Dataset ds(path, kInputs, nullptr, false, Dataset::Residency::OnDemand);
  DataArray &a = ds.inputs()[0];
  ASSERT_FALSE(a.inMemory());
  const size_t rowBytes = 6 * sizeof(float);
  auto expectRows = [&](const void *p, int64_t first, int64_t count) {
    EXPECT_EQ(std::memcmp(p, x.rowData(first), count * rowBytes), 0)
        << "rows " << first << "+" << count;
  };
  void *step0 = a.rows(0, 2);
  expectRows(step0, 0, 2);
  a.readAhead(2, 2);
  expectRows(step0, 0, 2); // what step 0 reads is not overwritten
  void *step1 = a.rows(2, 2);
  EXPECT_NE(step1, step0);
  expectRows(step1, 2, 2);
  a.readAhead(4, 2);
  expectRows(step1, 2, 2);
  expectRows(a.rows(4, 2), 4, 2);
  // Read ahead, then asked for other rows (a resumed or changed plan):
  // read, and the read-ahead rows are not taken later either.
  a.readAhead(0, 2);
  expectRows(a.rows(2, 2), 2, 2);
  expectRows(a.rows(0, 2), 0, 2);
  // An array in memory ignores it.
  Dataset loaded(path, kInputs, nullptr, false);
  loaded.inputs()[0].readAhead(2, 2);
  expectRows(loaded.inputs()[0].rows(0, 2), 0, 2);
}

TEST(Dataset, OnDemandChecksSizesAndCrc) {
  // The stored entry's CRC is checked once when it is opened, and its
  // header as when it is loaded.
  std::string path = tempPath("bad.npz");
  float f[4] = {};
  writeZip(path, {{"x.npy", makeNpy("<f4", "(5, 2, 3)", f, sizeof f)}}, false);
  const TensorSpec *none = nullptr;
  EXPECT_EQ(errorOf([&] {
              Dataset(path, kInputs, none, false, Dataset::Residency::OnDemand);
            }),
            "array 'x' in data file '" + path +
                "' has 16 data bytes, but shape [5, 2, 3] needs 120");
}
