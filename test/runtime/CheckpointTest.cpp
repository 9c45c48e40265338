//===- CheckpointTest.cpp - Checkpoint files and .npz writing -------------===//

#include "autodist/runtime/Checkpoint.h"
#include "autodist/runtime/Npz.h"
#include "autodist/runtime/NpzWriter.h"

#include "TestUtil.h"

#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sys/stat.h>

using namespace autodist::rt;
using namespace autodist::rt::test;

namespace {
Tensor iota(std::vector<int64_t> shape, float start) {
  Tensor t(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<float>()[i] = start + i * 0.5f;
  return t;
}

void expectEqual(const Tensor &a, const Tensor &b) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
}

std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

struct CheckpointFixture : testing::Test {
  std::string dir;
  std::vector<TensorSpec> params = {{"fc.weight", {2, 3}, DType::F32},
                                    {"fc.bias", {3}, DType::F32}};
  std::vector<TensorSpec> state = {{"fc.weight/m", {2, 3}, DType::F32},
                                   {"fc.bias/m", {3}, DType::F32},
                                   {"t", {}, DType::F32}};
  std::vector<Tensor> paramValues, stateValues;
  CheckpointInfo info{10, 2, 4, "mlp.onnx"};

  void SetUp() override {
    dir = tempPath("dir");
    mkdir(dir.c_str(), 0777);
    for (const std::string &f : filesIn(dir))
      unlink((dir + "/" + f).c_str());
    for (const TensorSpec &s : params)
      paramValues.push_back(iota(s.shape, paramValues.size() + 1.25f));
    for (const TensorSpec &s : state)
      stateValues.push_back(iota(s.shape, -1.0f * stateValues.size()));
  }
  void write() {
    Checkpoint::write(dir, info, params, paramValues, state, stateValues);
  }
  std::string readError(const std::vector<TensorSpec> &p,
                        const std::vector<TensorSpec> &s) {
    return errorOf([&] { Checkpoint::read(dir, p, s); });
  }
};
} // namespace

TEST_F(CheckpointFixture, RoundTrip) {
  write();
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"checkpoint.npz"});
  Checkpoint c = Checkpoint::read(dir, params, state);
  EXPECT_EQ(c.info.step, 10);
  EXPECT_EQ(c.info.worldSize, 2);
  EXPECT_EQ(c.info.batchSize, 4);
  EXPECT_EQ(c.info.model, "mlp.onnx");
  ASSERT_EQ(c.params.size(), 2u);
  ASSERT_EQ(c.state.size(), 3u);
  for (size_t i = 0; i < 2; ++i)
    expectEqual(c.params[i], paramValues[i]);
  for (size_t i = 0; i < 3; ++i)
    expectEqual(c.state[i], stateValues[i]);

  // A later checkpoint replaces it.
  info.step = 20;
  *paramValues[1].data<float>() = 42;
  write();
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"checkpoint.npz"});
  c = Checkpoint::read(dir, params, state);
  EXPECT_EQ(c.info.step, 20);
  EXPECT_EQ(*c.params[1].data<float>(), 42);
}

// The layout docs/abi.md promises: a .npz numpy can load.
TEST_F(CheckpointFixture, IsAnNpz) {
  write();
  NpzFile npz(Checkpoint::path(dir));
  EXPECT_EQ(npz.arrayNames(),
            (std::vector<std::string>{"params/fc.weight", "params/fc.bias",
                                      "state/fc.weight/m", "state/fc.bias/m",
                                      "state/t"}));
  expectEqual(npz.read("params/fc.bias", DType::F32), paramValues[1]);
  expectEqual(npz.read("state/t", DType::F32), stateValues[2]);
}

TEST_F(CheckpointFixture, NoStateAndNoParams) {
  Checkpoint::write(dir, info, {}, {}, {}, {});
  Checkpoint c = Checkpoint::read(dir, {}, {});
  EXPECT_TRUE(c.params.empty());
  EXPECT_TRUE(c.state.empty());
}

TEST_F(CheckpointFixture, ErrorFeedbackResidualsPerRank) {
  // info: 2 ranks; two buckets of 3 and 1 elements.
  Residuals r{{3, 1}, {{1.5f, -2, 0, 3}, {0, 0.25f, 7, -1}}};
  Checkpoint::write(dir, info, params, paramValues, state, stateValues, r);
  Checkpoint c = Checkpoint::read(dir, params, state);
  EXPECT_EQ(c.residuals.sizes, r.sizes);
  EXPECT_EQ(c.residuals.perRank, r.perRank);
  // Without residuals the checkpoint has none.
  Checkpoint::write(dir, info, params, paramValues, state, stateValues);
  c = Checkpoint::read(dir, params, state);
  EXPECT_TRUE(c.residuals.sizes.empty());
  EXPECT_TRUE(c.residuals.perRank.empty());
}

TEST_F(CheckpointFixture, Missing) {
  EXPECT_EQ(readError(params, state),
            "cannot resume: there is no checkpoint '" + dir +
                "/checkpoint.npz' (run without --resume to start from "
                "scratch)");
}

TEST_F(CheckpointFixture, Corrupt) {
  std::string path = Checkpoint::path(dir);
  std::ofstream(path) << "not a zip";
  EXPECT_EQ(readError(params, state)
                .rfind("checkpoint '" + path +
                           "' is not a valid .npz (zip) "
                           "archive",
                       0),
            0u);
  // Flip a byte of an array: the CRC catches it.
  write();
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  size_t at = bytes.find("\x93NUMPY", bytes.find("params/fc.bias"));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 64 + 4] ^= 1; // its second float, after the .npy header
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_NE(readError(params, state).find("CRC mismatch"), std::string::npos);
}

