//===- StepArena.h - replayed memory plan of the compiled step --*- C++ -*-===//
//
// The compiled entry points allocate their temporaries through
// `_mlir_memref_to_llvm_alloc` / `_free` (docs/abi.md), and a step makes
// the same allocations in the same order every time it runs with the same
// shapes. The first call of an entry point is recorded (served by malloc);
// its buffers then get offsets in one arena, packed by their recorded
// lifetimes; later calls hand out those offsets in the recorded order. A
// steady-state step then makes no allocation at all. Any departure from
// the recording (another size, a buffer still live where the plan reuses
// its bytes, a buffer that outlives the call) falls back to malloc for
// that buffer and records the call afresh, so a plan is never wrong.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_STEPARENA_H
#define AUTODIST_RUNTIME_STEPARENA_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace autodist::rt {

/// One buffer of a recorded call: its size and its lifetime, in events
/// (each allocation and each free is one event) of the call.
struct ArenaBuffer {
  size_t size;
  int64_t allocAt;
  /// The event that freed it; -1: not freed during the call.
  int64_t freeAt;
};

/// Where each buffer goes in the arena (`offsets[i]`, 64-byte aligned; -1
/// for a buffer that outlives the call: it stays on the heap) and the
/// arena's size. Buffers of overlapping lifetimes get disjoint bytes;
/// greedy by size, the largest first, each at the lowest offset that fits.
struct ArenaPlan {
  std::vector<int64_t> offsets;
  size_t bytes = 0;
};
ArenaPlan planArena(const std::vector<ArenaBuffer> &buffers);

namespace arena {

/// The entry points of docs/abi.md, each with a plan of its own.
enum class Entry { TrainStep = 0, Forward = 1 };

/// Marks a call of compiled code: allocations inside it follow (or
/// record) the entry's plan.
class CallScope {
public:
  explicit CallScope(Entry entry);
  ~CallScope();
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;
};

/// Counters since the start of the process, for tests and reports.
struct Stats {
  /// Calls that replayed their plan without a fallback.
  int64_t replayedCalls = 0;
  /// Allocations served by malloc inside calls (recordings and fallbacks).
  int64_t heapAllocations = 0;
  /// The largest arena, in bytes.
  size_t arenaBytes = 0;
};
Stats stats();

/// Drops every plan, the arena and the counters (between tests). No
/// buffer of the arena may be live.
void reset();

} // namespace arena
} // namespace autodist::rt

extern "C" {
/// What compiled code calls for `memref.alloc` / `memref.dealloc`.
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);
}

#endif // AUTODIST_RUNTIME_STEPARENA_H
