//===- MakeFakeModelOnnx.cpp - Embed the fake model's ONNX bytes ----------===//
//
// Usage: make-fake-model-onnx OUT.onnx OUT.inc
// Writes the model of FakeModelOnnx.h, and its bytes as a C initializer list
// that fake_model.cpp includes as `autodist_model_onnx`.
//
//===----------------------------------------------------------------------===//

#include "FakeModelOnnx.h"

#include <fstream>
#include <iostream>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " OUT.onnx OUT.inc\n";
    return 2;
  }
  std::string bytes;
  autodist::rt::test::makeFakeLinearModel().SerializeToString(&bytes);
  std::ofstream(argv[1], std::ios::binary) << bytes;
  std::ofstream inc(argv[2]);
  for (size_t i = 0; i < bytes.size(); ++i)
    inc << static_cast<int>(static_cast<unsigned char>(bytes[i]))
        << (i % 16 == 15 ? ",\n" : ", ");
  inc << "\n";
  return inc ? 0 : 1;
}
