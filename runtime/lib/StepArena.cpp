//===- StepArena.cpp - replayed memory plan of the compiled step ----------===//

#include "autodist/runtime/StepArena.h"

#include "autodist/runtime/Device.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <numeric>
#include <unordered_map>

namespace autodist::rt {

namespace {
constexpr size_t kAlign = 64;
size_t alignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
bool overlaps(int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  return a0 < b1 && b0 < a1;
}
} // namespace

ArenaPlan planArena(const std::vector<ArenaBuffer> &buffers) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), -1);
  std::vector<size_t> order;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].freeAt >= 0)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].size > buffers[b].size;
  });
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> busy; // [begin, end) in bytes
  for (size_t i : order) {
    const ArenaBuffer &b = buffers[i];
    int64_t size = static_cast<int64_t>(alignUp(std::max<size_t>(b.size, 1)));
    busy.clear();
    for (size_t j : placed)
      if (overlaps(b.allocAt, b.freeAt, buffers[j].allocAt, buffers[j].freeAt))
        busy.push_back(
            {plan.offsets[j],
             plan.offsets[j] + static_cast<int64_t>(alignUp(
                                   std::max<size_t>(buffers[j].size, 1)))});
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (begin - offset >= size)
        break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.bytes = std::max(plan.bytes, static_cast<size_t>(offset + size));
    placed.push_back(i);
  }
  return plan;
}

