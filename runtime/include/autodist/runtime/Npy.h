//===- Npy.h - numpy .npy arrays --------------------------------*- C++ -*-===//
//
// Decodes .npy bytes into runtime tensors and encodes tensors as .npy. Only
// little-endian, C-order arrays are accepted; float data (<f4, <f8) becomes
// f32 and integer data (<i4, <i8) becomes i64, the two ABI dtypes.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_NPY_H
#define AUTODIST_RUNTIME_NPY_H

#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace autodist::rt {

/// Decodes `bytes` as a tensor of dtype `want`. `what` names the array in
/// errors, e.g. "array 'x' in data file 'train.npz'".
Tensor decodeNpy(const std::vector<uint8_t> &bytes, DType want,
                 const std::string &what);

/// The .npy (format 1.0) header of an array of `dtype` (<f4 or <i8) and
/// `shape`; the row-major data follows it.
std::string npyHeader(DType dtype, const std::vector<int64_t> &shape);

/// The .npy (format 1.0) encoding of `t`: <f4 or <i8.
std::vector<uint8_t> encodeNpy(const Tensor &t);

/// Writes `t` to `path` as .npy, atomically.
void writeNpy(const std::string &path, const Tensor &t);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_NPY_H
