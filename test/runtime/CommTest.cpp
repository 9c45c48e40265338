//===- CommTest.cpp - All-reduce in a single process ----------------------===//

#include "autodist/runtime/Comm.h"
#include "CollectiveAbi.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/MpiTransport.h"
#include "autodist/runtime/Placement.h"
#include "autodist/runtime/Traffic.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <mpi.h>
#include <string>

using namespace autodist::rt;

TEST(Comm, SingleProcessIsAGroupOfOne) {
  EXPECT_EQ(comm::rank(), 0);
  EXPECT_EQ(comm::size(), 1);
  EXPECT_EQ(comm::localSize(), 1);
  EXPECT_EQ(comm::allreduceMax(3), 3);
  EXPECT_EQ(comm::allreduceMin(-2), -2);
}

// Before MPI starts, the runtime sets Open MPI's TCP eager limit (so that a
// started collective's messages need no rendezvous) and libnbc's all-reduce
// algorithm for the job's size, but values the launch gives (the
// environment, mpirun --mca) win.
TEST(Comm, SetsOpenMpiDefaultsUnlessTheLaunchSetsThem) {
  EXPECT_STREQ(comm::iallreduceAlgorithm(2), "4"); // recursive doubling
  EXPECT_STREQ(comm::iallreduceAlgorithm(4), "3"); // reduce-scatter+allgather
#ifdef OPEN_MPI
  const char *eager = "OMPI_MCA_btl_tcp_eager_limit";
  const char *alg = "OMPI_MCA_coll_libnbc_iallreduce_algorithm";
  const char *size = std::getenv("OMPI_COMM_WORLD_SIZE");
  std::string savedSize = size ? size : "";
  unsetenv(eager);
  unsetenv(alg);
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  comm::setOpenMpiDefaults();
  ASSERT_NE(std::getenv(eager), nullptr);
  EXPECT_STREQ(std::getenv(eager), "4194304");
  ASSERT_NE(std::getenv(alg), nullptr);
  EXPECT_STREQ(std::getenv(alg), "4");
  setenv(eager, "1000", 1);
  setenv(alg, "1", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
  comm::setOpenMpiDefaults();
  EXPECT_STREQ(std::getenv(eager), "1000");
  EXPECT_STREQ(std::getenv(alg), "1");
  unsetenv(eager);
  unsetenv(alg);
  if (size)
    setenv("OMPI_COMM_WORLD_SIZE", savedSize.c_str(), 1);
  else
    unsetenv("OMPI_COMM_WORLD_SIZE");
#else
  GTEST_SKIP() << "not Open MPI";
#endif
}

TEST(Comm, AllreduceIsIdentityForOneRank) {
  std::vector<float> v = {1.5f, -2, 3};
  comm::allreduce(v.data(), v.size(), ReduceOp::Sum);
  EXPECT_EQ(v, (std::vector<float>{1.5f, -2, 3}));
  comm::allreduce(v.data(), v.size(), ReduceOp::Mean);
  EXPECT_EQ(v, (std::vector<float>{1.5f, -2, 3}));
}

// The split all-reduce of compiled steps: handles index a request table
// (freed slots are reused), waits may come in any order, a wait on another
// buffer or an unknown handle is refused, and each start counts as one
// collective with its payload.
TEST(Comm, StartedAllreducesAreWaitedForInAnyOrder) {
  std::vector<float> a = {1.5f, -2}, b = {4};
  int ha = comm::allreduceStart(a.data(), a.size());
  int hb = comm::allreduceStart(b.data(), b.size());
  EXPECT_NE(ha, hb);
  EXPECT_EQ(comm::pendingAllreduces(), 2);
  EXPECT_THROW(comm::allreduceWait(ha, b.data(), ReduceOp::Mean),
               std::invalid_argument);
  EXPECT_THROW(comm::allreduceWait(7, a.data(), ReduceOp::Mean),
               std::invalid_argument);
  comm::allreduceWait(hb, b.data(), ReduceOp::Mean);
  EXPECT_EQ(comm::pendingAllreduces(), 1);
  EXPECT_EQ(comm::allreduceStart(b.data(), b.size()), hb);
  comm::allreduceWait(ha, a.data(), ReduceOp::Sum);
  comm::allreduceWait(hb, b.data(), ReduceOp::Sum);
  EXPECT_THROW(comm::allreduceWait(hb, b.data(), ReduceOp::Sum),
               std::invalid_argument);
  EXPECT_EQ(comm::pendingAllreduces(), 0);
  EXPECT_EQ(a, (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(b, (std::vector<float>{4}));

  (void)traffic::take();
  StridedMemref<float, 1> m{a.data(), a.data(), 0, {2}, {1}};
  int32_t h = _mlir_ciface_autodist_rt_allreduce_start_f32(&m);
  _mlir_ciface_autodist_rt_allreduce_wait_f32(&m, h, 1);
  traffic::Counts sent = traffic::take();
  EXPECT_EQ(sent.collectives, 1);
  EXPECT_EQ(sent.bytes, 8);
  EXPECT_EQ(comm::pendingAllreduces(), 0);
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

// Parameter-server collectives on one rank: every device is rank 0, and
// both the flat and the two-level (local replication) forms are the
// identity; each call counts as one collective with its payload.
TEST(Comm, RootedCollectivesAreIdentityForOneRank) {
  setPlacement(Placement({{"a", 2, 1}, {"b", 1, 1}}, 1));
  std::vector<float> buf = {9, 1, 9, 2, 9, 3, 9};
  StridedMemref<float, 1> m{buf.data(), buf.data(), 1, {3}, {2}};
  (void)traffic::take();
  for (int32_t device : {0, 2})
    for (int32_t proxy : {0, 1}) {
      _mlir_ciface_autodist_rt_reduce_f32(&m, 1, device, proxy);
      _mlir_ciface_autodist_rt_broadcast_f32(&m, device, proxy);
    }
  EXPECT_EQ(buf, (std::vector<float>{9, 1, 9, 2, 9, 3, 9}));
  traffic::Counts c = traffic::take();
  EXPECT_EQ(c.collectives, 8);
  EXPECT_EQ(c.bytes, 8 * 3 * 4);
  setPlacement(Placement({}, 1));
}
