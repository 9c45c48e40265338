//===- MemrefTest.cpp - Memref descriptor layout --------------------------===//

#include "autodist/runtime/Memref.h"

#include <gtest/gtest.h>

using namespace autodist::rt;
// Aliases: template commas would split gtest macro arguments.
using F0 = StridedMemref<float, 0>;
using F2 = StridedMemref<float, 2>;
using F3 = StridedMemref<float, 3>;
using I0 = StridedMemref<int64_t, 0>;
using I1 = StridedMemref<int64_t, 1>;

TEST(Memref, Rank2Layout) {
  float buf[6];
  CallArgs args;
  args.add(buf, {2, 3});
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(buf));
  auto *words = static_cast<int64_t *>(args.get()[0]);
  EXPECT_EQ(std::vector<int64_t>(words, words + 7),
            (std::vector<int64_t>{ptr, ptr, 0, 2, 3, 3, 1}));
  // The same words read through the struct compiled code uses.
  auto *m = static_cast<F2 *>(args.get()[0]);
  EXPECT_EQ(m->allocated, buf);
  EXPECT_EQ(m->aligned, buf);
  EXPECT_EQ(m->offset, 0);
  EXPECT_EQ(m->sizes[0], 2);
  EXPECT_EQ(m->sizes[1], 3);
  EXPECT_EQ(m->strides[0], 3);
  EXPECT_EQ(m->strides[1], 1);
}

TEST(Memref, Rank0And3) {
  int64_t x;
  float buf[24];
  CallArgs args;
  args.add(&x, {});
  args.add(buf, {2, 3, 4});
  void **p = args.get();
  EXPECT_EQ(static_cast<I0 *>(p[0])->aligned, &x);
  // A rank-0 descriptor is 3 words: the next one follows at once.
  EXPECT_EQ(static_cast<int64_t *>(p[1]) - static_cast<int64_t *>(p[0]), 3);
  auto *m = static_cast<F3 *>(p[1]);
  EXPECT_EQ(m->strides[0], 12);
  EXPECT_EQ(m->strides[1], 4);
  EXPECT_EQ(m->strides[2], 1);
  EXPECT_EQ(m->sizes[2], 4);
  EXPECT_EQ(rowMajorStrides({5, 0, 2}), (std::vector<int64_t>{0, 2, 1}));
}

TEST(Memref, CallArgsBatchAndReuse) {
  float buf[12];
  CallArgs args;
  args.add(buf, {-1, 3}, 4); // the dynamic batch dim
  auto *m = static_cast<F2 *>(args.get()[0]);
  EXPECT_EQ(m->sizes[0], 4);
  EXPECT_EQ(m->strides[0], 3);
  // Cleared and refilled, the same memory is reused.
  void **before = args.get();
  args.clear();
  args.add(buf, {-1, 3}, 2);
  EXPECT_EQ(args.get(), before);
  EXPECT_EQ(static_cast<F2 *>(args.get()[0])->sizes[0], 2);
}

TEST(Memref, CallArgsKeepOrder) {
  Tensor a(DType::F32, {4, 2}), b(DType::I64, {4});
  float lr = 0.1f;
  CallArgs args;
  args.add(a);
  args.add(b);
  args.add(&lr, {});
  void **p = args.get();
  EXPECT_EQ(static_cast<F2 *>(p[0])->aligned, a.data<float>());
  EXPECT_EQ(static_cast<I1 *>(p[1])->sizes[0], 4);
  EXPECT_EQ(static_cast<F0 *>(p[2])->aligned, &lr);
}

TEST(Tensor, RowsAndAlignment) {
  Tensor t(DType::F32, {5, 2, 3});
  EXPECT_EQ(t.rowElements(), 6);
  EXPECT_EQ(t.rowData(2), t.data<float>() + 12);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.data<float>()[29], 0.0f); // zero-initialised
  Tensor empty(DType::I64, {0, 3});
  EXPECT_EQ(empty.byteSize(), 0u);
  EXPECT_NE(empty.data(), nullptr);
}