TEST_F(CheckpointFixture, ModelMismatch) {
  write();
  std::string label = "checkpoint '" + Checkpoint::path(dir) + "'";
  std::vector<TensorSpec> p = params;
  p[0].shape = {3, 2};
  EXPECT_EQ(readError(p, state), "parameter 'fc.weight' in " + label +
                                     " has shape [2, 3], but the model's is "
                                     "[3, 2]");
  p = params;
  p[1].name = "fc.b";
  EXPECT_EQ(readError(p, state),
            label + " has parameter 'fc.bias', which the model does not have");
  p.pop_back();
  EXPECT_EQ(readError(p, state),
            label + " has parameter 'fc.bias', which the model does not have");
  p = params;
  p.push_back({"extra", {1}, DType::F32});
  EXPECT_EQ(readError(p, state), label + " has no parameter 'extra' (the "
                                         "model's)");
  EXPECT_EQ(readError(params, {}), label + " has optimizer state "
                                           "'fc.weight/m', which the model "
                                           "does not have");
}

TEST_F(CheckpointFixture, Resumable) {
  write();
  Checkpoint c = Checkpoint::read(dir, params, state);
  std::string label = "checkpoint '" + Checkpoint::path(dir) + "'";
  c.checkResumable(dir, 2, 4, 10); // nothing left to do is fine
  c.checkResumable(dir, 2, 4, 20);
  EXPECT_EQ(errorOf([&] { c.checkResumable(dir, 1, 4, 20); }),
            label + " was written by a run of 2 ranks, but this run has 1; "
                    "resume with the same number of ranks");
  EXPECT_EQ(errorOf([&] { c.checkResumable(dir, 2, 8, 20); }),
            label + " was written with --batch-size=4, but this run has "
                    "--batch-size=8; resume with the same batch size");
  EXPECT_EQ(errorOf([&] { c.checkResumable(dir, 2, 4, 5); }),
            label + " is at step 10, past --steps=5 (the total step count, "
                    "including the steps before the checkpoint)");
  EXPECT_FALSE(c.info.seed); // a model without dropout records none
  c.checkResumable(dir, 2, 4, 20, 7);
}

TEST_F(CheckpointFixture, ResumableWithTheSameSeed) {
  info.seed = 7;
  write();
  Checkpoint c = Checkpoint::read(dir, params, state);
  ASSERT_TRUE(c.info.seed);
  EXPECT_EQ(*c.info.seed, 7u);
  c.checkResumable(dir, 2, 4, 20, 7);
  EXPECT_EQ(errorOf([&] { c.checkResumable(dir, 2, 4, 20, 8); }),
            "checkpoint '" + Checkpoint::path(dir) +
                "' was written with --seed=7, but this run has --seed=8; "
                "resume with the same seed");
}

TEST_F(CheckpointFixture, UnwritableLeavesTheOldOne) {
  write();
  std::string sub = dir + "/nodir";
  EXPECT_EQ(errorOf([&] {
              Checkpoint::write(sub, info, params, paramValues, state,
                                stateValues);
            }).rfind("cannot write '" + sub + "/checkpoint.npz': ", 0),
            0u);
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"checkpoint.npz"});
}

// NpzWriter alone: zip64 entries, any names, raw side files.
TEST(NpzWriter, ReadBackByZipArchive) {
  std::string path = tempPath("a.npz");
  Tensor scalar = iota({}, 3), big = iota({100, 7}, -2);
  Tensor ints(DType::I64, {3});
  ints.data<int64_t>()[2] = -5;
  {
    AtomicFileWriter out(path);
    NpzWriter npz(out);
    npz.addArray("s", scalar);
    npz.addFile("notes.txt", "hello");
    npz.addArray("dir/big", big);
    npz.addArray("i", ints);
    npz.finish();
    out.commit();
  }
  ZipArchive zip(path);
  EXPECT_EQ(zip.names(), (std::vector<std::string>{"s.npy", "notes.txt",
                                                   "dir/big.npy", "i.npy"}));
  std::vector<uint8_t> notes = zip.read("notes.txt");
  EXPECT_EQ(std::string(notes.begin(), notes.end()), "hello");
  NpzFile npz(path);
  expectEqual(npz.read("s", DType::F32), scalar);
  expectEqual(npz.read("dir/big", DType::F32), big);
  expectEqual(npz.read("i", DType::I64), ints);
}

TEST(NpzWriter, NothingWithoutCommit) {
  std::string path = tempPath("b.npz");
  unlink(path.c_str());
  {
    AtomicFileWriter out(path);
    NpzWriter(out).addFile("x", "y");
  } // destroyed without commit, as after an exception
  EXPECT_FALSE(fileExists(path));
  std::string dir = path.substr(0, path.rfind('/'));
  for (const std::string &f : filesIn(dir))
    EXPECT_EQ(f.find("b.npz.tmp-"), std::string::npos) << f;
}

TEST_F(CheckpointFixture, ResidualSizesThatOverflow) {
  // residual_sizes come from the file: their sum must not wrap around.
  Residuals r{{int64_t(1) << 62, int64_t(1) << 62}, {{1, 2}, {3, 4}}};
  Checkpoint::write(dir, info, params, paramValues, state, stateValues, r);
  EXPECT_EQ(readError(params, state),
            "checkpoint '" + Checkpoint::path(dir) +
                "' has residual sizes whose sum overflows 64 bits");
}
