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

/// How a .npy array is stored: its header, checked against the dtype wanted
/// and the bytes present.
struct NpyLayout {
  std::string descr; // "<f4", "<f8", "<f2", "<i8", "<i4", "<i2", "|i1", "|b1"
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  size_t dataOffset = 0;    // header bytes; the elements follow
  size_t itemSize = 0;      // bytes per stored element
  DType dtype = DType::F32; // what the elements convert to
  std::string what;         // the array, as errors name it
};

/// The .npy element type `dtype` is written as ("<f4" for bf16 too: numpy
/// has no bfloat16, so bf16 tensors travel as float32).
const char *npyDescr(DType dtype);

/// The size of the header that `prefix` (the first `size` bytes of a .npy,
/// at least 12 if there are that many) begins, or 0 if it is not one.
size_t npyHeaderBytes(const uint8_t *prefix, size_t size);

/// Parses the .npy header in `header` (`headerSize` bytes, at least
/// npyHeaderBytes) of a .npy of `totalSize` bytes and checks it: a dtype
/// that converts to `want`, C order, a shape whose sizes do not overflow and
/// exactly the data bytes it needs. Errors name the array as `what`.
NpyLayout parseNpyLayout(const uint8_t *header, size_t headerSize,
                         uint64_t totalSize, DType want,
                         const std::string &what);

/// Converts `n` elements stored as `layout` at `src` to `layout.dtype` at
/// `dst`.
void convertNpyElements(const NpyLayout &layout, const uint8_t *src, void *dst,
                        int64_t n);

/// Decodes `bytes` as a tensor of dtype `want`. `what` names the array in
/// errors, e.g. "array 'x' in data file 'train.npz'".
Tensor decodeNpy(const std::vector<uint8_t> &bytes, DType want,
                 const std::string &what);

/// The .npy (format 1.0) header of an array of `dtype` (npyDescr) and
/// `shape`; the row-major data follows it.
std::string npyHeader(DType dtype, const std::vector<int64_t> &shape);

/// The .npy (format 1.0) encoding of `t` (bf16 widened to float32).
std::vector<uint8_t> encodeNpy(const Tensor &t);

/// Writes `t` to `path` as .npy, atomically.
void writeNpy(const std::string &path, const Tensor &t);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_NPY_H
