//===- NpzTest.cpp - .npz / .npy reading and writing ----------------------===//

#include "autodist/runtime/Npz.h"
#include "autodist/runtime/Npy.h"

#include "TestUtil.h"
#include "ZipWriter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

using namespace autodist::rt;
using namespace autodist::rt::test;

namespace {
Tensor iota(DType dtype, std::vector<int64_t> shape) {
  Tensor t(dtype, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    if (dtype == DType::F32)
      t.data<float>()[i] = 0.5f * i;
    else
      t.data<int64_t>()[i] = i - 1;
  return t;
}

void expectEqual(const Tensor &a, const Tensor &b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
}

void roundTrip(bool deflate) {
  Tensor x = iota(DType::F32, {3, 4}), y = iota(DType::I64, {3});
  std::string path = tempPath("data.npz");
  writeZip(path, {{"x.npy", encodeNpy(x)}, {"labels.npy", encodeNpy(y)}},
           deflate);
  NpzFile npz(path);
  EXPECT_EQ(npz.arrayNames(), (std::vector<std::string>{"x", "labels"}));
  expectEqual(npz.read("x", DType::F32), x);
  expectEqual(npz.read("labels", DType::I64), y);
}

/// Both fixtures hold x = arange(12).reshape(3, 4), labels = [0, 1, 2].
void expectFixture(const std::string &file) {
  NpzFile npz(std::string(AUTODIST_TEST_DATA_DIR) + "/" + file);
  Tensor x = npz.read("x", DType::F32), labels = npz.read("labels", DType::I64);
  ASSERT_EQ(x.shape(), (std::vector<int64_t>{3, 4}));
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(x.data<float>()[i], i);
  ASSERT_EQ(labels.shape(), (std::vector<int64_t>{3}));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(labels.data<int64_t>()[i], i);
}
} // namespace

TEST(Npz, StoredRoundTrip) { roundTrip(false); }
TEST(Npz, CompressedRoundTrip) { roundTrip(true); }

TEST(Npz, ReadsNumpySavez) { expectFixture("numpy_savez.npz"); }
TEST(Npz, ReadsNumpySavezCompressed) {
  expectFixture("numpy_savez_compressed.npz");
}

TEST(Npz, ConvertsFloat64AndInt32) {
  double d[] = {1.5, -2.25, 1e-3};
  int32_t i[] = {7, -1, 0};
  std::string path = tempPath("conv.npz");
  writeZip(path,
           {{"x.npy", makeNpy("<f8", "(3,)", d, sizeof d)},
            {"labels.npy", makeNpy("<i4", "(3,)", i, sizeof i)}},
           true);
  NpzFile npz(path);
  Tensor x = npz.read("x", DType::F32), y = npz.read("labels", DType::I64);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(x.data<float>()[k], static_cast<float>(d[k]));
    EXPECT_EQ(y.data<int64_t>()[k], i[k]);
  }
}

TEST(Npz, MissingArrayNamesFileAndArrays) {
  std::string path = tempPath("train.npz");
  Tensor t = iota(DType::F32, {2});
  writeZip(path, {{"a.npy", encodeNpy(t)}, {"b.npy", encodeNpy(t)}}, false);
  EXPECT_EQ(errorOf([&] { NpzFile(path).read("x", DType::F32); }),
            "data file '" + path + "' has no array 'x' (has: a, b)");
}

TEST(Npz, MissingFile) {
  std::string path = tempPath("absent.npz");
  EXPECT_EQ(errorOf([&] { NpzFile npz(path); }),
            "cannot open data file '" + path + "': No such file or directory");
}

TEST(Npz, NotAZip) {
  std::string path = tempPath("text.npz");
  std::ofstream(path) << "x,y\n1,2\n";
  EXPECT_EQ(errorOf([&] { NpzFile npz(path); }),
            "data file '" + path +
                "' is not a valid .npz (zip) archive: too small");
  std::ofstream(path) << std::string(100, 'z');
  EXPECT_NE(errorOf([&] {
              NpzFile npz(path);
            }).find("is not a valid .npz (zip) archive"),
            std::string::npos);
}

TEST(Npz, CorruptDataFailsCrc) {
  std::string path = tempPath("corrupt.npz");
  std::vector<uint8_t> npy = encodeNpy(iota(DType::F32, {8}));
  writeZip(path, {{"x.npy", npy}}, false);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(30 + 5 + npy.size() - 1); // last data byte, after header and name
  f.put('\x7f');
  f.close();
  EXPECT_NE(errorOf([&] {
              NpzFile(path).read("x", DType::F32);
            }).find("CRC mismatch"),
            std::string::npos);
}

