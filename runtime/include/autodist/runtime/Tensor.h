//===- Tensor.h - Host tensors ----------------------------------*- C++ -*-===//
//
// A dense, contiguous, row-major host buffer with a dtype and a shape. Every
// buffer the runtime hands to compiled code is one of these (or a slice of
// consecutive rows of one), which is what makes the identity-layout memref
// descriptors of docs/abi.md valid.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_TENSOR_H
#define AUTODIST_RUNTIME_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

/// The element types of the ABI (manifest `dtype`: f32, i64, i32, bool, f64,
/// f16, bf16, i8, i16, u8, u16, u32, u64). Bool elements are one byte, 0 or 1
/// (an LLVM i1 in memory, numpy's `|b1`); bf16 elements are the upper 16 bits
/// of an IEEE float32 (numpy has no bfloat16: .npy files carry them as
/// float32).
enum class DType {
  F32,
  I64,
  I32,
  Bool,
  F64,
  F16,
  BF16,
  I8,
  I16,
  U8,
  U16,
  U32,
  U64
};

size_t dtypeSize(DType dtype);
/// The manifest's name of `dtype` ("f32", "bf16", ...).
const char *dtypeName(DType dtype);
/// The dtype the manifest names `name`, or nullopt.
std::optional<DType> dtypeNamed(const std::string &name);

/// Product of the dimensions (1 for rank 0). Unchecked: for shapes already
/// validated (a Tensor's, the manifest's).
int64_t numElements(const std::vector<int64_t> &shape);
/// The byte size of an array of `shape` with `elementSize`-byte elements, or
/// nullopt if a dimension is negative or the element count or the byte size
/// overflows int64. Every shape read from a file goes through this before
/// anything is allocated or indexed with it.
std::optional<int64_t> checkedByteSize(const std::vector<int64_t> &shape,
                                       size_t elementSize);
/// "[2, 3]".
std::string shapeString(const std::vector<int64_t> &shape);

class Tensor {
public:
  /// Zero-initialised, 64-byte aligned storage. Throws Error if the byte
  /// size of `shape` overflows (callers with file-given shapes check first,
  /// naming the file).
  Tensor(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numElements() const { return rt::numElements(shape_); }
  size_t byteSize() const { return numElements() * dtypeSize(dtype_); }
  /// Elements per leading-dimension row (a "sample"): product of shape[1:].
  int64_t rowElements() const;

  void *data() { return storage_.get(); }
  const void *data() const { return storage_.get(); }
  template <typename T> T *data() { return static_cast<T *>(data()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data());
  }
  /// Address of row `row` (sample `row` along the leading dimension).
  void *rowData(int64_t row);
  const void *rowData(int64_t row) const;

private:
  struct Free {
    void operator()(std::byte *p) const;
  };
  DType dtype_;
  std::vector<int64_t> shape_;
  std::unique_ptr<std::byte[], Free> storage_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_TENSOR_H
