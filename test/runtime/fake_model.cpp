//===- fake_model.cpp - A hand-written stand-in for a compiled model ------===//
//
// Defines exactly the symbols docs/abi.md says `autodist-compile` emits, for a
// linear softmax-regression model (FakeModelOnnx.h): logits = x W^T + b,
// cross-entropy loss, and momentum with bias correction as the optimizer
//   m' = 0.9 m + 0.1 g,   p' = p - lr * m' / (1 - 0.9^step)
// so that it has optimizer state and depends on the `step` argument (step 1
// is a plain SGD step). The manifest asks for a cosine lr schedule with
// warmup. Like compiled code, it uses its own
// descriptor structs (not the runtime's headers), multiplies through
// `_mlir_ciface_autodist_rt_sgemm`, and averages the gradients and the loss
// over all ranks with `_mlir_ciface_autodist_rt_allreduce_f32` (op = mean).
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdint>
#include <vector>

namespace {
template <typename T, int R> struct Memref {
  T *allocated, *aligned;
  int64_t offset, sizes[R], strides[R];
};
struct Scalar {
  float *allocated, *aligned;
  int64_t offset;
};
using Mat = Memref<float, 2>;
using Vec = Memref<float, 1>;
} // namespace

extern "C" {
void _mlir_ciface_autodist_rt_allreduce_f32(Vec *buf, int32_t op);
void _mlir_ciface_autodist_rt_sgemm(Mat *a, Mat *b, Mat *c, int32_t transA,
                                    int32_t transB, float alpha, float beta);

// FAKE_MODEL_INFERENCE_ONLY builds what an inference-only compile emits: no
// train section, no autodist_train_step.
#ifdef FAKE_MODEL_INFERENCE_ONLY
#define FAKE_MODEL_TRAIN "null"
#else
#define FAKE_MODEL_TRAIN                                                       \
  R"({"loss": "cross_entropy", "optimizer": "momentum", "lr": 0.5,)"           \
  R"( "labels": {"name": "labels", "shape": [-1], "dtype": "i64"},)"           \
  R"( "state": [{"name": "W/momentum", "shape": [3, 4], "dtype": "f32"},)"     \
  R"(           {"name": "b/momentum", "shape": [3], "dtype": "f32"}],)"       \
  R"( "schedule": {"kind": "cosine", "warmup_steps": 3, "total_steps": 10,)"   \
  R"(              "min_lr": 0.05, "step_size": 0, "gamma": 0.1}})"
#endif
extern const char autodist_manifest[] = R"({
  "version": 1,
  "model": "fake_linear.onnx",
  "params": [{"name": "W", "shape": [3, 4], "dtype": "f32"},
             {"name": "b", "shape": [3], "dtype": "f32"}],
  "inputs": [{"name": "x", "shape": [-1, 4], "dtype": "f32"}],
  "outputs": [{"name": "logits", "shape": [-1, 3], "dtype": "f32"}],
  "train": )" FAKE_MODEL_TRAIN R"(,
  "strategy": {"builder": "allreduce"}
})";
extern const unsigned char autodist_model_onnx[] = {
#include "fake_model_onnx.inc"
};
extern const int64_t autodist_model_onnx_size = sizeof(autodist_model_onnx);
}

namespace {
constexpr int64_t kClasses = 3, kFeatures = 4, kMean = 1;
constexpr float kMomentum = 0.9f;

[[maybe_unused]] Mat matrix(float *p, int64_t rows, int64_t cols) {
  return {p, p, 0, {rows, cols}, {cols, 1}};
}
[[maybe_unused]] Vec vec(float *p, int64_t n) { return {p, p, 0, {n}, {1}}; }

float &at(Vec *v, int64_t i) {
  return v->aligned[v->offset + i * v->strides[0]];
}
float &at(Mat *m, int64_t i, int64_t j) {
  return m->aligned[m->offset + i * m->strides[0] + j * m->strides[1]];
}

/// out = x W^T + b.
void logits(Mat *w, Vec *b, Mat *x, Mat *out) {
  _mlir_ciface_autodist_rt_sgemm(x, w, out, 0, 1, 1.0f, 0.0f);
  for (int64_t i = 0; i < out->sizes[0]; ++i)
    for (int64_t j = 0; j < kClasses; ++j)
      at(out, i, j) += at(b, j);
}
} // namespace

