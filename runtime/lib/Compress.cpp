//===- Compress.cpp - Compressed all-reduce -------------------------------===//

#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Communicator.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

void initPowerSGDQ(float *q, int64_t n, int64_t seed) {
  uint64_t x = static_cast<uint64_t>(seed);
  for (int64_t i = 0; i < n; ++i) {
    x += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    q[i] = static_cast<float>(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0);
  }
}

void allreduceFp16EF(float *data, int64_t n, ReduceOp op, float *e) {
  std::vector<Half> halves(n);
  for (int64_t i = 0; i < n; ++i) {
    float s = data[i] + e[i];
    halves[i] = static_cast<Half>(s);
    e[i] = s - static_cast<float>(halves[i]);
  }
  reduceHalves(halves, data, n, op);
}

int64_t powerSGDRank(int64_t rows, int64_t cols, int64_t rank) {
  return std::min({rank, rows, cols});
}

std::pair<int64_t, int64_t> allreducePowerSGD(float *data, int64_t rows,
                                              int64_t cols, int64_t rank,
                                              ReduceOp op, float *e, float *q) {
  int64_t r = powerSGDRank(rows, cols, rank);
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
  std::fill(q, q + cols * r, 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < cols; ++k)
      for (int64_t j = 0; j < r; ++j)
        q[k * r + j] += m[i * cols + k] * p[i * r + j];
  communicator().allreduce(q, cols * r, ReduceOp::Mean);
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

} // namespace autodist::rt::compress
