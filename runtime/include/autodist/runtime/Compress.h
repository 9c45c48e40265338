//===- Compress.h - Compressed all-reduce ------------------------*- C++
//-*-===//
//
// The all-reduce compressors of `#dist.allreduce` (docs/design.md,
// "Compression"): fp16, fp16 with error feedback, and PowerSGD.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_COMPRESS_H
#define AUTODIST_RUNTIME_COMPRESS_H

#include "autodist/runtime/Comm.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace autodist::rt::compress {

/// `x` rounded to the nearest IEEE half (ties to even), back as a float.
float roundToHalf(float x);

/// In-place all-reduce of `n` floats that travel as IEEE halves: every rank's
/// values are rounded to half, the halves of all ranks are gathered and each
/// element is summed in float in rank order (the same result on every rank),
/// then divided by the number of ranks for a mean. So the result is exactly
/// the f32 sum (mean) of the ranks' half-rounded values.
void allreduceFp16(float *data, int64_t n, ReduceOp op);

/// `allreduceFp16` with error feedback: before rounding, this rank adds its
/// residual `e` (`n` floats, this bucket's state, zero at first) and keeps
/// the new rounding error `(g + e) - half(g + e)` in it.
void allreduceFp16EF(float *data, int64_t n, ReduceOp op, float *e);

/// The rank PowerSGD uses for a `rows` x `cols` matrix when asked for
/// `rank`: min(rank, rows, cols). Q has `cols` x that many elements.
int64_t powerSGDRank(int64_t rows, int64_t cols, int64_t rank);

/// PowerSGD's first Q (`n` floats): uniform in [-1, 1) from splitmix64
/// seeded by `seed`, the same on every rank (manifest state entries with
/// `"init": {"kind": "powersgd_q", "seed": S}`).
void initPowerSGDQ(float *q, int64_t n, int64_t seed);

/// PowerSGD (Vogels et al. 2019) with error feedback of the `rows` x `cols`
/// row-major matrix `data`, rank r = powerSGDRank(rows, cols, rank): with
/// M = data + e, P = M Q is all-reduced (mean) and orthonormalized
/// (Gram-Schmidt), Q = M^T P all-reduced (mean), and `data` becomes P Q^T
/// (times the number of ranks for a sum); e = M - P Q^T. `e` (rows * cols,
/// zero at first) and `q` (cols * r, from initPowerSGDQ at first, then
/// warm-started from the previous step) are this matrix's state on this
/// rank, updated in place. Returns the two all-reduces' payload bytes.
std::pair<int64_t, int64_t> allreducePowerSGD(float *data, int64_t rows,
                                              int64_t cols, int64_t rank,
                                              ReduceOp op, float *e, float *q);

} // namespace autodist::rt::compress

#endif // AUTODIST_RUNTIME_COMPRESS_H
