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
#include <string>
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

/// `allreduceFp16` with error feedback: before rounding, this rank adds the
/// residual it kept for `bucket` (zero at first), and keeps the new rounding
/// error `(g + e) - half(g + e)` as the residual.
void allreduceFp16EF(float *data, int64_t n, ReduceOp op, int32_t bucket);

/// PowerSGD (Vogels et al. 2019) with error feedback of the `rows` x `cols`
/// row-major matrix `data`, rank `rank` (at most min(rows, cols)): with
/// M = data + e, P = M Q is all-reduced (mean) and orthonormalized
/// (Gram-Schmidt), Q = M^T P all-reduced (mean), and `data` becomes P Q^T
/// (times the number of ranks for a sum); e = M - P Q^T. State slots
/// `slot` (e, zero at first) and `slot + 1` (Q, warm-started across steps;
/// at first drawn from a generator seeded with `slot`, the same on every
/// rank) live in residuals(). Returns the two all-reduces' payload bytes.
std::pair<int64_t, int64_t> allreducePowerSGD(float *data, int64_t rows,
                                              int64_t cols, int64_t rank,
                                              ReduceOp op, int32_t slot);

/// This rank's compressor state by slot (fp16_ef: a bucket's residual;
/// PowerSGD: a matrix's residual and Q), for tests and checkpoints. A slot
/// is created by its first use; a slot of another size makes the
/// compressors throw (setResiduals).
std::vector<std::vector<float>> &residuals();

/// The sizes of this rank's slots, and all of them concatenated in slot
/// order (a checkpoint's form).
std::vector<int64_t> residualSizes();
std::vector<float> flatResiduals();
/// Replaces this rank's slots by `flat` cut into `sizes`, restored from
/// `origin` (e.g. "checkpoint 'ck/checkpoint.npz'"): from then on a slot
/// the program uses must be one of them, of its size, or the compressors
/// throw an Error naming `origin`.
void setResiduals(const std::vector<int64_t> &sizes,
                  const std::vector<float> &flat, const std::string &origin);

} // namespace autodist::rt::compress

#endif // AUTODIST_RUNTIME_COMPRESS_H
