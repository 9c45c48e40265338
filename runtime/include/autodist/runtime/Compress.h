//===- Compress.h - Compressed all-reduce ------------------------*- C++
//-*-===//
//
// The all-reduce compressors of `#dist.allreduce` (docs/design.md,
// "Compression"): fp16, and fp16 with error feedback.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_COMPRESS_H
#define AUTODIST_RUNTIME_COMPRESS_H

#include "autodist/runtime/Comm.h"

#include <cstdint>
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

/// This rank's error-feedback residuals, by bucket index (for tests and
/// checkpoints). A bucket's residual is created (zero) by its first call;
/// a residual of another size (e.g. restored from a checkpoint of another
/// program) makes `allreduceFp16EF` throw.
std::vector<std::vector<float>> &residuals();

/// The sizes of this rank's residuals, and all of them concatenated in
/// bucket order (a checkpoint's form).
std::vector<int64_t> residualSizes();
std::vector<float> flatResiduals();
/// Replaces this rank's residuals by `flat` cut into `sizes`.
void setResiduals(const std::vector<int64_t> &sizes,
                  const std::vector<float> &flat);

} // namespace autodist::rt::compress

#endif // AUTODIST_RUNTIME_COMPRESS_H