TEST(Npz, RejectsWrongDtype) {
  std::string path = tempPath("dtype.npz");
  float f[] = {0, 1};
  uint8_t u[] = {0, 1};
  writeZip(path,
           {{"labels.npy", makeNpy("<f4", "(2,)", f, sizeof f)},
            {"x.npy", makeNpy("|u1", "(2,)", u, sizeof u)}},
           false);
  EXPECT_EQ(errorOf([&] { NpzFile(path).read("labels", DType::I64); }),
            "array 'labels' in data file '" + path +
                "' has dtype '<f4'; expected int64 or int32 ('<i8', '<i4')");
  EXPECT_EQ(errorOf([&] { NpzFile(path).read("x", DType::F32); }),
            "array 'x' in data file '" + path +
                "' has dtype '|u1'; expected float32 or float64 ('<f4', "
                "'<f8')");
}

TEST(Npz, RejectsFortranOrder) {
  std::string path = tempPath("fortran.npz");
  float f[6] = {};
  writeZip(path, {{"x.npy", makeNpy("<f4", "(2, 3)", f, sizeof f, true)}},
           false);
  EXPECT_NE(errorOf([&] { NpzFile(path).read("x", DType::F32); })
                .find("array 'x' in data file '" + path +
                      "' is stored in Fortran order"),
            std::string::npos);
}

TEST(Npz, RejectsTruncatedArray) {
  float f[5] = {};
  EXPECT_EQ(errorOf([&] {
              decodeNpy(makeNpy("<f4", "(2, 3)", f, sizeof f), DType::F32,
                        "array 'x'");
            }),
            "array 'x' has 20 data bytes, but shape [2, 3] needs 24");
}

TEST(Npy, WriterRoundTripAndHeaderAlignment) {
  Tensor t = iota(DType::F32, {2, 3});
  std::string path = tempPath("pred.npy");
  writeNpy(path, t);
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 128u + t.byteSize()); // header padded to 64 bytes
  std::string header(bytes.begin() + 10, bytes.begin() + 128);
  EXPECT_EQ(header.find("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2, 3), }"),
            0u);
  EXPECT_EQ(header.back(), '\n');
  expectEqual(decodeNpy(bytes, DType::F32, "pred"), t);

  Tensor scalar(DType::I64, {}), vec = iota(DType::I64, {5});
  expectEqual(decodeNpy(encodeNpy(scalar), DType::I64, "s"), scalar);
  expectEqual(decodeNpy(encodeNpy(vec), DType::I64, "v"), vec);
}

TEST(Npy, BoolArrays) {
  // numpy's '|b1' (one byte per element) both ways; not interchangeable
  // with the other dtypes.
  uint8_t bits[4] = {1, 0, 0, 1};
  Tensor t = decodeNpy(makeNpy("|b1", "(2, 2)", bits, sizeof bits), DType::Bool,
                       "array 'm'");
  EXPECT_EQ(t.byteSize(), 4u);
  EXPECT_EQ(t.data<uint8_t>()[3], 1);
  expectEqual(decodeNpy(encodeNpy(t), DType::Bool, "m"), t);
  EXPECT_EQ(errorOf([&] {
              decodeNpy(makeNpy("|b1", "(2, 2)", bits, sizeof bits), DType::F32,
                        "array 'm'");
            }),
            "array 'm' has dtype '|b1'; expected float32 or float64 ('<f4', "
            "'<f8')");
}

TEST(Npy, WiderElementTypes) {
  // float64, float16, int16 and int8 are stored as they are, both ways.
  double d[3] = {0.1, -2.5, 1e300};
  Tensor t64 = decodeNpy(makeNpy("<f8", "(3,)", d, sizeof d), DType::F64, "d");
  EXPECT_EQ(std::memcmp(t64.data(), d, sizeof d), 0);
  expectEqual(decodeNpy(encodeNpy(t64), DType::F64, "d"), t64);
  float f[2] = {0.5f, -3.0f}; // float32 widens to a float64 input exactly
  Tensor w = decodeNpy(makeNpy("<f4", "(2,)", f, sizeof f), DType::F64, "w");
  EXPECT_EQ(w.data<double>()[1], -3.0);
  uint16_t h[2] = {0x3c00, 0xc000}; // 1.0, -2.0 in float16
  Tensor t16 = decodeNpy(makeNpy("<f2", "(2,)", h, sizeof h), DType::F16, "h");
  EXPECT_EQ(std::memcmp(t16.data(), h, sizeof h), 0);
  EXPECT_NE(
      std::string(reinterpret_cast<const char *>(encodeNpy(t16).data()), 60)
          .find("'<f2'"),
      std::string::npos);
  int8_t b[3] = {-128, 0, 127};
  int16_t s[2] = {-32768, 32767};
  expectEqual(decodeNpy(encodeNpy(decodeNpy(makeNpy("|i1", "(3,)", b, sizeof b),
                                            DType::I8, "b")),
                        DType::I8, "b"),
              decodeNpy(makeNpy("|i1", "(3,)", b, sizeof b), DType::I8, "b"));
  EXPECT_EQ(decodeNpy(makeNpy("<i2", "(2,)", s, sizeof s), DType::I16, "s")
                .data<int16_t>()[0],
            -32768);
  // No silent conversion between the narrow types.
  EXPECT_EQ(errorOf([&] {
              decodeNpy(makeNpy("<f4", "(2,)", f, sizeof f), DType::F16,
                        "array 'h'");
            }),
            "array 'h' has dtype '<f4'; expected f16 ('<f2')");
  EXPECT_EQ(errorOf([&] {
              decodeNpy(makeNpy("<i2", "(2,)", s, sizeof s), DType::I8,
                        "array 'b'");
            }),
            "array 'b' has dtype '<i2'; expected i8 ('|i1')");
}

