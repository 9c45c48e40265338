//===- MemrefCopyTest.cpp - memrefCopy for strided memrefs ----------------===//

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {
struct Unranked {
  int64_t rank;
  void *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elemSize, Unranked *src, Unranked *dst);

// A 2x3 block copied out of a 4x5 row-major matrix (strided source) into a
// column-major 2x3 destination (strided destination).
TEST(MemrefCopyTest, CopiesBetweenStridedViews) {
  std::vector<float> a(20), b(6, -1.0f);
  for (int i = 0; i < 20; ++i)
    a[i] = static_cast<float>(i);
  // Source: offset (1, 2) in the 4x5 matrix.
  int64_t src[] = {reinterpret_cast<int64_t>(a.data()),
                   reinterpret_cast<int64_t>(a.data()),
                   1 * 5 + 2,
                   2,
                   3,
                   5,
                   1};
  int64_t dst[] = {reinterpret_cast<int64_t>(b.data()),
                   reinterpret_cast<int64_t>(b.data()),
                   0,
                   2,
                   3,
                   1,
                   2};
  Unranked s{2, src}, d{2, dst};
  memrefCopy(sizeof(float), &s, &d);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(b[i + 2 * j], a[(1 + i) * 5 + 2 + j]) << i << "," << j;
}

TEST(MemrefCopyTest, RankZeroAndEmpty) {
  float x = 3.5f, y = 0.0f;
  int64_t src[] = {reinterpret_cast<int64_t>(&x), reinterpret_cast<int64_t>(&x),
                   0};
  int64_t dst[] = {reinterpret_cast<int64_t>(&y), reinterpret_cast<int64_t>(&y),
                   0};
  Unranked s{0, src}, d{0, dst};
  memrefCopy(sizeof(float), &s, &d);
  EXPECT_EQ(y, 3.5f);
  float z = 7.0f;
  int64_t e1[] = {reinterpret_cast<int64_t>(&x), reinterpret_cast<int64_t>(&x),
                  0, 0, 1};
  int64_t e2[] = {reinterpret_cast<int64_t>(&z), reinterpret_cast<int64_t>(&z),
                  0, 0, 1};
  Unranked es{1, e1}, ed{1, e2};
  memrefCopy(sizeof(float), &es, &ed);
  EXPECT_EQ(z, 7.0f);
}
