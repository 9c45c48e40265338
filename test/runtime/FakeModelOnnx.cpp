//===- FakeModelOnnx.cpp - The fake model's ONNX graph --------------------===//

#include "FakeModelOnnx.h"

#include <vector>

namespace autodist::rt::test {

namespace {
void setShape(onnx::ValueInfoProto *v, const char *batch, int64_t features) {
  v->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT);
  auto *shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_param(batch);
  shape->add_dim()->set_dim_value(features);
}
} // namespace

onnx::ModelProto makeFakeLinearModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("autodist-runtime-tests");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *g = model.mutable_graph();
  g->set_name("fake_linear");

  std::vector<float> w(12);
  for (int i = 0; i < 12; ++i)
    w[i] = static_cast<float>(i % 5 - 2) / 8;
  onnx::TensorProto *wt = g->add_initializer();
  wt->set_name("W");
  wt->set_data_type(onnx::TensorProto::FLOAT);
  wt->add_dims(3);
  wt->add_dims(4);
  wt->set_raw_data(w.data(), w.size() * sizeof(float));
  onnx::TensorProto *bt = g->add_initializer();
  bt->set_name("b");
  bt->set_data_type(onnx::TensorProto::FLOAT);
  bt->add_dims(3);
  for (float v : {0.25f, -0.5f, 0.125f})
    bt->add_float_data(v);

  setShape(g->add_input(), "N", 4);
  g->mutable_input(0)->set_name("x");
  setShape(g->add_output(), "N", 3);
  g->mutable_output(0)->set_name("logits");
  onnx::NodeProto *gemm = g->add_node();
  gemm->set_op_type("Gemm");
  for (const char *in : {"x", "W", "b"})
    gemm->add_input(in);
  gemm->add_output("logits");
  onnx::AttributeProto *transB = gemm->add_attribute();
  transB->set_name("transB");
  transB->set_type(onnx::AttributeProto::INT);
  transB->set_i(1);
  return model;
}

} // namespace autodist::rt::test
