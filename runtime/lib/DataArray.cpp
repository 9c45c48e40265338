//===- DataArray.cpp - One array of a data file ---------------------------===//

#include "autodist/runtime/DataArray.h"
#include "autodist/runtime/Device.h"

#include <algorithm>
#include <utility>

namespace autodist::rt {

namespace {
int64_t rowElementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i)
    n *= shape[i];
  return n;
}
} // namespace

DataArray::DataArray(Tensor t)
    : dtype_(t.dtype()), shape_(t.shape()), rowElements_(t.rowElements()),
      memory_(std::move(t)) {
  // The host does not write it again: on a GPU it moves there once.
  device().prefetch(memory_->data(), memory_->byteSize());
}

DataArray::DataArray(std::shared_ptr<const NpzFile> npz, NpyLayout layout,
                     uint64_t offset)
    : dtype_(layout.dtype), shape_(layout.shape),
      rowElements_(rowElementsOf(layout.shape)), npz_(std::move(npz)),
      layout_(std::move(layout)), offset_(offset) {}

void *DataArray::rows(int64_t first, int64_t count) {
  if (memory_)
    return memory_->rowData(first);
  std::optional<Range> ahead = std::exchange(ahead_, std::nullopt);
  if (ahead && ahead->first == first && ahead->count == count) {
    current_ ^= 1;
    return batches_[current_]->data();
  }
  return read(current_, first, count);
}

void DataArray::readAhead(int64_t first, int64_t count) {
  if (memory_)
    return;
  read(current_ ^ 1, first, count);
  ahead_ = Range{first, count};
}

void *DataArray::read(int slot, int64_t first, int64_t count) {
  std::optional<Tensor> &batch = batches_[slot];
  // Sizes fit: the whole array's were checked (parseNpyLayout).
  if (!batch || batch->shape()[0] < count) {
    std::vector<int64_t> shape = shape_;
    shape[0] = count;
    batch.emplace(dtype_, shape);
  }
  int64_t n = count * rowElements_;
  uint64_t at = offset_ + first * rowElements_ * layout_.itemSize;
  uint64_t bytes = n * layout_.itemSize;
  // Stored exactly as the ABI wants (bools are normalised to 0/1 below).
  bool asIs = dtype_ != DType::Bool && dtype_ != DType::BF16 &&
              layout_.descr == npyDescr(dtype_);
  if (asIs) {
    npz_->readAt(at, batch->data(), bytes);
  } else {
    raw_.resize(std::max<uint64_t>(raw_.size(), bytes));
    npz_->readAt(at, raw_.data(), bytes);
    convertNpyElements(layout_, raw_.data(), batch->data(), n);
  }
  // In one transfer before the step reads it, not page by page.
  device().prefetch(batch->data(), n * dtypeSize(dtype_));
  return batch->data();
}

void DataArray::forEachChunk(
    const std::function<void(const void *, int64_t, int64_t)> &fn) {
  int64_t rowsTotal = shape_.empty() ? 1 : shape_[0];
  if (memory_) {
    fn(memory_->data(), 0, memory_->numElements());
    return;
  }
  // About 1M elements at a time: bounded memory, few reads.
  int64_t step = std::max<int64_t>(1, (int64_t(1) << 20) /
                                          std::max<int64_t>(rowElements_, 1));
  for (int64_t first = 0; first < rowsTotal; first += step) {
    int64_t count = std::min(step, rowsTotal - first);
    fn(rows(first, count), first * rowElements_, count * rowElements_);
  }
}

} // namespace autodist::rt