namespace arena {
namespace {

/// More allocations than this in one call are not planned (the planner is
/// quadratic); they stay on the heap.
constexpr size_t kMaxPlanned = 50000;

/// An entry point's plan and what a replay needs, sized once.
struct EntryPlan {
  bool valid = false;
  /// Too many allocations to plan: every call uses the heap, unrecorded.
  bool heapOnly = false;
  std::vector<size_t> sizes;
  std::vector<int64_t> offsets; // -1: heap
  /// Arena buffers by offset (several buffers may share one, never at the
  /// same time): `slotOffsets` sorted, `slotOf[i]` buffer i's slot.
  std::vector<int64_t> slotOffsets;
  std::vector<int32_t> slotOf;
  size_t bytes = 0;
};

/// The allocations of a call being recorded.
struct Recording {
  std::vector<ArenaBuffer> buffers;
  std::unordered_map<void *, size_t> liveIndex;
  int64_t events = 0;
};

struct State {
  EntryPlan plans[2];
  Entry entry = Entry::TrainStep;
  bool inCall = false;
  bool recording = false;
  bool broken = false; // a fallback happened: record the next call afresh
  size_t next = 0;     // index of the next allocation of the call
  Recording rec;
  // Replay bookkeeping, sized to the plan once.
  std::vector<int32_t> slotLive; // buffer live at the slot, or -1
  std::vector<int32_t> liveList; // arena buffers live now
  std::vector<int32_t> livePos;  // buffer -> position in liveList, or -1
  std::byte *arena = nullptr;
  size_t arenaBytes = 0;
  /// Arenas that a buffer outlived its call in (a departure from the
  /// plan): never reused, kept so that frees into them are recognized.
  std::vector<std::pair<std::byte *, size_t>> retired;
  Stats stats;
};

State &state() {
  static State s;
  return s;
}

bool inArena(const State &s, void *p) {
  auto *b = static_cast<std::byte *>(p);
  if (s.arena && b >= s.arena && b < s.arena + s.arenaBytes)
    return true;
  for (auto [base, bytes] : s.retired)
    if (b >= base && b < base + bytes)
      return true;
  return false;
}

/// Compiled code has no unwind tables: no exception may cross it.
[[noreturn]] void outOfMemory(size_t size) {
  std::fprintf(stderr,
               "error: out of memory: the compiled step asked for %zu "
               "bytes\n",
               size);
  std::abort();
}

void *heapAlloc(State &s, size_t size, size_t alignment = 0) {
  if (s.inCall)
    ++s.stats.heapAllocations;
  size = std::max<size_t>(size, 1);
  // The device's memory: the host heap on CPU, the GPU's on CUDA.
  void *p = device().allocateDevice(size, alignment);
  if (!p)
    outOfMemory(size);
  return p;
}

/// Turns the recording into the entry's plan and sizes the arena for it.
void finishRecording(State &s) {
  EntryPlan &plan = s.plans[static_cast<int>(s.entry)];
  plan = EntryPlan();
  std::vector<ArenaBuffer> &buffers = s.rec.buffers;
  if (buffers.size() > kMaxPlanned) {
    plan.heapOnly = true;
    return;
  }
  ArenaPlan placed = planArena(buffers);
  // The recording's buffers are freed: give their pages back, so that the
  // arena does not come on top of them (the runtime keeps freed memory in
  // the heap, mallopt in Main.cpp).
  if (placed.bytes > s.arenaBytes)
    malloc_trim(0);
  plan.sizes.resize(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i)
    plan.sizes[i] = buffers[i].size;
  plan.offsets = placed.offsets;
  plan.bytes = placed.bytes;
  for (int64_t o : plan.offsets)
    if (o >= 0)
      plan.slotOffsets.push_back(o);
  std::sort(plan.slotOffsets.begin(), plan.slotOffsets.end());
  plan.slotOffsets.erase(
      std::unique(plan.slotOffsets.begin(), plan.slotOffsets.end()),
      plan.slotOffsets.end());
  plan.slotOf.assign(buffers.size(), -1);
  for (size_t i = 0; i < buffers.size(); ++i)
    if (plan.offsets[i] >= 0)
      plan.slotOf[i] = static_cast<int32_t>(
          std::lower_bound(plan.slotOffsets.begin(), plan.slotOffsets.end(),
                           plan.offsets[i]) -
          plan.slotOffsets.begin());
  plan.valid = true;
}

/// Makes the arena and the replay bookkeeping big enough for `plan`
/// (between calls: no arena buffer is live).
void prepareReplay(State &s, const EntryPlan &plan) {
  if (s.arenaBytes < plan.bytes) {
    device().freeDevice(s.arena);
    s.arenaBytes = alignUp(plan.bytes);
    s.arena =
        static_cast<std::byte *>(device().allocateDevice(s.arenaBytes, kAlign));
    if (!s.arena)
      throw std::bad_alloc();
    s.stats.arenaBytes = std::max(s.stats.arenaBytes, s.arenaBytes);
  }
  s.slotLive.assign(plan.slotOffsets.size(), -1);
  s.livePos.assign(plan.sizes.size(), -1);
  s.liveList.clear();
  s.liveList.reserve(plan.sizes.size());
}

/// The replayed allocation `i` of `size` bytes, or null when the plan does
/// not hold for it.
void *replayAlloc(State &s, const EntryPlan &plan, size_t i, size_t size) {
  if (i >= plan.sizes.size() || plan.sizes[i] != size || plan.offsets[i] < 0)
    return nullptr;
  int64_t begin = plan.offsets[i];
  int64_t end = begin + static_cast<int64_t>(std::max<size_t>(size, 1));
  for (int32_t j : s.liveList) {
    int64_t jb = plan.offsets[j];
    if (overlaps(begin, end, jb,
                 jb + static_cast<int64_t>(std::max<size_t>(plan.sizes[j], 1))))
      return nullptr; // still live where the plan reuses its bytes
  }
  s.livePos[i] = static_cast<int32_t>(s.liveList.size());
  s.liveList.push_back(static_cast<int32_t>(i));
  s.slotLive[plan.slotOf[i]] = static_cast<int32_t>(i);
  return s.arena + begin;
}

void replayFree(State &s, const EntryPlan &plan, void *p) {
  int64_t offset = static_cast<std::byte *>(p) - s.arena;
  auto it = std::lower_bound(plan.slotOffsets.begin(), plan.slotOffsets.end(),
                             offset);
  if (it == plan.slotOffsets.end() || *it != offset)
    return;
  int32_t &slot = s.slotLive[it - plan.slotOffsets.begin()];
  if (slot < 0)
    return;
  int32_t i = slot, pos = s.livePos[i];
  s.liveList[pos] = s.liveList.back();
  s.livePos[s.liveList[pos]] = pos;
  s.liveList.pop_back();
  s.livePos[i] = -1;
  slot = -1;
}

} // namespace

CallScope::CallScope(Entry entry) {
  State &s = state();
  s.entry = entry;
  s.inCall = true;
  s.next = 0;
  s.broken = false;
  EntryPlan &plan = s.plans[static_cast<int>(entry)];
  if (plan.heapOnly) {
    s.inCall = false; // served by malloc, as outside a call
    return;
  }
  s.recording = !plan.valid;
  if (s.recording) {
    s.rec.buffers.clear();
    s.rec.liveIndex.clear();
    s.rec.events = 0;
  } else {
    prepareReplay(s, plan);
  }
}

CallScope::~CallScope() {
  State &s = state();
  EntryPlan &plan = s.plans[static_cast<int>(s.entry)];
  if (!s.inCall)
    return; // heap only
  s.inCall = false;
  if (s.recording) {
    finishRecording(s);
    return;
  }
  if (!s.liveList.empty()) {
    // An arena buffer outlives the call: keep its bytes out of reach.
    s.retired.push_back({s.arena, s.arenaBytes});
    s.arena = nullptr;
    s.arenaBytes = 0;
    s.broken = true;
  }
  if (s.broken || s.next != plan.sizes.size())
    plan.valid = false;
  else
    ++s.stats.replayedCalls;
}

Stats stats() { return state().stats; }

void reset() {
  State &s = state();
  device().freeDevice(s.arena);
  for (auto [base, bytes] : s.retired)
    device().freeDevice(base);
  s = State();
}

} // namespace arena
} // namespace autodist::rt

