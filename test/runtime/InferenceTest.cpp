//===- InferenceTest.cpp - Chunked forward passes -------------------------===//

#include "autodist/runtime/Inference.h"

#include "TestUtil.h"

#include <numeric>

using namespace autodist::rt;
using autodist::rt::test::errorOf;

namespace {
TensorSpec spec(std::string name, std::vector<int64_t> shape,
                DType dtype = DType::F32) {
  return {std::move(name), std::move(shape), dtype, std::nullopt};
}

/// A descriptor's words (docs/abi.md): allocated, aligned, offset, sizes.
int64_t *words(void *arg) { return static_cast<int64_t *>(arg); }
template <typename T> T *dataOf(void *arg) {
  return reinterpret_cast<T *>(words(arg)[1]) + words(arg)[2];
}
int64_t sizeOf(void *arg, int dim) { return words(arg)[3 + dim]; }

/// A stand-in for a compiled forward pass with param `scale` [1], inputs x
/// [-1, 2] f32 and ids [-1] i64, and outputs y = x * scale + ids ([-1, 2]
/// f32), twice = 2 * ids ([-1] i64) and (only with `withTotal`) total =
/// sum(ids) over the call ([1] f32, no batch dimension).
struct FakeForward {
  bool withTotal = false;
  std::vector<int64_t> callRows;

  void operator()(void **args) {
    float scale = *dataOf<float>(args[0]);
    int64_t rows = sizeOf(args[1], 0);
    EXPECT_EQ(sizeOf(args[1], 1), 2);
    EXPECT_EQ(sizeOf(args[2], 0), rows);
    EXPECT_EQ(sizeOf(args[3], 0), rows);
    EXPECT_EQ(sizeOf(args[4], 0), rows);
    callRows.push_back(rows);
    const float *x = dataOf<float>(args[1]);
    const int64_t *ids = dataOf<int64_t>(args[2]);
    float *y = dataOf<float>(args[3]);
    int64_t *twice = dataOf<int64_t>(args[4]);
    float total = 0;
    for (int64_t i = 0; i < rows; ++i) {
      for (int k = 0; k < 2; ++k)
        y[2 * i + k] = x[2 * i + k] * scale + ids[i];
      twice[i] = 2 * ids[i];
      total += ids[i];
    }
    if (withTotal) {
      EXPECT_EQ(sizeOf(args[5], 0), 1);
      *dataOf<float>(args[5]) = total;
    }
  }
};

struct Model {
  std::vector<TensorSpec> inputs{spec("x", {-1, 2}),
                                 spec("ids", {-1}, DType::I64)};
  std::vector<TensorSpec> outputs{spec("y", {-1, 2}),
                                  spec("twice", {-1}, DType::I64)};
  std::vector<Tensor> params;
  std::vector<DataArray> data;
  int64_t n;

  explicit Model(int64_t n) : n(n) {
    params.emplace_back(DType::F32, std::vector<int64_t>{1});
    *params[0].data<float>() = 0.5f;
    Tensor x(DType::F32, {n, 2}), ids(DType::I64, {n});
    for (int64_t i = 0; i < 2 * n; ++i)
      x.data<float>()[i] = static_cast<float>(i);
    for (int64_t i = 0; i < n; ++i)
      ids.data<int64_t>()[i] = 100 * i;
    data.emplace_back(std::move(x));
    data.emplace_back(std::move(ids));
  }

  std::vector<Tensor> run(FakeForward &fwd, int64_t chunk) {
    return runForwardChunked(std::ref(fwd), params, inputs, data, outputs, n,
                             chunk);
  }
};
} // namespace

TEST(Inference, ChunksConcatenateAlongTheBatch) {
  Model m(10);
  for (int64_t chunk : {1, 3, 4, 10}) {
    FakeForward fwd;
    std::vector<Tensor> outs = m.run(fwd, chunk);
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_EQ(outs[0].shape(), (std::vector<int64_t>{10, 2}));
    EXPECT_EQ(outs[1].shape(), (std::vector<int64_t>{10}));
    EXPECT_EQ(outs[1].dtype(), DType::I64);
    for (int64_t i = 0; i < 10; ++i) {
      for (int k = 0; k < 2; ++k)
        EXPECT_FLOAT_EQ(outs[0].data<float>()[2 * i + k],
                        0.5f * (2 * i + k) + 100 * i)
            << "chunk " << chunk << " sample " << i;
      EXPECT_EQ(outs[1].data<int64_t>()[i], 200 * i);
    }
    // Full chunks, then the short remainder.
    std::vector<int64_t> want;
    for (int64_t first = 0; first < 10; first += chunk)
      want.push_back(std::min<int64_t>(chunk, 10 - first));
    EXPECT_EQ(fwd.callRows, want) << "chunk " << chunk;
  }
}

TEST(Inference, UnbatchedOutputInOneCall) {
  Model m(5);
  m.outputs.push_back(spec("total", {1}));
  EXPECT_EQ(chooseChunkSize(m.inputs, m.outputs, 5, 0, "in.npz"), 5);
  EXPECT_EQ(chooseChunkSize(m.inputs, m.outputs, 5, 8, "in.npz"), 5);
  FakeForward fwd;
  fwd.withTotal = true;
  std::vector<Tensor> outs = m.run(fwd, 5);
  EXPECT_EQ(fwd.callRows, std::vector<int64_t>{5});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[2].shape(), std::vector<int64_t>{1});
  EXPECT_FLOAT_EQ(*outs[2].data<float>(), 1000.0f);
}

TEST(Inference, ChunkSize) {
  std::vector<TensorSpec> in{spec("x", {-1, 2})}, out{spec("y", {-1, 3})};
  EXPECT_EQ(chooseChunkSize(in, out, 7, 0, "in.npz"), 7);
  EXPECT_EQ(chooseChunkSize(in, out, 7, 3, "in.npz"), 3);
  EXPECT_EQ(chooseChunkSize(in, out, 7, 100, "in.npz"), 7);
  EXPECT_EQ(errorOf([&] { chooseChunkSize(in, out, 0, 0, "in.npz"); }),
            "input file 'in.npz' has no samples (the leading dimension of "
            "its arrays is 0)");

  std::vector<TensorSpec> unbatched{spec("y", {-1, 3}), spec("mean", {})};
  EXPECT_EQ(errorOf([&] { chooseChunkSize(in, unbatched, 7, 3, "in.npz"); }),
            "model output 'mean' has shape [], without a dynamic leading "
            "batch dimension, so its values for separate chunks cannot be "
            "concatenated; drop --batch-size to run all 7 samples in one "
            "call");
  // A dynamic dimension that is not the leading one is not concatenable.
  EXPECT_FALSE(isConcatenable(spec("t", {-1, -1})));
  EXPECT_FALSE(isConcatenable(spec("t", {3, -1})));
  EXPECT_TRUE(isConcatenable(spec("t", {-1})));

  std::vector<TensorSpec> fixed{spec("x", {4, 2})};
  EXPECT_EQ(chooseChunkSize(fixed, out, 8, 0, "in.npz"), 4);
  EXPECT_EQ(chooseChunkSize(fixed, out, 8, 4, "in.npz"), 4);
  EXPECT_EQ(errorOf([&] { chooseChunkSize(fixed, out, 8, 2, "in.npz"); }),
            "model input 'x' has a fixed batch size of 4; use --batch-size=4 "
            "or drop --batch-size");
  EXPECT_EQ(errorOf([&] { chooseChunkSize(fixed, out, 6, 0, "in.npz"); }),
            "model input 'x' has a fixed batch size of 4, but input file "
            "'in.npz' has 6 samples, not a multiple of it");
}
