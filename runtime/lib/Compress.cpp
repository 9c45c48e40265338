//===- Compress.cpp - Compressed all-reduce -------------------------------===//

#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Error.h"

#include <algorithm>
#include <mpi.h>

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
    MPI_Allgather(mine + done, static_cast<int>(count), MPI_UINT16_T,
                  piece.data(), static_cast<int>(count), MPI_UINT16_T,
                  MPI_COMM_WORLD);
    for (int r = 0; r < ranks; ++r)
      std::copy(piece.begin() + r * count, piece.begin() + (r + 1) * count,
                all.begin() + r * n + done);
  }
}

/// Sends `halves` (this rank's rounded values) and leaves in `data` the
/// float sum (mean) over ranks, summed in rank order.
void reduceHalves(const std::vector<Half> &halves, float *data, int64_t n,
                  ReduceOp op) {
  int ranks = comm::size();
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

std::vector<std::vector<float>> &residuals() {
  static std::vector<std::vector<float>> r;
  return r;
}

void allreduceFp16EF(float *data, int64_t n, ReduceOp op, int32_t bucket) {
  std::vector<std::vector<float>> &all = residuals();
  if (all.size() <= static_cast<size_t>(bucket))
    all.resize(bucket + 1);
  std::vector<float> &e = all[bucket];
  if (e.empty())
    e.resize(n, 0.0f);
  else if (static_cast<int64_t>(e.size()) != n)
    throw Error("the error-feedback residual of bucket " +
                std::to_string(bucket) + " has " + std::to_string(e.size()) +
                " elements, but the bucket has " + std::to_string(n) +
                " (a checkpoint of another program?)");
  std::vector<Half> halves(n);
  for (int64_t i = 0; i < n; ++i) {
    float s = data[i] + e[i];
    halves[i] = static_cast<Half>(s);
    e[i] = s - static_cast<float>(halves[i]);
  }
  reduceHalves(halves, data, n, op);
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
                  const std::vector<float> &flat) {
  std::vector<std::vector<float>> &all = residuals();
  all.clear();
  size_t at = 0;
  for (int64_t n : sizes) {
    all.emplace_back(flat.begin() + at, flat.begin() + at + n);
    at += n;
  }
}

} // namespace autodist::rt::compress
