//===- CommTest.cpp - All-reduce in a single process ----------------------===//

#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Memref.h"

#include <gtest/gtest.h>

using namespace autodist::rt;

extern "C" void
_mlir_ciface_autodist_rt_allreduce_f32(StridedMemref<float, 1> *, int32_t);

TEST(Comm, SingleProcessIsAGroupOfOne) {
  EXPECT_EQ(comm::rank(), 0);
  EXPECT_EQ(comm::size(), 1);
  EXPECT_EQ(comm::localSize(), 1);
  EXPECT_EQ(comm::allreduceMax(3), 3);
  EXPECT_EQ(comm::allreduceMin(-2), -2);
}

TEST(Comm, AllreduceIsIdentityForOneRank) {
  std::vector<float> v = {1.5f, -2, 3};
  comm::allreduce(v.data(), v.size(), ReduceOp::Sum);
  EXPECT_EQ(v, (std::vector<float>{1.5f, -2, 3}));
  comm::allreduce(v.data(), v.size(), ReduceOp::Mean);
  EXPECT_EQ(v, (std::vector<float>{1.5f, -2, 3}));
}

TEST(Comm, BroadcastIsIdentityForOneRank) {
  std::vector<float> v = {1.5f, -2, 3};
  comm::broadcast(v.data(), v.size() * sizeof(float), 0);
  EXPECT_EQ(v, (std::vector<float>{1.5f, -2, 3}));
}

TEST(Comm, CInterfaceHandlesOffsetsAndStrides) {
  std::vector<float> buf = {9, 1, 9, 2, 9, 3, 9};
  StridedMemref<float, 1> m{buf.data(), buf.data(), 1, {3}, {2}};
  for (int32_t op : {0, 1})
    _mlir_ciface_autodist_rt_allreduce_f32(&m, op);
  EXPECT_EQ(buf, (std::vector<float>{9, 1, 9, 2, 9, 3, 9}));
  StridedMemref<float, 1> empty{buf.data(), buf.data(), 0, {0}, {1}};
  _mlir_ciface_autodist_rt_allreduce_f32(&empty, 1);
}
