//===- Memref.cpp - MLIR memref descriptors -------------------------------===//

#include "autodist/runtime/Memref.h"

namespace autodist::rt {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

MemrefDescriptor::MemrefDescriptor(void *data,
                                   const std::vector<int64_t> &shape) {
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  words_ = {ptr, ptr, 0};
  words_.insert(words_.end(), shape.begin(), shape.end());
  std::vector<int64_t> strides = rowMajorStrides(shape);
  words_.insert(words_.end(), strides.begin(), strides.end());
}

void **CallArgs::get() {
  pointers_.clear();
  for (MemrefDescriptor &d : descriptors_)
    pointers_.push_back(d.get());
  return pointers_.data();
}

} // namespace autodist::rt
