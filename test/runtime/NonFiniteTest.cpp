//===- NonFiniteTest.cpp - Detecting a diverged training step -------------===//

#include "autodist/runtime/NonFinite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace autodist::rt;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
} // namespace

TEST(NonFinite, FirstNonFiniteFindsTheFirstOne) {
  // Longer than one scan block, the bad values past it.
  std::vector<float> v(10000, 1.5f);
  EXPECT_EQ(firstNonFinite(v.data(), v.size()), -1);
  v[9000] = -kInf;
  v[9500] = kNaN;
  EXPECT_EQ(firstNonFinite(v.data(), v.size()), 9000);
  v[3] = kNaN;
  EXPECT_EQ(firstNonFinite(v.data(), v.size()), 3);
  EXPECT_EQ(firstNonFinite(v.data(), 3), -1);
  // The largest finite values and denormals are finite.
  std::vector<float> edge = {std::numeric_limits<float>::max(),
                             -std::numeric_limits<float>::max(),
                             std::numeric_limits<float>::denorm_min(), -0.0f};
  EXPECT_EQ(firstNonFinite(edge.data(), edge.size()), -1);
}

TEST(NonFinite, Names) {
  EXPECT_STREQ(nonFiniteName(kNaN), "NaN");
  EXPECT_STREQ(nonFiniteName(kInf), "+inf");
  EXPECT_STREQ(nonFiniteName(-kInf), "-inf");
}

TEST(NonFinite, Policies) {
  EXPECT_EQ(parseNonFinitePolicy("stop"), NonFinitePolicy::Stop);
  EXPECT_EQ(parseNonFinitePolicy("skip"), NonFinitePolicy::Skip);
  EXPECT_EQ(parseNonFinitePolicy("continue"), NonFinitePolicy::Continue);
  EXPECT_FALSE(parseNonFinitePolicy("Stop"));
  EXPECT_FALSE(parseNonFinitePolicy(""));
}

TEST(NonFinite, FindNamesTheLossParameterOrState) {
  std::vector<TensorSpec> paramSpecs = {{"w", {2}, DType::F32},
                                        {"b", {3}, DType::F32}};
  std::vector<Tensor> params;
  params.emplace_back(DType::F32, std::vector<int64_t>{2});
  params.emplace_back(DType::F32, std::vector<int64_t>{3});
  TensorSpec owned{"b/m", {3}, DType::F32};
  owned.owners.push_back(OwnedPiece{});
  std::vector<TensorSpec> stateSpecs = {{"w/m", {2}, DType::F32}, owned};
  std::vector<Tensor> state;
  state.emplace_back(DType::F32, std::vector<int64_t>{2});
  state.emplace_back(DType::F32, std::vector<int64_t>{3});

  EXPECT_FALSE(findNonFinite(0.5f, paramSpecs, params, stateSpecs, state));
  EXPECT_EQ(findNonFinite(kNaN, paramSpecs, params, stateSpecs, state),
            "the loss is NaN");
  // A parameter server's piece may hold anything on other ranks: ignored.
  state[1].data<float>()[0] = kNaN;
  EXPECT_FALSE(findNonFinite(0.5f, paramSpecs, params, stateSpecs, state));
  state[0].data<float>()[1] = -kInf;
  EXPECT_EQ(findNonFinite(0.5f, paramSpecs, params, stateSpecs, state),
            "optimizer state 'w/m' became -inf (element 1)");
  params[1].data<float>()[2] = kInf;
  EXPECT_EQ(findNonFinite(0.5f, paramSpecs, params, stateSpecs, state),
            "parameter 'b' became +inf (element 2)");
  EXPECT_EQ(findNonFinite(-kInf, paramSpecs, params, stateSpecs, state),
            "the loss is -inf");
}