TEST(Npy, BFloat16TravelsAsFloat32) {
  // Read from float32, rounded to nearest even (ties: 1 + 2^-8 down to 1,
  // 1 + 3 * 2^-8 up to 1 + 2^-6); NaN stays NaN; written back widened.
  float f[4] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -2.0f, NAN};
  Tensor t = decodeNpy(makeNpy("<f4", "(4,)", f, sizeof f), DType::BF16, "x");
  EXPECT_EQ(t.byteSize(), 8u);
  const uint16_t *bits = t.data<uint16_t>();
  EXPECT_EQ(bits[0], 0x3f80);
  EXPECT_EQ(bits[1], 0x3f82);
  EXPECT_EQ(bits[2], 0xc000);
  EXPECT_EQ(bits[3] & 0x7f80, 0x7f80);
  EXPECT_NE(bits[3] & 0x007f, 0);
  std::vector<uint8_t> out = encodeNpy(t);
  ASSERT_EQ(out.size(), 128u + 16u); // as float32
  EXPECT_NE(std::string(out.begin(), out.begin() + 128).find("'<f4'"),
            std::string::npos);
  float back[4];
  std::memcpy(back, out.data() + 128, sizeof back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], 1.0f + 0x1p-6f);
  EXPECT_EQ(back[2], -2.0f);
  EXPECT_TRUE(std::isnan(back[3]));
}

TEST(Npy, CheckedByteSize) {
  EXPECT_EQ(checkedByteSize({}, 4), 4);
  EXPECT_EQ(checkedByteSize({2, 3}, 8), 48);
  EXPECT_EQ(checkedByteSize({0, int64_t(1) << 62}, 4), 0);
  EXPECT_EQ(checkedByteSize({int64_t(1) << 61, 4}, 1), std::nullopt);
  EXPECT_EQ(checkedByteSize({int64_t(1) << 62}, 2), std::nullopt);
  EXPECT_EQ(checkedByteSize({-1}, 4), std::nullopt);
}

TEST(Npy, RejectsShapesWhoseSizeOverflows) {
  // (2^62 + 1) x 4 elements wrap around to 4 in 64 bits: 16 bytes of data
  // would pass a wrapping size check and then be indexed as 2^62 rows.
  float f[4] = {};
  std::string what = "array 'x' in data file 'big.npz'";
  EXPECT_EQ(errorOf([&] {
              decodeNpy(makeNpy("<f4", "(4611686018427387905, 4)", f, sizeof f),
                        DType::F32, what);
            }),
            what + " has shape [4611686018427387905, 4], whose size "
                   "overflows 64 bits");
  // Stored as int32 the size fits; converted to int64 it does not.
  EXPECT_NE(errorOf([&] {
              decodeNpy(makeNpy("<i4", "(1152921504606846976, 1)", f, 0),
                        DType::I64, what);
            }).find("whose size overflows 64 bits"),
            std::string::npos);
}

TEST(Npz, RejectsImpossibleDeflatedSize) {
  // A deflated entry that claims to expand far beyond deflate's 1032:1 is
  // reported, not allocated ("out of memory" before).
  std::string path = tempPath("bomb.npz");
  float f[4] = {};
  writeZip(path, {{"x.npy", makeNpy("<f4", "(4,)", f, sizeof f)}}, true);
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(io)),
                          std::istreambuf_iterator<char>());
  // The central directory entry's uncompressed size (offset 24).
  std::string sig = "PK\x01\x02";
  auto at = std::search(bytes.begin(), bytes.end(), sig.begin(), sig.end());
  ASSERT_NE(at, bytes.end());
  io.seekp((at - bytes.begin()) + 24);
  io.write("\x00\x00\x00\x7f", 4); // 2 GiB
  io.close();
  EXPECT_NE(errorOf([&] {
              NpzFile(path).read("x", DType::F32);
            }).find("entry 'x.npy': declared size 2130706432 is impossible"),
            std::string::npos);
}

TEST(Npz, RejectsDirectoriesAndFifos) {
  // A directory opened as a file used to read as a huge size ("out of
  // memory"); a FIFO would block.
  std::string dir = tempPath("dir.npz"), fifo = tempPath("fifo.npz");
  std::filesystem::remove_all(dir);
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
  EXPECT_EQ(errorOf([&] { NpzFile npz(dir); }),
            "data file '" + dir + "' is a directory; expected a .npz file");
  EXPECT_EQ(errorOf([&] { NpzFile npz(fifo); }),
            "data file '" + fifo +
                "' is not a regular file; expected a .npz "
                "file");
  rmdir(dir.c_str());
  unlink(fifo.c_str());
}
