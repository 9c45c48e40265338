//===- Trainer.cpp - The training executable's main loop ------------------===//

#include "autodist/runtime/Trainer.h"
#include "autodist/runtime/BatchPlan.h"
#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Dataset.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/Npy.h"
#include "autodist/runtime/Options.h"
#include "autodist/runtime/Sgemm.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <unistd.h>

namespace autodist::rt {

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Runs `phase` on every rank, then agrees on the outcome: the lowest failing
/// rank prints its error and every rank gets the worst exit code (0: none).
/// Phases must not communicate, so a rank that fails early cannot leave the
/// others waiting in a collective.
int collectively(const std::function<void()> &phase) {
  int code = 0;
  std::string message;
  try {
    phase();
  } catch (const Error &e) {
    code = e.exitCode();
    message = e.what();
  } catch (const std::bad_alloc &) {
    code = ExitData;
    message = "out of memory";
  } catch (const std::exception &e) {
    code = ExitData;
    message = e.what();
  }
  int rank = comm::rank();
  if (comm::allreduceMin(code ? rank : comm::size()) == rank)
    std::fprintf(stderr, "error: %s\n", message.c_str());
  return comm::allreduceMax(code);
}

/// Fails now, before training, if `path` could not be created later.
void checkWritable(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (access(dir.empty() ? "/" : dir.c_str(), W_OK) != 0)
    throw Error("cannot write " + inQuotes(path) + ": " + std::strerror(errno));
}

/// JSON has no NaN/Infinity; a diverged loss is logged as null.
std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

class Trainer {
public:
  Trainer(const ModelEntryPoints &model, int argc, char **argv)
      : model_(model), argc_(argc), argv_(argv), rank_(comm::rank()),
        size_(comm::size()) {}

  int run() {
    configureBlasThreads(comm::localSize()); // collective: before any phase
    if (int code = collectively([&] { setup(); }))
      return code;
    if (opts_.help) {
      if (rank_ == 0)
        std::fputs(helpText(argv_[0]).c_str(), stdout);
      return 0;
    }
    if (int code = collectively([&] { openLog(); }))
      return code;
    train();
    return collectively([&] { finish(); });
  }

private:
  /// Validates everything, on every rank, before any output file exists.
  void setup();
  void openLog();
  void train();
  /// Rank 0: close the log, --save, --eval/--predict.
  void finish();
  void evaluate();
  void checkLabelRange(Dataset &ds) const;
  void checkBatchDims() const;