using namespace autodist::rt;
using namespace autodist::rt::arena;

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  State &s = state();
  if (!s.inCall)
    return heapAlloc(s, size);
  size_t i = s.next++;
  if (s.recording) {
    void *p = heapAlloc(s, size);
    s.rec.buffers.push_back({size, s.rec.events++, -1});
    s.rec.liveIndex[p] = i;
    return p;
  }
  const EntryPlan &plan = s.plans[static_cast<int>(s.entry)];
  if (!s.broken && i < plan.sizes.size() && plan.sizes[i] == size &&
      plan.offsets[i] < 0)
    return heapAlloc(s, size); // outlived its call when recorded
  if (!s.broken)
    if (void *p = replayAlloc(s, plan, i, size))
      return p;
  s.broken = true;
  return heapAlloc(s, size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  // Arena offsets are 64-byte aligned, and so is the arena.
  if (alignment <= kAlign)
    return _mlir_memref_to_llvm_alloc(size);
  // Stricter alignments stay on the heap; the index still counts, so that
  // the replay's indices match the recording's.
  State &s = state();
  if (s.inCall) {
    ++s.next;
    if (s.recording)
      s.rec.buffers.push_back({size, s.rec.events++, -1});
  }
  return heapAlloc(s, size, alignment);
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  State &s = state();
  if (inArena(s, ptr)) {
    if (s.inCall && !s.recording)
      replayFree(s, s.plans[static_cast<int>(s.entry)], ptr);
    return;
  }
  if (s.inCall && s.recording) {
    auto it = s.rec.liveIndex.find(ptr);
    if (it != s.rec.liveIndex.end()) {
      s.rec.buffers[it->second].freeAt = s.rec.events++;
      s.rec.liveIndex.erase(it);
    }
  }
  device().freeDevice(ptr);
}
