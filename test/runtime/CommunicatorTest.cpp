//===- CommunicatorTest.cpp - The ABI's collectives go through it ---------===//
//
// A mock communicator stands for a job of `k` ranks that all contribute what
// this rank does (no MPI is started): the ABI's all-reduces, started
// all-reduces and compressors must reach it, and compute with its size.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Communicator.h"
#include "CollectiveAbi.h"
#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Memref.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace autodist::rt;

namespace {

/// `k` ranks with equal contributions: a sum is `k` times this rank's.
class EqualRanks final : public Communicator {
public:
  explicit EqualRanks(int k) : k_(k) {}
  const char *name() const override { return "mock"; }
  int rank() const override { return 0; }
  int size() const override { return k_; }
  void allreduce(float *data, int64_t n, ReduceOp op) override {
    ++allreduces;
    if (op == ReduceOp::Sum)
      for (int64_t i = 0; i < n; ++i)
        data[i] *= static_cast<float>(k_);
  }
  CommHandle allreduceStart(float *data, int64_t n, Stream stream) override {
    started = data;
    startedCount = n;
    startStream = stream.handle;
    return {7, stream};
  }
  void wait(CommHandle handle, float *data, ReduceOp op) override {
    waited = handle.id;
    EXPECT_EQ(data, started);
    allreduce(data, startedCount, op);
  }
  void reduce(float *, int64_t, ReduceOp, int, const Placement *) override {
    ADD_FAILURE() << "unexpected reduce";
  }
  void broadcast(void *, int64_t, int, const Placement *) override {
    ADD_FAILURE() << "unexpected broadcast";
  }
  void allgather(const void *mine, void *all, int bytes) override {
    ++allgathers;
    for (int r = 0; r < k_; ++r)
      std::memcpy(static_cast<char *>(all) + r * bytes, mine, bytes);
  }

  int allreduces = 0, allgathers = 0, waited = 0;
  float *started = nullptr;
  int64_t startedCount = 0;
  void *startStream = reinterpret_cast<void *>(1);

private:
  int k_;
};

/// Installs a communicator for one test.
class WithCommunicator {
public:
  explicit WithCommunicator(Communicator &c) : was_(setCommunicator(&c)) {}
  ~WithCommunicator() { setCommunicator(was_); }

private:
  Communicator *was_;
};

StridedMemref<float, 1> view(std::vector<float> &v) {
  return {v.data(), v.data(), 0, {static_cast<int64_t>(v.size())}, {1}};
}

} // namespace

TEST(Communicator, DefaultIsMpi) { EXPECT_STREQ(communicator().name(), "mpi"); }

TEST(Communicator, AllReduceGoesThroughIt) {
  EqualRanks mock(3);
  WithCommunicator use(mock);
  std::vector<float> v = {1.0f, -2.0f, 0.5f};
  StridedMemref<float, 1> m = view(v);
  _mlir_ciface_autodist_rt_allreduce_f32(&m, /*sum=*/0);
  EXPECT_EQ(mock.allreduces, 1);
  EXPECT_EQ(v, (std::vector<float>{3.0f, -6.0f, 1.5f}));
}

TEST(Communicator, StartedAllReduceCarriesItsHandleAndStream) {
  EqualRanks mock(2);
  WithCommunicator use(mock);
  std::vector<float> v = {1.0f, 2.0f};
  StridedMemref<float, 1> m = view(v);
  int32_t h = _mlir_ciface_autodist_rt_allreduce_start_f32(&m);
  EXPECT_EQ(h, 7);
  EXPECT_EQ(mock.started, v.data());
  EXPECT_EQ(mock.startStream, nullptr); // CPU: no stream
  _mlir_ciface_autodist_rt_allreduce_wait_f32(&m, h, /*sum=*/0);
  EXPECT_EQ(mock.waited, 7);
  EXPECT_EQ(v, (std::vector<float>{2.0f, 4.0f}));
}

TEST(Communicator, CompressorsGoThroughIt) {
  // fp16: the halves of every rank are gathered through the communicator
  // and summed in float in rank order, so with 3 equal ranks each element
  // is half(g) + half(g) + half(g).
  EqualRanks mock(3);
  WithCommunicator use(mock);
  std::vector<float> g = {1.0f + 1.0f / 4096, -3.0e-3f, 1000.1f}, v = g;
  StridedMemref<float, 1> m = view(v);
  _mlir_ciface_autodist_rt_allreduce_fp16_f32(&m, /*sum=*/0);
  EXPECT_EQ(mock.allgathers, 1);
  for (size_t i = 0; i < g.size(); ++i) {
    float h = compress::roundToHalf(g[i]), sum = 0.0f;
    for (int r = 0; r < 3; ++r)
      sum += h;
    EXPECT_EQ(v[i], sum) << "element " << i;
  }
}