  const ModelEntryPoints &model_;
  int argc_;
  char **argv_;
  int rank_, size_;
  Options opts_;
  Manifest manifest_;
  TensorSpec labelsSpec_;
  std::vector<Tensor> params_, nextParams_; // double buffer: outputs never
                                            // alias inputs
  double lr_ = 0; // logged as given; the model gets it as f32
  std::optional<Dataset> trainSet_, evalSet_;
  std::optional<BatchPlan> plan_;
  FILE *log_ = nullptr;
};

void Trainer::setup() {
  opts_ = parseOptions(argc_, argv_);
  if (opts_.help)
    return;
  manifest_ = Manifest::parse(model_.manifest);
  labelsSpec_ = manifest_.train ? manifest_.train->labels
                                : TensorSpec{"labels", {-1}, DType::I64};
  if (opts_.steps > 0 && (!manifest_.train || !model_.trainStep))
    throw Error("this model was compiled for inference only; use --steps=0 "
                "with --eval");
  if (!opts_.eval.empty() && !model_.forward)
    throw Error("this model has no inference entry point (autodist_forward)");
  checkBatchDims();

  params_ = loadInitialParams(model_.onnx, manifest_.params);
  for (const Tensor &p : params_)
    nextParams_.emplace_back(p.dtype(), p.shape());
  lr_ = opts_.lr ? *opts_.lr : manifest_.train ? manifest_.train->lr : 0.0;

  if (!opts_.data.empty()) {
    trainSet_.emplace(opts_.data, manifest_.inputs, &labelsSpec_,
                      /*labelsRequired=*/opts_.steps > 0);
    checkLabelRange(*trainSet_);
    int64_t global = opts_.batchSize * size_;
    if (opts_.steps > 0 && trainSet_->numSamples() < global)
      throw Error("data file " + inQuotes(opts_.data) + " has " +
                  std::to_string(trainSet_->numSamples()) +
                  " samples, fewer than one global batch of " +
                  std::to_string(global) +
                  " (--batch-size=" + std::to_string(opts_.batchSize) + " x " +
                  std::to_string(size_) + " ranks)");
    plan_.emplace(trainSet_->numSamples(), opts_.batchSize, size_);
  }

  if (rank_ != 0)
    return; // outputs and evaluation are rank 0's
  if (!opts_.eval.empty()) {
    evalSet_.emplace(opts_.eval, manifest_.inputs, &labelsSpec_, false);
    checkLabelRange(*evalSet_);
    bool needsRows = !opts_.predict.empty() || evalSet_->labels();
    if (needsRows &&
        (manifest_.outputs.empty() || !manifest_.outputs[0].isBatched()))
      throw Error("--eval/--predict need a model whose first output has a "
                  "batch dimension");
  }
  for (const std::string *out : {&opts_.log, &opts_.save, &opts_.predict})
    if (!out->empty())
      checkWritable(*out);
}

/// A fixed (non -1) leading dimension pins the batch size.
void Trainer::checkBatchDims() const {
  std::vector<const TensorSpec *> specs;
  for (const TensorSpec &s : manifest_.inputs)
    specs.push_back(&s);
  specs.push_back(&labelsSpec_);
  for (const TensorSpec *s : specs)
    if (!s->isBatched() && s->shape[0] != opts_.batchSize)
      throw Error("model input " + inQuotes(s->name) +
                  " has a fixed batch size of " + std::to_string(s->shape[0]) +
                  "; use --batch-size=" + std::to_string(s->shape[0]));
}

/// Class labels index the last dimension of a classifier's output; an
/// out-of-range label would make the compiled loss read out of bounds.
void Trainer::checkLabelRange(Dataset &ds) const {
  const Tensor *labels = ds.labels();
  if (!labels || manifest_.outputs.empty() ||
      manifest_.outputs[0].shape.size() != 2 ||
      (manifest_.train && manifest_.train->loss != "cross_entropy"))
    return;
  int64_t classes = manifest_.outputs[0].shape[1];
  for (int64_t i = 0; i < labels->numElements(); ++i) {
    int64_t v = labels->data<int64_t>()[i];
    if (v < 0 || v >= classes)
      throw Error("array " + inQuotes(labelsSpec_.name) + " in data file " +
                  inQuotes(ds.path()) + " has label " + std::to_string(v) +
                  " at sample " + std::to_string(i) + ", outside [0, " +
                  std::to_string(classes) + ")");
  }
}

void Trainer::openLog() {
  if (rank_ != 0 || opts_.log.empty())
    return;
  log_ = std::fopen(opts_.log.c_str(), "w");
  if (!log_)
    throw Error("cannot write " + inQuotes(opts_.log) + ": " +
                std::strerror(errno));
}

void Trainer::train() {
  if (opts_.steps == 0)
    return;
  const int64_t batch = opts_.batchSize, global = batch * size_;
  Tensor lr(DType::F32, {}), loss(DType::F32, {});
  *lr.data<float>() = static_cast<float>(lr_);
  Tensor &labels = *trainSet_->labels();
  const bool progress = rank_ == 0 && isatty(STDERR_FILENO);

  Clock::time_point start = Clock::now(), lastDraw;
  for (int64_t step = 0; step < opts_.steps; ++step) {
    Clock::time_point stepStart = Clock::now();
    int64_t first = plan_->firstSample(step, rank_);
    CallArgs args; // per docs/abi.md: params, inputs, labels, lr, loss, new
    for (Tensor &p : params_)
      args.add(p);
    for (size_t i = 0; i < manifest_.inputs.size(); ++i)
      args.add(trainSet_->inputs()[i].rowData(first),
               manifest_.inputs[i].withBatch(batch));
    args.add(labels.rowData(first), labelsSpec_.withBatch(batch));
    args.add(lr);
    args.add(loss);
    for (Tensor &p : nextParams_)
      args.add(p);
    model_.trainStep(args.get());
    std::swap(params_, nextParams_);

    if (rank_ != 0)
      continue;
    double stepTime = secondsSince(stepStart), elapsed = secondsSince(start);
    double value = *loss.data<float>(), rate = global / stepTime;
    if (log_) {
      std::fprintf(log_,
                   "{\"step\": %lld, \"loss\": %s, \"samples_per_s\": %.6g, "
                   "\"lr\": %.9g, \"time_s\": %.6f}\n",
                   static_cast<long long>(step + 1), jsonNumber(value).c_str(),
                   rate, lr_, elapsed);
      std::fflush(log_);
    }
    // Redraw at most 10 times a second, and always for the last step.
    if (progress &&
        (step + 1 == opts_.steps || step == 0 ||
         Clock::now() - lastDraw > std::chrono::milliseconds(100))) {
      std::fprintf(stderr, "\rstep %lld/%lld  loss %.4f  %.0f samples/s   ",
                   static_cast<long long>(step + 1),
                   static_cast<long long>(opts_.steps), value, rate);
      lastDraw = Clock::now();
    }
  }
  if (rank_ != 0)
    return;
  if (progress)
    std::fputc('\n', stderr);
  std::printf("trained %lld steps on %d ranks, final loss %.6g, %.0f "
              "samples/s\n",
              static_cast<long long>(opts_.steps), size_, *loss.data<float>(),
              opts_.steps * global / secondsSince(start));
  std::fflush(stdout);
}

void Trainer::finish() {
  if (rank_ != 0)
    return;
  if (log_) {
    bool ok = !std::ferror(log_);
    ok &= std::fclose(log_) == 0;
    log_ = nullptr;
    if (!ok)
      throw Error("cannot write " + inQuotes(opts_.log) + ": write failed");
  }
  if (!opts_.save.empty())
    saveModelWithParams(model_.onnx, manifest_.params, params_, opts_.save);
  if (evalSet_)
    evaluate();
}

/// The predicted class of row `row` of output 0: its argmax, or the value
/// itself for an integer output with one element per sample.
int64_t predictedClass(const Tensor &out, int64_t row, int64_t rowSize) {
  if (out.dtype() == DType::I64) {
    const int64_t *v = out.data<int64_t>() + row * rowSize;
    return rowSize == 1 ? v[0] : std::max_element(v, v + rowSize) - v;
  }
  const float *v = out.data<float>() + row * rowSize;
  return std::max_element(v, v + rowSize) - v;
}

void Trainer::evaluate() {
  Dataset &ds = *evalSet_;
  const int64_t n = ds.numSamples(), batch = opts_.batchSize;
  const std::vector<TensorSpec> &outs = manifest_.outputs;
  const bool scoreOrPredict = ds.labels() || !opts_.predict.empty();
  // Output 0 goes straight into one tensor over all samples; the others into
  // scratch buffers sized for a full chunk.
  std::optional<Tensor> all;
  if (scoreOrPredict)
    all.emplace(outs[0].dtype, outs[0].withBatch(n));
  std::vector<Tensor> scratch;
  for (const TensorSpec &o : outs)
    scratch.emplace_back(o.dtype, o.withBatch(batch));

  for (int64_t first = 0; first < n; first += batch) {
    int64_t rows = std::min(batch, n - first); // the last chunk may be short
    CallArgs args;
    for (Tensor &p : params_)
      args.add(p);
    for (size_t i = 0; i < manifest_.inputs.size(); ++i)
      args.add(ds.inputs()[i].rowData(first),
               manifest_.inputs[i].withBatch(rows));
    for (size_t j = 0; j < outs.size(); ++j)
      args.add(j == 0 && all ? all->rowData(first) : scratch[j].data(),
               outs[j].withBatch(rows));
    model_.forward(args.get());
  }

  if (const Tensor *labels = ds.labels()) {
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i)
      correct += predictedClass(*all, i, all->rowElements()) ==
                 labels->data<int64_t>()[i];
    std::printf("test accuracy: %.4f (%lld/%lld)\n",
                n ? double(correct) / n : 0.0, static_cast<long long>(correct),
                static_cast<long long>(n));
  } else {
    std::printf("evaluated %lld samples (%s has no %s array to score)\n",
                static_cast<long long>(n), inQuotes(opts_.eval).c_str(),
                inQuotes(labelsSpec_.name).c_str());
  }
  std::fflush(stdout);
  if (!opts_.predict.empty())
    writeNpy(opts_.predict, *all);
}
} // namespace

int runMain(int argc, char **argv, const ModelEntryPoints &model) {
  comm::init(&argc, &argv);
  int code = Trainer(model, argc, argv).run();
  comm::finalize();
  return code;
}

} // namespace autodist::rt
