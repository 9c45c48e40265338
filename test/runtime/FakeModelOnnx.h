//===- FakeModelOnnx.h - The fake model's ONNX graph ------------*- C++ -*-===//
//
// The ONNX model behind fake_model.cpp: logits = Gemm(x, W, b, transB=1) with
// x [N, 4], W [3, 4] and b [3]. W is stored as raw_data and b as float_data,
// so both initializer encodings are exercised. Initial values are exact in
// binary (multiples of 1/8) so the Python reference reproduces them exactly:
//   W[i][j] = ((4*i + j) % 5 - 2) / 8,   b = {1/4, -1/2, 1/8}.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_TEST_RUNTIME_FAKEMODELONNX_H
#define AUTODIST_TEST_RUNTIME_FAKEMODELONNX_H

#include <onnx/onnx_pb.h>

namespace autodist::rt::test {

onnx::ModelProto makeFakeLinearModel();

} // namespace autodist::rt::test

#endif // AUTODIST_TEST_RUNTIME_FAKEMODELONNX_H
