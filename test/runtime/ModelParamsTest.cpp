//===- ModelParamsTest.cpp - Parameters in the embedded ONNX model --------===//

#include "autodist/runtime/ModelParams.h"

#include "FakeModelOnnx.h"
#include "TestUtil.h"

#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>

using namespace autodist::rt;
using namespace autodist::rt::test;

namespace {
struct Fixture : testing::Test {
  std::string bytes;
  std::vector<TensorSpec> specs = {{"W", {3, 4}, DType::F32},
                                   {"b", {3}, DType::F32}};
  void SetUp() override { makeFakeLinearModel().SerializeToString(&bytes); }
  OnnxBytes onnx() const {
    return {reinterpret_cast<const unsigned char *>(bytes.data()),
            static_cast<int64_t>(bytes.size())};
  }
};

/// Names of the files in `dir` that start with `prefix`.
std::vector<std::string> filesStartingWith(const std::string &dir,
                                           const std::string &prefix) {
  std::vector<std::string> out;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0)
        out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}
} // namespace

TEST_F(Fixture, LoadsRawAndFloatData) {
  std::vector<Tensor> params = loadInitialParams(onnx(), specs);
  ASSERT_EQ(params.size(), 2u);
  for (int i = 0; i < 12; ++i) // raw_data
    EXPECT_EQ(params[0].data<float>()[i], (i % 5 - 2) / 8.0f);
  EXPECT_EQ(params[1].data<float>()[0], 0.25f); // float_data
  EXPECT_EQ(params[1].data<float>()[1], -0.5f);
  EXPECT_EQ(params[1].data<float>()[2], 0.125f);
}

TEST_F(Fixture, MissingOrMisshapenParameter) {
  EXPECT_EQ(errorOf([&] {
              loadInitialParams(onnx(), {{"fc.weight", {3}, DType::F32}});
            }),
            "the embedded ONNX model has no initializer for parameter "
            "'fc.weight'");
  EXPECT_EQ(errorOf([&] {
              loadInitialParams(onnx(), {{"W", {4, 3}, DType::F32}});
            }),
            "parameter 'W' has shape [3, 4] in the embedded ONNX model but "
            "[4, 3] in the manifest");
  EXPECT_EQ(errorOf([&] {
              loadInitialParams(
                  {reinterpret_cast<const unsigned char *>("x"), 1}, specs);
            }),
            "the embedded ONNX model cannot be parsed");
}

TEST_F(Fixture, SaveReplacesInitializers) {
  std::vector<Tensor> params = loadInitialParams(onnx(), specs);
  for (Tensor &p : params)
    for (int64_t i = 0; i < p.numElements(); ++i)
      p.data<float>()[i] = 100.0f + i;
  std::string path = tempPath("trained.onnx");
  saveModelWithParams(onnx(), specs, params, path);

  onnx::ModelProto saved;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(saved.ParseFromIstream(&in));
  ASSERT_EQ(saved.graph().initializer_size(), 2);
  for (const onnx::TensorProto &t : saved.graph().initializer()) {
    EXPECT_EQ(t.float_data_size(), 0) << t.name();
    const Tensor &want = params[t.name() == "W" ? 0 : 1];
    ASSERT_EQ(t.raw_data().size(), want.byteSize());
    EXPECT_EQ(std::memcmp(t.raw_data().data(), want.data(), want.byteSize()),
              0);
  }
  EXPECT_EQ(saved.graph().node(0).op_type(), "Gemm"); // the rest is kept

  // Reloading the saved model yields the trained values.
  std::string savedBytes;
  saved.SerializeToString(&savedBytes);
  std::vector<Tensor> again = loadInitialParams(
      {reinterpret_cast<const unsigned char *>(savedBytes.data()),
       static_cast<int64_t>(savedBytes.size())},
      specs);
  EXPECT_EQ(again[1].data<float>()[2], 102.0f);
}

TEST_F(Fixture, FailedSaveLeavesNothingBehind) {
  std::vector<Tensor> params = loadInitialParams(onnx(), specs);
  std::string path = tempPath("no-such-dir/out.onnx");
  EXPECT_NE(errorOf([&] {
              saveModelWithParams(onnx(), specs, params, path);
            }).find("cannot write '" + path + "'"),
            std::string::npos);
  EXPECT_FALSE(fileExists(path));
  // And a successful save leaves no temporary next to the output.
  std::string ok = tempPath("out.onnx");
  saveModelWithParams(onnx(), specs, params, ok);
  std::string dir = ok.substr(0, ok.rfind('/'));
  EXPECT_EQ(filesStartingWith(dir, ok.substr(dir.size() + 1)),
            std::vector<std::string>{ok.substr(dir.size() + 1)});
}
