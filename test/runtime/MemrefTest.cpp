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
  MemrefDescriptor d(buf, {2, 3});
  EXPECT_EQ(d.rank(), 2);
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(buf));
  EXPECT_EQ(d.words(), (std::vector<int64_t>{ptr, ptr, 0, 2, 3, 3, 1}));
  // The same words read through the struct compiled code uses.
  auto *m = static_cast<F2 *>(d.get());
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
  MemrefDescriptor scalar(&x, {});
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.words().size(), 3u);
  EXPECT_EQ(static_cast<I0 *>(scalar.get())->aligned, &x);

  float buf[24];
  MemrefDescriptor d(buf, {2, 3, 4});
  auto *m = static_cast<F3 *>(d.get());
  EXPECT_EQ(m->strides[0], 12);
  EXPECT_EQ(m->strides[1], 4);
  EXPECT_EQ(m->strides[2], 1);
  EXPECT_EQ(m->sizes[2], 4);
  EXPECT_EQ(rowMajorStrides({5, 0, 2}), (std::vector<int64_t>{0, 2, 1}));
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
