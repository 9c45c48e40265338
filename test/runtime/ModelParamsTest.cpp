//===- ModelParamsTest.cpp - Parameters in the embedded ONNX model --------===//

#include "autodist/runtime/ModelParams.h"

#include <sys/stat.h>

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

namespace {
/// A model with external data in `dir`/data.bin: E [16, 16] (1 KiB, at
/// offset 8 after junk), b [3] (at offset 8 + 1024) and the inline s [2].
struct ExternalFixture : testing::Test {
  std::string dir, bytes;
  std::vector<TensorSpec> specs = {{"E", {16, 16}, DType::F32},
                                   {"b", {3}, DType::F32},
                                   {"s", {2}, DType::F32}};
  std::vector<float> e, b = {0.5f, -1.0f, 2.0f};

  void SetUp() override {
    dir = tempPath("dir");
    mkdir(dir.c_str(), 0777);
    for (int i = 0; i < 256; ++i)
      e.push_back(i / 4.0f);
    std::ofstream data(dir + "/data.bin", std::ios::binary);
    data.write("junkjunk", 8);
    data.write(reinterpret_cast<const char *>(e.data()), 1024);
    data.write(reinterpret_cast<const char *>(b.data()), 12);
    data.close();
    onnx::ModelProto model;
    onnx::GraphProto &g = *model.mutable_graph();
    addExternal(g, "E", {16, 16}, 8, 1024);
    addExternal(g, "b", {3}, 8 + 1024, 12);
    onnx::TensorProto &s = *g.add_initializer();
    s.set_name("s");
    s.set_data_type(onnx::TensorProto::FLOAT);
    s.add_dims(2);
    s.add_float_data(3.0f);
    s.add_float_data(4.0f);
    model.SerializeToString(&bytes);
  }
  static void addExternal(onnx::GraphProto &g, const std::string &name,
                          std::vector<int64_t> dims, int64_t offset,
                          int64_t length) {
    onnx::TensorProto &t = *g.add_initializer();
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t.add_dims(d);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] :
         {std::pair<std::string, std::string>{"location", "data.bin"},
          {"offset", std::to_string(offset)},
          {"length", std::to_string(length)}}) {
      auto *entry = t.add_external_data();
      entry->set_key(k);
      entry->set_value(v);
    }
  }
  static OnnxBytes onnxOf(const std::string &s) {
    return {reinterpret_cast<const unsigned char *>(s.data()),
            static_cast<int64_t>(s.size())};
  }
};
} // namespace

TEST_F(ExternalFixture, LoadsFromTheDirectory) {
  std::vector<Tensor> params = loadInitialParams(onnxOf(bytes), specs, dir);
  EXPECT_EQ(std::memcmp(params[0].data(), e.data(), 1024), 0);
  EXPECT_EQ(std::memcmp(params[1].data(), b.data(), 12), 0);
  EXPECT_EQ(params[2].data<float>()[1], 4.0f);
}

TEST_F(ExternalFixture, Errors) {
  EXPECT_EQ(errorOf([&] { loadInitialParams(onnxOf(bytes), specs, ""); }),
            "initializer 'E' uses ONNX external data, but the executable "
            "records no directory for it; give --external-data=DIR");
  EXPECT_EQ(errorOf([&] {
              loadInitialParams(onnxOf(bytes), specs, dir + "/nowhere");
            }),
            "initializer 'E': external data file '" + dir +
                "/nowhere/data.bin' does not exist (the model's external "
                "data is read from '" +
                dir +
                "/nowhere' at start; --external-data=DIR reads it from "
                "elsewhere)");
}

TEST_F(ExternalFixture, SaveWritesExternalData) {
  std::vector<Tensor> params = loadInitialParams(onnxOf(bytes), specs, dir);
  params[0].data<float>()[255] = -7.0f;
  std::string path = tempPath("saved.onnx");
  saveModelWithParams(onnxOf(bytes), specs, params, path, dir);
  ASSERT_TRUE(fileExists(path + ".data"));

  std::ifstream in(path, std::ios::binary);
  std::stringstream saved;
  saved << in.rdbuf();
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(saved.str()));
  const auto &inits = model.graph().initializer();
  // E (1 KiB) in the data file, b and s (small) inline.
  EXPECT_EQ(inits[0].data_location(), onnx::TensorProto::EXTERNAL);
  std::string savedDir = path.substr(0, path.rfind('/'));
  EXPECT_EQ(savedDir + "/" + inits[0].external_data(0).value(), path + ".data");
  EXPECT_NE(inits[1].data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(inits[1].raw_data().size(), 12u);
  EXPECT_NE(inits[2].data_location(), onnx::TensorProto::EXTERNAL);

  std::vector<Tensor> again =
      loadInitialParams(onnxOf(saved.str()), specs, savedDir);
  EXPECT_EQ(again[0].data<float>()[255], -7.0f);
  EXPECT_EQ(again[0].data<float>()[3], 0.75f);
  EXPECT_EQ(again[1].data<float>()[2], 2.0f);
  EXPECT_EQ(again[2].data<float>()[0], 3.0f);
}

// Initializers of 1 KiB or more are not parsed into the ModelProto but
// copied from the embedded bytes: raw_data and packed float_data.
TEST(ModelParams, LargeInitializers) {
  onnx::ModelProto model;
  std::vector<float> values(300);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = i * 0.5f;
  for (const char *name : {"raw", "floats"}) {
    onnx::TensorProto &t = *model.mutable_graph()->add_initializer();
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(300);
    if (std::string(name) == "raw")
      t.set_raw_data(values.data(), 1200);
    else
      for (float v : values)
        t.add_float_data(-v);
  }
  std::string bytes;
  model.SerializeToString(&bytes);
  OnnxBytes onnx{reinterpret_cast<const unsigned char *>(bytes.data()),
                 static_cast<int64_t>(bytes.size())};
  std::vector<TensorSpec> specs = {{"raw", {300}, DType::F32},
                                   {"floats", {300}, DType::F32}};
  std::vector<Tensor> params = loadInitialParams(onnx, specs);
  EXPECT_EQ(params[0].data<float>()[299], 149.5f);
  EXPECT_EQ(params[1].data<float>()[3], -1.5f);

  // --save of only the first (as if the second were no parameter): the
  // second keeps its values.
  std::string path = tempPath("saved.onnx");
  params[0].data<float>()[0] = 9.0f;
  params.pop_back();
  saveModelWithParams(onnx, {specs[0]}, params, path);
  onnx::ModelProto saved;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(saved.ParseFromIstream(&in));
  std::string again;
  saved.SerializeToString(&again);
  std::vector<Tensor> reloaded =
      loadInitialParams({reinterpret_cast<const unsigned char *>(again.data()),
                         static_cast<int64_t>(again.size())},
                        specs);
  EXPECT_EQ(reloaded[0].data<float>()[0], 9.0f);
  EXPECT_EQ(reloaded[0].data<float>()[299], 149.5f);
  EXPECT_EQ(reloaded[1].data<float>()[3], -1.5f);

  // A short one: the size error.
  model.mutable_graph()->mutable_initializer(0)->set_raw_data(values.data(),
                                                              1196);
  model.SerializeToString(&bytes);
  onnx = {reinterpret_cast<const unsigned char *>(bytes.data()),
          static_cast<int64_t>(bytes.size())};
  EXPECT_EQ(errorOf([&] { loadInitialParams(onnx, specs); }),
            "parameter 'raw' holds 299 values in the embedded ONNX model, "
            "expected 300");
}
