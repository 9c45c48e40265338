//===- InputBatchTest.cpp - Model inputs for a range of samples -----------===//

#include "autodist/runtime/InputBatch.h"

#include "autodist/runtime/Dataset.h"
#include "autodist/runtime/Npy.h"

#include "TestUtil.h"
#include "ZipWriter.h"

#include <numeric>

using namespace autodist::rt;
using autodist::rt::test::errorOf;

namespace {
Tensor ints(DType t, const std::vector<int64_t> &values) {
  Tensor out(t, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DType::I32)
      out.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    else
      out.data<int64_t>()[i] = values[i];
  }
  return out;
}

/// Argument `k` of `args` as a 1-D integer vector.
std::vector<int64_t> arg1d(CallArgs &args, size_t k, DType t) {
  auto *d = static_cast<StridedMemref<char, 1> *>(args.get()[k]);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < d->sizes[0]; ++i)
    out.push_back(t == DType::I32 ? reinterpret_cast<int32_t *>(d->aligned)[i]
                                  : reinterpret_cast<int64_t *>(d->aligned)[i]);
  return out;
}

// Five samples with bags of 2, 0, 3, 4 and 1 ids (ids 10..19), and a dense
// input x of one value per sample.
struct Fixture {
  Fixture(DType offsetType, bool includeEnd) {
    specs = {{"ids", {-1}, DType::I64},
             {"offsets", {-1}, offsetType},
             {"x", {-1, 1}, DType::F32}};
    specs[0].bagOffsets = "offsets";
    specs[1].bagIds = "ids";
    specs[1].offsetsIncludeEnd = includeEnd;
    std::vector<int64_t> ids(10);
    std::iota(ids.begin(), ids.end(), 10);
    arrays.emplace_back(ints(DType::I64, ids));
    arrays.emplace_back(ints(offsetType, {0, 2, 2, 5, 9}));
    Tensor x(DType::F32, {5, 1});
    for (int i = 0; i < 5; ++i)
      x.data<float>()[i] = static_cast<float>(i);
    arrays.emplace_back(std::move(x));
  }
  std::vector<TensorSpec> specs;
  std::vector<DataArray> arrays;
};
} // namespace

TEST(InputBatch, BagsOfTheSamplesRebased) {
  Fixture f(DType::I64, false);
  InputBatcher batcher(f.specs, f.arrays);
  CallArgs args;
  batcher.add(args, 1, 3); // samples 1..3: bags of 0, 3 and 4 ids
  EXPECT_EQ(arg1d(args, 0, DType::I64),
            (std::vector<int64_t>{12, 13, 14, 15, 16, 17, 18}));
  EXPECT_EQ(arg1d(args, 1, DType::I64), (std::vector<int64_t>{0, 0, 3}));
  auto *x = static_cast<StridedMemref<float, 2> *>(args.get()[2]);
  EXPECT_EQ(x->sizes[0], 3);
  EXPECT_EQ(x->aligned[0], 1.0f);
  // The last samples: their ids run to the end of the array.
  args.clear();
  batcher.add(args, 3, 2);
  EXPECT_EQ(arg1d(args, 0, DType::I64),
            (std::vector<int64_t>{15, 16, 17, 18, 19}));
  EXPECT_EQ(arg1d(args, 1, DType::I64), (std::vector<int64_t>{0, 4}));
}

// The fixture's arrays stored in a file and read on demand (the bag ids and
// x; offsets are loaded): the next samples read ahead while the current
// ones are in use give the same arguments as reading them when asked.
TEST(InputBatch, ReadAheadOfBagsAndRows) {
  Fixture f(DType::I64, false);
  std::string path = autodist::rt::test::tempPath("bags.npz");
  autodist::rt::test::writeZip(
      path,
      {{"ids.npy", encodeNpy(f.arrays[0].tensor())},
       {"offsets.npy", encodeNpy(f.arrays[1].tensor())},
       {"x.npy", encodeNpy(f.arrays[2].tensor())}},
      false);
  Dataset ds(path, f.specs, nullptr, false, Dataset::Residency::OnDemand);
  ASSERT_FALSE(ds.inputs()[0].inMemory());
  InputBatcher batcher(f.specs, ds.inputs());
  CallArgs first, second;
  batcher.add(first, 0, 2);
  std::vector<int64_t> firstIds = arg1d(first, 0, DType::I64);
  batcher.readAhead(2, 2); // samples 2..3: bags of 3 and 4 ids
  EXPECT_EQ(arg1d(first, 0, DType::I64), firstIds) << "overwritten";
  batcher.add(second, 2, 2);
  EXPECT_EQ(arg1d(second, 0, DType::I64),
            (std::vector<int64_t>{12, 13, 14, 15, 16, 17, 18}));
  EXPECT_EQ(arg1d(second, 1, DType::I64), (std::vector<int64_t>{0, 3}));
  auto *x = static_cast<StridedMemref<float, 2> *>(second.get()[2]);
  EXPECT_EQ(x->aligned[0], 2.0f);
  EXPECT_EQ(x->aligned[1], 3.0f);
}

TEST(InputBatch, IncludeLastOffsetAndInt32) {
  Fixture f(DType::I32, true);
  InputBatcher batcher(f.specs, f.arrays);
  CallArgs args;
  batcher.add(args, 0, 2); // bags of 2 and 0: the end, 2, follows
  EXPECT_EQ(arg1d(args, 0, DType::I64), (std::vector<int64_t>{10, 11}));
  EXPECT_EQ(arg1d(args, 1, DType::I32), (std::vector<int64_t>{0, 2, 2}));
  args.clear();
  batcher.add(args, 4, 1);
  EXPECT_EQ(arg1d(args, 0, DType::I64), (std::vector<int64_t>{19}));
  EXPECT_EQ(arg1d(args, 1, DType::I32), (std::vector<int64_t>{0, 1}));
}

TEST(InputBatch, OffsetsChecked) {
  Fixture f(DType::I64, false);
  checkBagOffsets(f.specs[1], f.arrays[1], f.arrays[0], "d.npz");
  DataArray back(ints(DType::I64, {0, 3, 2}));
  EXPECT_EQ(
      errorOf([&] { checkBagOffsets(f.specs[1], back, f.arrays[0], "d.npz"); }),
      "array 'offsets' in data file 'd.npz' has offset 2 at element 2: "
      "the offsets of 'ids' (where each sample's ids start) must be "
      "non-decreasing from 0 and at most its 10 ids");
  DataArray past(ints(DType::I64, {0, 11}));
  EXPECT_NE(errorOf([&] {
              checkBagOffsets(f.specs[1], past, f.arrays[0], "d.npz");
            }).find("has offset 11 at element 1"),
            std::string::npos);
}
