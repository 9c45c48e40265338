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

void CallArgs::add(void *data, const std::vector<int64_t> &shape,
                   int64_t batch) {
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  starts_.push_back(words_.size());
  words_.insert(words_.end(), {ptr, ptr, 0});
  size_t sizesAt = words_.size();
  for (int64_t d : shape)
    words_.push_back(d == -1 ? batch : d);
  words_.resize(words_.size() + shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    words_[sizesAt + shape.size() + i] = stride;
    stride *= words_[sizesAt + i];
  }
}

void **CallArgs::get() {
  pointers_.clear();
  for (size_t start : starts_)
    pointers_.push_back(words_.data() + start);
  return pointers_.data();
}

} // namespace autodist::rt
