//===- TraceTest.cpp - the device's timeline in --trace -------------------===//
//
// With a DeviceClock (the cuda target's CUDA events), a step's runtime
// calls are also recorded as the device measured them, on thread 1 ("gpu"),
// from the step's start; without one the trace is the host's only. A fake
// clock whose marks are 0.5 ms apart stands in for the GPU.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "autodist/runtime/Trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace autodist::rt;
using autodist::rt::test::tempPath;

namespace {

class FakeClock final : public trace::DeviceClock {
public:
  int mark() override { return marks++; }
  std::vector<double> resolve() override {
    std::vector<double> ms;
    for (int i = 0; i < marks; ++i)
      ms.push_back(0.5 * i);
    marks = 0;
    ++resolves;
    return ms;
  }
  int marks = 0, resolves = 0;
};

nlohmann::json readTrace(const std::string &path) {
  std::ifstream in(trace::rankPath(path, 0));
  return nlohmann::json::parse(in);
}

/// The events named `name` on thread `tid`.
std::vector<nlohmann::json> events(const nlohmann::json &t,
                                   const std::string &name, int tid) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json &e : t["traceEvents"])
    if (e["name"] == name && e["tid"] == tid && e["ph"] == "X")
      out.push_back(e);
  return out;
}

} // namespace

TEST(Trace, DeviceTimeline) {
  FakeClock clock;
  trace::setDeviceClock(&clock);
  std::string path = tempPath("trace-device.json");
  trace::start(path, 0);
  trace::beginStep(); // mark 0
  int begin = trace::deviceMark();
  EXPECT_EQ(begin, 1);
  trace::call("sgemm", "blas", trace::now(), "\"m\": 4", begin); // mark 2
  trace::endStep(1, 0.25); // mark 3, resolved
  trace::finish();
  trace::setDeviceClock(nullptr);
  EXPECT_GE(clock.resolves, 1);

  nlohmann::json t = readTrace(path);
  bool named = false;
  for (const nlohmann::json &e : t["traceEvents"])
    named |= e["name"] == "thread_name" && e["tid"] == 1 &&
             e["args"]["name"] == "gpu";
  EXPECT_TRUE(named);
  // Host events on thread 0, the device's on thread 1: the call from mark 1
  // to mark 2 (0.5 ms), the step from mark 0 to mark 3 (1.5 ms).
  ASSERT_EQ(events(t, "sgemm", 0).size(), 1u);
  std::vector<nlohmann::json> gpu = events(t, "sgemm", 1);
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_DOUBLE_EQ(gpu[0]["dur"].get<double>(), 500.0);
  EXPECT_EQ(gpu[0]["args"]["m"], 4);
  std::vector<nlohmann::json> step = events(t, "gpu_step", 1);
  ASSERT_EQ(step.size(), 1u);
  EXPECT_DOUBLE_EQ(step[0]["dur"].get<double>(), 1500.0);
  double stepTs = events(t, "train_step", 0)[0]["ts"].get<double>();
  EXPECT_DOUBLE_EQ(gpu[0]["ts"].get<double>() - stepTs, 500.0);
}

TEST(Trace, HostOnlyWithoutClock) {
  std::string path = tempPath("trace-host.json");
  trace::start(path, 0);
  trace::beginStep();
  EXPECT_EQ(trace::deviceMark(), -1);
  trace::call("sgemm", "blas", trace::now(), "", trace::deviceMark());
  trace::endStep(1, 0.25);
  trace::finish();
  nlohmann::json t = readTrace(path);
  EXPECT_EQ(events(t, "sgemm", 0).size(), 1u);
  EXPECT_TRUE(events(t, "sgemm", 1).empty());
  EXPECT_TRUE(events(t, "gpu_step", 1).empty());
}
