//===- Compress.cpp - Compressed all-reduce -------------------------------===//

#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Communicator.h"
#include "autodist/runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace autodist::rt::compress {

namespace {
using Half = _Float16;
static_assert(sizeof(Half) == 2, "IEEE half must be 2 bytes");

/// Gathers the `n` halves of every rank into `all` (rank r's at r * n).
void allgather(const Half *mine, int64_t n, std::vector<Half> &all, int ranks) {
  all.resize(static_cast<size_t>(n) * ranks);
  if (ranks == 1) {
    std::copy(mine, mine + n, all.begin());
    return;
  }
  // MPI counts are int: gather in pieces, each rank's piece contiguous.
  constexpr int64_t chunk = 1 << 28;
  std::vector<Half> piece;
  for (int64_t done = 0; done < n; done += chunk) {
    int64_t count = std::min(chunk, n - done);
    piece.resize(static_cast<size_t>(count) * ranks);
    communicator().allgather(mine + done, piece.data(),
                             static_cast<int>(count * sizeof(Half)));
    for (int r = 0; r < ranks; ++r)
      std::copy(piece.begin() + r * count, piece.begin() + (r + 1) * count,
                all.begin() + r * n + done);
  }
}

/// Sends `halves` (this rank's rounded values) and leaves in `data` the
/// float sum (mean) over ranks, summed in rank order.
void reduceHalves(const std::vector<Half> &halves, float *data, int64_t n,
                  ReduceOp op) {
  int ranks = communicator().size();
  std::vector<Half> all;
  allgather(halves.data(), n, all, ranks);
  for (int64_t i = 0; i < n; ++i) {
    float sum = 0.0f;
    for (int r = 0; r < ranks; ++r)
      sum += static_cast<float>(all[r * n + i]);
    data[i] = op == ReduceOp::Mean ? sum / static_cast<float>(ranks) : sum;
  }
}
} // namespace

float roundToHalf(float x) { return static_cast<float>(static_cast<Half>(x)); }

void allreduceFp16(float *data, int64_t n, ReduceOp op) {
  std::vector<Half> halves(n);
  for (int64_t i = 0; i < n; ++i)
    halves[i] = static_cast<Half>(data[i]);
  reduceHalves(halves, data, n, op);
}

namespace {
/// Where the slots were restored from (setResiduals), if they were.
struct Restored {
  std::string origin;
  size_t slots = 0;
};
Restored &restored() {
  static Restored r;
  return r;
}

/// A state slot of `n` elements: zero (or `init`) when new. State restored
/// from a checkpoint must have the slot, of this size: otherwise the
/// checkpoint is of another program (Error naming it). A slot of another
/// size not restored is the compiler's bug (std::logic_error).
std::vector<float> &slotOf(int32_t slot, int64_t n, const char *what,
                           void (*init)(std::vector<float> &,
                                        int32_t) = nullptr) {
  std::vector<std::vector<float>> &all = residuals();
  const Restored &from = restored();
  if (!from.origin.empty() && (static_cast<size_t>(slot) >= from.slots ||
                               static_cast<int64_t>(all[slot].size()) != n))
    throw Error(
        from.origin + " holds the compressor state of another program: " +
        "this executable's " + what + " (state slot " + std::to_string(slot) +
        ") has " + std::to_string(n) + " elements, the checkpoint's " +
        (static_cast<size_t>(slot) < from.slots
             ? std::to_string(all[slot].size())
             : "none (it has " + std::to_string(from.slots) + " slots)") +
        " (resume with the executable that wrote it, or start without "
        "--resume)");
  if (all.size() <= static_cast<size_t>(slot))
    all.resize(slot + 1);
  std::vector<float> &v = all[slot];
  if (v.empty()) {
    v.resize(n, 0.0f);
    if (init)
      init(v, slot);
  } else if (static_cast<int64_t>(v.size()) != n) {
    throw std::logic_error(std::string("the ") + what + " in state slot " +
                           std::to_string(slot) + " has " +
                           std::to_string(v.size()) + " elements, but needs " +
                           std::to_string(n));
  }
  return v;
}

/// PowerSGD's first Q: uniform in [-1, 1) from splitmix64 seeded by the
/// slot, the same on every rank.
void initQ(std::vector<float> &q, int32_t slot) {
  uint64_t x = 0x5eed0000ULL + static_cast<uint64_t>(slot);
  for (float &v : q) {
    x += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    v = static_cast<float>(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0);
  }
}

/// Orthonormalizes the `r` columns of the row-major `rows` x `r` matrix `p`
/// (Gram-Schmidt in double, each projection done twice). A column that is
/// (numerically) in the span of the previous ones, its remaining norm below
/// 1e-6 of its own, becomes zero: its roundoff is no direction (the mean
/// gradient often has rank < r, e.g. with few samples per step).
void orthonormalize(std::vector<float> &p, int64_t rows, int64_t r) {
  std::vector<double> d(p.begin(), p.end());
  auto norm = [&](int64_t j) {
    double n = 0;
    for (int64_t i = 0; i < rows; ++i)
      n += d[i * r + j] * d[i * r + j];
    return std::sqrt(n);
  };
  for (int64_t j = 0; j < r; ++j) {
    double before = norm(j);
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (int64_t i = 0; i < rows; ++i)
          dot += d[i * r + j] * d[i * r + k];
        for (int64_t i = 0; i < rows; ++i)
          d[i * r + j] -= dot * d[i * r + k];
      }
    double after = norm(j);
    for (int64_t i = 0; i < rows; ++i)
      d[i * r + j] = after > 1e-6 * before ? d[i * r + j] / after : 0.0;
  }
  std::copy(d.begin(), d.end(), p.begin());
}
} // namespace

