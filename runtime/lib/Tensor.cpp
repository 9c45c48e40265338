//===- Tensor.cpp - Host tensors ------------------------------------------===//

#include "autodist/runtime/Tensor.h"

#include "autodist/runtime/Device.h"
#include "autodist/runtime/Error.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace autodist::rt {

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 4},   {DType::I64, "i64", 8}, {DType::I32, "i32", 4},
    {DType::Bool, "bool", 1}, {DType::F64, "f64", 8}, {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2}, {DType::I8, "i8", 1},   {DType::I16, "i16", 2},
    {DType::U8, "u8", 1},     {DType::U16, "u16", 2}, {DType::U32, "u32", 4},
    {DType::U64, "u64", 8},
};
const DTypeInfo &infoOf(DType dtype) {
  for (const DTypeInfo &i : kDTypes)
    if (i.dtype == dtype)
      return i;
  return kDTypes[0]; // unreachable: every enumerator is listed
}
} // namespace

size_t dtypeSize(DType dtype) { return infoOf(dtype).size; }

const char *dtypeName(DType dtype) { return infoOf(dtype).name; }

std::optional<DType> dtypeNamed(const std::string &name) {
  for (const DTypeInfo &i : kDTypes)
    if (name == i.name)
      return i.dtype;
  return std::nullopt;
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::optional<int64_t> checkedByteSize(const std::vector<int64_t> &shape,
                                       size_t elementSize) {
  // Bytes bound the element count (elementSize >= 1), so one product does.
  int64_t n = static_cast<int64_t>(elementSize);
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  return n;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void Tensor::Free::operator()(std::byte *p) const { device().freeShared(p); }

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  if (!checkedByteSize(shape_, dtypeSize(dtype_)))
    throw Error("a tensor of shape " + shapeString(shape_) +
                " is too large (its size overflows 64 bits)");
  // The device's shared memory (host memory on CPU): compiled code reads
  // and writes tensors in place, on whichever device it runs. Zeroed, never
  // zero bytes, so even empty tensors have a valid, unique address.
  constexpr size_t align = 64;
  storage_.reset(
      static_cast<std::byte *>(device().allocateShared(byteSize(), align)));
}

int64_t Tensor::rowElements() const {
  // No temporary shape: rowData runs in every step, which allocates nothing.
  int64_t n = 1;
  for (size_t i = 1; i < shape_.size(); ++i)
    n *= shape_[i];
  return n;
}

void *Tensor::rowData(int64_t row) {
  return storage_.get() + row * rowElements() * dtypeSize(dtype_);
}

const void *Tensor::rowData(int64_t row) const {
  return const_cast<Tensor *>(this)->rowData(row);
}

} // namespace autodist::rt
