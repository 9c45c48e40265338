//===- StreamOrderTest.cpp - collectives on a communication stream --------===//
//
// StreamOrder with a mock of CUDA's stream and event calls: a mock stream is
// a sequence of operations; an event's record captures how far its stream
// got, and a wait makes the waiting stream's later work depend on that
// point. The tests replay the calls into these dependencies and check the
// orders a started all-reduce needs.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/StreamOrder.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace autodist::rt;

namespace {

/// Streams as logs of work items; events and waits as dependencies.
class MockStreams final : public StreamApi {
public:
  struct Item {
    std::string name;
    /// Items of other streams this one may not start before.
    std::vector<std::string> after;
  };

  void *createEvent() override {
    events.push_back(std::make_unique<int>(0));
    ++created;
    return events.back().get();
  }
  void destroyEvent(void *) noexcept override { ++destroyed; }
  void record(void *event, void *stream) override {
    recorded[event] = last(stream);
  }
  void streamWait(void *stream, void *event) override {
    auto it = recorded.find(event);
    ASSERT_NE(it, recorded.end()) << "wait on an event never recorded";
    if (!it->second.empty())
      pendingWaits[stream].push_back(it->second);
  }
  /// Issues work `name` on `stream`.
  void issue(void *stream, const std::string &name) {
    Item item{name, pendingWaits[stream]};
    pendingWaits[stream].clear();
    log[stream].push_back(item);
    items[name] = item;
  }
  /// Whether `later` (transitively) starts after `earlier` finished: the
  /// same stream in order, or through waits.
  bool ordered(const std::string &earlier, const std::string &later) {
    return reaches(later, earlier, 0);
  }

  std::map<void *, std::vector<Item>> log;
  std::map<std::string, Item> items;
  int created = 0, destroyed = 0;

private:
  std::string last(void *stream) {
    auto &l = log[stream];
    return l.empty() ? std::string() : l.back().name;
  }
  bool reaches(const std::string &from, const std::string &target, int depth) {
    if (depth > 100)
      return false;
    for (auto &[stream, l] : log) {
      for (size_t i = 0; i < l.size(); ++i) {
        if (l[i].name != from)
          continue;
        for (size_t j = 0; j < i; ++j)
          if (l[j].name == target || reaches(l[j].name, target, depth + 1))
            return true;
        for (const std::string &a : l[i].after)
          if (a == target || reaches(a, target, depth + 1))
            return true;
      }
    }
    return false;
  }
  std::vector<std::unique_ptr<int>> events;
  std::map<void *, std::string> recorded;
  std::map<void *, std::vector<std::string>> pendingWaits;
};

int computeTag, commTag;
void *const kCompute = &computeTag;
void *const kComm = &commTag;

// A started all-reduce runs after the gradient the compute stream made
// before the start, and what the compute stream does after the wait runs
// after it; what the compute stream does between start and wait is free to
// run beside it.
TEST(StreamOrder, ForkAndJoin) {
  MockStreams s;
  StreamOrder order(s, kCompute, kComm);
  s.issue(kCompute, "grad1");
  void *stream = order.fork();
  EXPECT_EQ(stream, kComm);
  s.issue(kComm, "allreduce1");
  int token = order.recordDone();
  s.issue(kCompute, "backward-rest");
  order.join(token);
  s.issue(kCompute, "update");
  EXPECT_TRUE(s.ordered("grad1", "allreduce1"));
  EXPECT_TRUE(s.ordered("allreduce1", "update"));
  EXPECT_FALSE(s.ordered("allreduce1", "backward-rest"));
  EXPECT_FALSE(s.ordered("backward-rest", "allreduce1"));
  EXPECT_EQ(order.inFlight(), 0u);
}

// Buckets started one after the other, waited for in another order: each
// joins its own collective; an event is reused once joined, so a steady
// state of steps creates no event.
TEST(StreamOrder, SeveralInFlightAndReuse) {
  MockStreams s;
  StreamOrder order(s, kCompute, kComm);
  for (int step = 0; step < 3; ++step) {
    std::string k = std::to_string(step);
    s.issue(kCompute, "g1." + k);
    order.fork();
    s.issue(kComm, "ar1." + k);
    int t1 = order.recordDone();
    s.issue(kCompute, "g2." + k);
    order.fork();
    s.issue(kComm, "ar2." + k);
    int t2 = order.recordDone();
    EXPECT_NE(t1, t2);
    EXPECT_EQ(order.inFlight(), 2u);
    order.join(t2);
    s.issue(kCompute, "use2." + k);
    order.join(t1);
    s.issue(kCompute, "use1." + k);
    EXPECT_TRUE(s.ordered("g2." + k, "ar2." + k));
    EXPECT_TRUE(s.ordered("ar2." + k, "use2." + k));
    EXPECT_TRUE(s.ordered("ar1." + k, "use1." + k));
    EXPECT_EQ(order.inFlight(), 0u);
  }
  // One fork event and two done events, whatever the number of steps.
  EXPECT_EQ(order.events(), 3u);
  EXPECT_EQ(s.created, 3);
}

// Joining a token twice, or one never issued, is a logic error (a wait the
// compiler did not pair with a start), not a silent no-op.
TEST(StreamOrder, BadJoin) {
  MockStreams s;
  StreamOrder order(s, kCompute, kComm);
  order.fork();
  int t = order.recordDone();
  order.join(t);
  EXPECT_THROW(order.join(t), std::logic_error);
  EXPECT_THROW(order.join(7), std::logic_error);
  EXPECT_THROW(order.join(-1), std::logic_error);
}

// The events are destroyed with the order, the one of a collective still
// in flight too.
TEST(StreamOrder, DestroysEvents) {
  MockStreams s;
  {
    StreamOrder order(s, kCompute, kComm);
    order.fork();
    int first = order.recordDone();
    order.fork();
    order.recordDone();
    order.join(first);
    EXPECT_EQ(order.inFlight(), 1u);
  }
  EXPECT_EQ(s.created, 3);
  EXPECT_EQ(s.destroyed, 3);
}

} // namespace