std::vector<std::vector<float>> &residuals() {
  static std::vector<std::vector<float>> r;
  return r;
}

void allreduceFp16EF(float *data, int64_t n, ReduceOp op, int32_t bucket) {
  std::vector<float> &e = slotOf(bucket, n, "error-feedback residual");
  std::vector<Half> halves(n);
  for (int64_t i = 0; i < n; ++i) {
    float s = data[i] + e[i];
    halves[i] = static_cast<Half>(s);
    e[i] = s - static_cast<float>(halves[i]);
  }
  reduceHalves(halves, data, n, op);
}

std::pair<int64_t, int64_t> allreducePowerSGD(float *data, int64_t rows,
                                              int64_t cols, int64_t rank,
                                              ReduceOp op, int32_t slot) {
  int64_t r = std::min({rank, rows, cols});
  // Q's slot first: creating it may move the slots, creating e's cannot.
  std::vector<float> &q = slotOf(slot + 1, cols * r, "PowerSGD Q", initQ);
  std::vector<float> &e = slotOf(slot, rows * cols, "PowerSGD residual");
  std::vector<float> m(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    m[i] = data[i] + e[i];
  // P = M Q, averaged over ranks, orthonormalized.
  std::vector<float> p(rows * r, 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < cols; ++k)
      for (int64_t j = 0; j < r; ++j)
        p[i * r + j] += m[i * cols + k] * q[k * r + j];
  communicator().allreduce(p.data(), rows * r, ReduceOp::Mean);
  orthonormalize(p, rows, r);
  // Q = M^T P, averaged over ranks: kept for the next step (warm start).
  std::fill(q.begin(), q.end(), 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < cols; ++k)
      for (int64_t j = 0; j < r; ++j)
        q[k * r + j] += m[i * cols + k] * p[i * r + j];
  communicator().allreduce(q.data(), cols * r, ReduceOp::Mean);
  // The approximation P Q^T of the mean; what it misses stays in e.
  float scale =
      op == ReduceOp::Sum ? static_cast<float>(communicator().size()) : 1.0f;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < cols; ++k) {
      float approx = 0.0f;
      for (int64_t j = 0; j < r; ++j)
        approx += p[i * r + j] * q[k * r + j];
      e[i * cols + k] = m[i * cols + k] - approx;
      data[i * cols + k] = approx * scale;
    }
  constexpr int64_t f32 = sizeof(float);
  return {rows * r * f32, cols * r * f32};
}

std::vector<int64_t> residualSizes() {
  std::vector<int64_t> sizes;
  for (const std::vector<float> &e : residuals())
    sizes.push_back(static_cast<int64_t>(e.size()));
  return sizes;
}

std::vector<float> flatResiduals() {
  std::vector<float> flat;
  for (const std::vector<float> &e : residuals())
    flat.insert(flat.end(), e.begin(), e.end());
  return flat;
}

void setResiduals(const std::vector<int64_t> &sizes,
                  const std::vector<float> &flat, const std::string &origin) {
  restored() = {origin, sizes.size()};
  std::vector<std::vector<float>> &all = residuals();
  all.clear();
  size_t at = 0;
  for (int64_t n : sizes) {
    all.emplace_back(flat.begin() + at, flat.begin() + at + n);
    at += n;
  }
}

} // namespace autodist::rt::compress