extern "C" void autodist_forward(void **args) {
  logits(static_cast<Mat *>(args[0]), static_cast<Vec *>(args[1]),
         static_cast<Mat *>(args[2]), static_cast<Mat *>(args[3]));
}

#ifndef FAKE_MODEL_INFERENCE_ONLY
extern "C" void autodist_train_step(void **args) {
  auto *w = static_cast<Mat *>(args[0]);
  auto *b = static_cast<Vec *>(args[1]);
  auto *mW = static_cast<Mat *>(args[2]);
  auto *mB = static_cast<Vec *>(args[3]);
  auto *x = static_cast<Mat *>(args[4]);
  auto *labels = static_cast<Memref<int64_t, 1> *>(args[5]);
  auto *lr = static_cast<Scalar *>(args[6]);
  auto *step = static_cast<Scalar *>(args[7]);
  auto *loss = static_cast<Scalar *>(args[8]);
  auto *newW = static_cast<Mat *>(args[9]);
  auto *newB = static_cast<Vec *>(args[10]);
  auto *newMW = static_cast<Mat *>(args[11]);
  auto *newMB = static_cast<Vec *>(args[12]);
  const int64_t batch = x->sizes[0];

  // Softmax cross-entropy; dz = (softmax(z) - onehot(y)) / batch.
  std::vector<float> z(batch * kClasses);
  Mat zm = matrix(z.data(), batch, kClasses);
  logits(w, b, x, &zm);
  float localLoss = 0;
  for (int64_t i = 0; i < batch; ++i) {
    float *row = &z[i * kClasses];
    float max = row[0], sum = 0;
    for (int64_t j = 1; j < kClasses; ++j)
      max = std::fmax(max, row[j]);
    for (int64_t j = 0; j < kClasses; ++j)
      sum += std::exp(row[j] - max);
    int64_t y = labels->aligned[labels->offset + i * labels->strides[0]];
    localLoss += std::log(sum) - (row[y] - max);
    for (int64_t j = 0; j < kClasses; ++j)
      row[j] = (std::exp(row[j] - max) / sum - (j == y)) / batch;
  }

  // grads = [dW (3x4) | db (3)]: one all-reduce for both, as a fused bucket.
  std::vector<float> grads(kClasses * kFeatures + kClasses, 0.0f);
  Mat dW = matrix(grads.data(), kClasses, kFeatures);
  _mlir_ciface_autodist_rt_sgemm(&zm, x, &dW, 1, 0, 1.0f, 0.0f);
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t j = 0; j < kClasses; ++j)
      grads[kClasses * kFeatures + j] += z[i * kClasses + j];
  Vec g = vec(grads.data(), grads.size());
  _mlir_ciface_autodist_rt_allreduce_f32(&g, kMean);
  float meanLoss[1] = {localLoss / batch};
  Vec l = vec(meanLoss, 1);
  _mlir_ciface_autodist_rt_allreduce_f32(&l, kMean);

  const float rate = lr->aligned[lr->offset];
  const float correction = 1 - std::pow(kMomentum, step->aligned[step->offset]);
  auto update = [&](float p, float m, float g, float &newP, float &newM) {
    newM = kMomentum * m + (1 - kMomentum) * g;
    newP = p - rate * newM / correction;
  };
  for (int64_t i = 0; i < kClasses; ++i) {
    for (int64_t j = 0; j < kFeatures; ++j)
      update(at(w, i, j), at(mW, i, j), at(&dW, i, j), at(newW, i, j),
             at(newMW, i, j));
    update(at(b, i), at(mB, i), grads[kClasses * kFeatures + i], at(newB, i),
           at(newMB, i));
  }
  loss->aligned[loss->offset] = meanLoss[0];
}
#endif
