//===- Trainer.cpp - The training executable's main loop ------------------===//

#include "autodist/runtime/Trainer.h"
#include "autodist/runtime/Affinity.h"
#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/BatchPlan.h"
#include "autodist/runtime/Checkpoint.h"
#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Communicator.h"
#include "autodist/runtime/Compress.h"
#include "autodist/runtime/Dataset.h"
#include "autodist/runtime/Device.h"
#include "autodist/runtime/DirectoryLock.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Inference.h"
#include "autodist/runtime/InputBatch.h"
#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/NonFinite.h"
#include "autodist/runtime/Npy.h"
#include "autodist/runtime/NpzWriter.h"
#include "autodist/runtime/Options.h"
#include "autodist/runtime/OutputPath.h"
#include "autodist/runtime/Placement.h"
#include "autodist/runtime/Sgemm.h"
#include "autodist/runtime/StepArena.h"
#include "autodist/runtime/Trace.h"
#include "autodist/runtime/Traffic.h"

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
#include <sys/stat.h>
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
/// Runs `phase`; what it throws becomes an exit code (0: nothing) and
/// `message`.
int runCatching(const std::function<void()> &phase, std::string &message) {
  try {
    phase();
  } catch (const Error &e) {
    message = e.what();
    return e.exitCode();
  } catch (const std::bad_alloc &) {
    message = "out of memory";
    return ExitData;
  } catch (const std::exception &e) {
    message = e.what();
    return ExitData;
  }
  return 0;
}

int collectively(const std::function<void()> &phase) {
  // Rank 0 may have worked alone for long (a checkpoint, --eval, inference):
  // the agreement waits for it without --comm-timeout.
  comm::WithoutTimeout unbounded;
  std::string message;
  int code = runCatching(phase, message);
  int rank = comm::rank();
  if (comm::allreduceMin(code ? rank : comm::size()) == rank)
    std::fprintf(stderr, "error: %s\n", message.c_str());
  return comm::allreduceMax(code);
}

/// Fails now, before training, if checkpoint directory `dir` could not be
/// written (or created) later, or its checkpoint file is not a regular file.
void checkCheckpointDir(const std::string &dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw Error("--checkpoint=" + dir + ": " + inQuotes(dir) +
                  " is not a directory");
    if (access(dir.c_str(), W_OK) != 0)
      throw Error("cannot write checkpoints to " + inQuotes(dir) + ": " +
                  std::strerror(errno));
    checkOutputPath(Checkpoint::path(dir));
    return;
  }
  checkOutputPath(dir); // its parent, where it will be created
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
    // The device before anything is allocated (every tensor is its memory);
    // --help needs none.
    bool help = std::any_of(argv_ + 1, argv_ + argc_, [](const char *a) {
      return std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0;
    });
    if (!help)
      if (int code = collectively([&] { device().select(comm::localRank()); }))
        return code;
    if (int code = collectively([&] { setup(); }))
      return code;
    if (opts_.help) {
      if (rank_ == 0)
        std::fputs(helpText(argv_[0]).c_str(), stdout);
      return 0;
    }
    // From here on a rank that stops cannot hang the others forever.
    comm::setTimeout(opts_.commTimeout);
    if (int code = collectively([&] { pinning_ = pinThreads(opts_.pin); }))
      return code;
    if (opts_.pinGiven)
      reportPinning();
    if (opts_.inferenceOnly())
      return collectively([&] { infer(); });
    if (opts_.resume)
      shareCheckpoint();
    if (int code = collectively([&] { openOutputs(); }))
      return code;
    // The ranks have just left the same collective: a common time origin.
    if (!opts_.trace.empty())
      trace::start(opts_.trace, rank_, pinning_.describe());
    if (int code = trainOrAbort())
      return code;
    return collectively([&] { finish(); });
  }

private:
  /// train(), and when it throws on a rank (a write of the log, a read of
  /// the data failing mid-run), that rank's error line and the end of the
  /// job: the other ranks may already wait in the next step's collectives.
  int trainOrAbort() {
    int trained = 0;
    std::string message;
    int code = runCatching([&] { trained = train(); }, message);
    if (code == 0)
      return trained;
    log_.reset(); // removes its temporary; MPI_Abort runs no destructors
    std::fprintf(stderr, "error: %s\n", message.c_str());
    std::fflush(stderr);
    if (size_ > 1)
      comm::abort(code);
    return code;
  }
  /// Validates everything, on every rank, before any output file exists.
  void setup();
  /// Collective: rank 0 prints every rank's pinning_, one line each.
  void reportPinning();
  /// setup() for --inputs/--outputs: rank 0 loads and checks everything.
  void setupInference();
  /// Rank 0: --inputs/--outputs.
  void infer();
  /// Rank 0: locks an existing checkpoint directory and refuses to replace
  /// its checkpoint without --resume or --overwrite.
  void guardCheckpointDir();
  /// Takes DIR's lock (rank 0), then removes what a killed run left there.
  void lockCheckpointDir();
  /// Rank 0: reads --checkpoint for --resume into params_, state_, step_.
  void loadCheckpoint();
  /// Collective: every rank gets rank 0's step_, params_ and shared state,
  /// and its own per-rank state.
  void shareCheckpoint();
  /// Every input and output file given (rank 0's trace file), by flag.
  std::vector<RunFile> runFiles() const;
  /// Rank 0: the log file and the checkpoint directory.
  void openOutputs();
  /// Returns non-zero (an exit code) if writing a checkpoint failed.
  int train();
  /// Collective: rank 0 gets the parts of the optimizer state that only
  /// their parameter servers hold (manifest `owners`).
  void gatherOwnedState();
  /// Collective: rank 0 gets every rank's per-rank state (manifest
  /// `per_rank`: the compressors' error feedback, weight prediction's local
  /// gradients) into residuals_, in the checkpoint's form.
  void gatherPerRankState();
  /// Rank 0: checks that the per-rank state read from a checkpoint fits
  /// this program's (names the first entry that does not).
  void checkPerRankState(const Residuals &r) const;
  /// Collective: completes every in-flight all-reduce (as the next step
  /// would) and clears its handle, so that the buffers hold final values.
  void drainInflight();
  /// The state every rank shares (not per rank) followed by in-flight
  /// state, as checkpoints hold them under state/.
  std::vector<TensorSpec> checkpointStateSpecs() const;
  /// Rank 0: writes the checkpoint after `step` steps.
  void saveCheckpoint(int64_t step);
  /// Rank 0: close the log, --save, --eval/--predict.
  void finish();
  void evaluate();
  void checkLabelRange(Dataset &ds) const;
  void checkIndexRanges(Dataset &ds) const;
  void checkBatchDims() const;
  /// Where the parameters' ONNX external data files are: --external-data,
  /// else the directory the compiler recorded.
  const std::string &externalDataDir() const {
    return opts_.externalData.empty() ? manifest_.externalDataDir
                                      : opts_.externalData;
  }
  /// Dropout's seed (--seed, else the manifest's), when the train step takes
  /// one.
  std::optional<uint64_t> seed() const {
    if (!manifest_.train || !manifest_.train->seed)
      return std::nullopt;
    return opts_.seed ? *opts_.seed : *manifest_.train->seed;
  }

  const ModelEntryPoints &model_;
  int argc_;
  char **argv_;
  int rank_, size_;
  Options opts_;
  Pinning pinning_;
  Manifest manifest_;
  TensorSpec labelsSpec_;  // train.labels, or the default for --eval
  bool hasLabels_ = false; // whether the train step takes labels
  std::vector<TensorSpec> stateSpecs_;
  // Double buffers: outputs never alias inputs.
  std::vector<Tensor> params_, nextParams_, state_, nextState_;
  // In-flight state (staleness): buffers kept in place across steps, each
  // with the handle of the all-reduce running in it (0: none).
  std::vector<InflightSpec> inflightSpecs_;
  std::vector<Tensor> inflight_, handles_, nextHandles_;
  Residuals residuals_; // rank 0: every rank's per-rank state, checkpointed
  double baseLr_ = 0;   // --lr or the manifest's; the schedule scales it
  int64_t step_ = 0;    // steps done (before this run: the checkpoint's)
  std::optional<Dataset> trainSet_, evalSet_, inferSet_;
  int64_t inferChunk_ = 0; // samples per forward call for --inputs
  std::optional<BatchPlan> plan_;
  // --log: streamed to a temporary beside it, renamed over it when the run
  // succeeds, so a failed run leaves an existing log as it was.
  std::optional<AtomicFileWriter> log_;
  std::optional<DirectoryLock> checkpointLock_; // rank 0, with --checkpoint
};

void Trainer::reportPinning() {
  // In rank order: rank 0 prints its own line, then receives each other
  // rank's into the same buffer (fixed-size messages).
  char line[256] = {};
  std::snprintf(line, sizeof line, "rank %d: %s", rank_,
                pinning_.describe().c_str());
  for (int r = 0; r < size_; ++r) {
    comm::sendTo(line, sizeof line, r, 0);
    if (rank_ == 0)
      std::printf("%s\n", line);
  }
  std::fflush(stdout);
}

void Trainer::setup() {
  opts_ = parseOptions(argc_, argv_);
  if (opts_.help)
    return;
  if (rank_ == 0) // the rank with all the files
    checkDistinctFiles(runFiles());
  manifest_ = Manifest::parse(model_.manifest);
  device().allowTF32(manifest_.tf32);
  if (opts_.inferenceOnly())
    return setupInference();
  const TrainSpec *train = manifest_.train ? &*manifest_.train : nullptr;
  hasLabels_ = train && train->labels;
  labelsSpec_ =
      hasLabels_ ? *train->labels : TensorSpec{"labels", {-1}, DType::I64};
  if (train)
    stateSpecs_ = train->state;
  if (opts_.steps > 0 && (!manifest_.train || !model_.trainStep))
    throw Error("this model was compiled for inference only; use --steps=0 "
                "with --eval");
  if (!opts_.eval.empty() && !model_.forward)
    throw Error("this model has no inference entry point (autodist_forward)");
  checkBatchDims();
  setPlacement(Placement(manifest_.cluster, size_));
  for (const TensorSpec &s : stateSpecs_)
    for (const OwnedPiece &piece : s.owners)
      (void)placement().rankOfDevice(piece.device); // throws when invalid

  params_ = loadInitialParams(model_.onnx, manifest_.params, externalDataDir());
  for (const Tensor &p : params_)
    nextParams_.emplace_back(p.dtype(), p.shape());
  for (const TensorSpec &s : stateSpecs_) { // zero, but Q and constants
    state_.emplace_back(s.dtype, s.shape);
    nextState_.emplace_back(s.dtype, s.shape);
    if (s.powerSGDSeed)
      compress::initPowerSGDQ(state_.back().data<float>(),
                              state_.back().numElements(), *s.powerSGDSeed);
    if (s.constantInit)
      std::fill_n(state_.back().data<float>(), state_.back().numElements(),
                  *s.constantInit);
    if (s.paramInit) {
      const Tensor &p = params_[*s.paramInit];
      std::copy_n(p.data<float>(), p.numElements(),
                  state_.back().data<float>());
    }
  }
  if (train)
    inflightSpecs_ = train->inflight;
  for (const InflightSpec &f : inflightSpecs_) { // nothing in flight yet
    inflight_.emplace_back(DType::F32, f.buffer.shape);
    handles_.emplace_back(DType::I64, std::vector<int64_t>{});
    nextHandles_.emplace_back(DType::I64, std::vector<int64_t>{});
  }
  if (!inflightSpecs_.empty() && opts_.onNonFinite == NonFinitePolicy::Skip)
    throw Error("--on-nonfinite=skip cannot undo a step of this model: its "
                "stale gradients (--staleness) are in flight across steps; "
                "use --on-nonfinite=stop or continue",
                ExitUsage);
  baseLr_ = opts_.lr ? *opts_.lr : train ? train->lr : 0.0;
  if (rank_ == 0 && !opts_.checkpoint.empty())
    guardCheckpointDir();
  if (opts_.resume && rank_ == 0)
    loadCheckpoint();

  if (!opts_.data.empty()) {
    // Each rank reads only its batches (stored arrays; compressed ones are
    // loaded whole).
    trainSet_.emplace(
        opts_.data, manifest_.inputs, hasLabels_ ? &labelsSpec_ : nullptr,
        /*labelsRequired=*/opts_.steps > 0, Dataset::Residency::OnDemand);
    checkLabelRange(*trainSet_);
    checkIndexRanges(*trainSet_);
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

  if (!opts_.trace.empty()) // every rank writes its own
    checkOutputPath(trace::rankPath(opts_.trace, rank_));
  if (rank_ != 0)
    return; // outputs and evaluation are rank 0's
  if (!opts_.eval.empty()) {
    // Accuracy needs class indices; other labels are not scored.
    bool classLabels =
        labelsSpec_.dtype == DType::I64 && labelsSpec_.shape.size() == 1;
    evalSet_.emplace(opts_.eval, manifest_.inputs,
                     classLabels ? &labelsSpec_ : nullptr, false);
    checkLabelRange(*evalSet_);
    checkIndexRanges(*evalSet_);
    bool needsRows = !opts_.predict.empty() || evalSet_->labels();
    if (needsRows &&
        (manifest_.outputs.empty() || !manifest_.outputs[0].isBatched()))
      throw Error("--eval/--predict need a model whose first output has a "
                  "batch dimension");
  }
  for (const std::string *out : {&opts_.log, &opts_.save, &opts_.predict})
    if (!out->empty())
      checkOutputPath(*out);
  if (!opts_.checkpoint.empty())
    checkCheckpointDir(opts_.checkpoint);
}

std::vector<RunFile> Trainer::runFiles() const {
  // The checkpoint is read (--resume) and rewritten: only an output here.
  std::vector<RunFile> all = {
      {"--data", opts_.data, false},     {"--eval", opts_.eval, false},
      {"--inputs", opts_.inputs, false}, {"--log", opts_.log, true},
      {"--save", opts_.save, true},      {"--predict", opts_.predict, true},
      {"--outputs", opts_.outputs, true}};
  if (!opts_.trace.empty())
    all.push_back({"--trace", trace::rankPath(opts_.trace, 0), true});
  if (!opts_.checkpoint.empty())
    all.push_back({"--checkpoint", Checkpoint::path(opts_.checkpoint), true});
  std::vector<RunFile> given;
  for (RunFile &f : all)
    if (!f.path.empty())
      given.push_back(std::move(f));
  return given;
}

/// Inference runs on rank 0 only (like --eval); the other ranks only agree
/// on the outcome.
void Trainer::setupInference() {
  if (!model_.forward)
    throw Error("this model has no inference entry point (autodist_forward)");
  if (rank_ != 0)
    return;
  params_ = loadInitialParams(model_.onnx, manifest_.params, externalDataDir());
  inferSet_.emplace(opts_.inputs, manifest_.inputs, nullptr, false);
  checkIndexRanges(*inferSet_);
  if (inferSet_->whole() && opts_.batchSize)
    throw Error("--batch-size does not apply: the model's inputs have no "
                "batch dimension and " +
                inQuotes(opts_.inputs) + " gives them whole");
  inferChunk_ = inferSet_->whole()
                    ? 1
                    : chooseChunkSize(manifest_.inputs, manifest_.outputs,
                                      inferSet_->numSamples(), opts_.batchSize,
                                      opts_.inputs);
  checkOutputPath(opts_.outputs);
}

void Trainer::infer() {
  if (rank_ != 0)
    return;
  const int64_t n = inferSet_->numSamples();
  std::vector<Tensor> outs =
      runForwardChunked(model_.forward, params_, manifest_.inputs,
                        inferSet_->inputs(), manifest_.outputs, n, inferChunk_);
  AtomicFileWriter file(opts_.outputs);
  NpzWriter npz(file);
  for (size_t j = 0; j < outs.size(); ++j)
    npz.addArray(manifest_.outputs[j].name, outs[j]);
  npz.finish();
  file.commit();
  int64_t calls = (n + inferChunk_ - 1) / inferChunk_;
  if (inferSet_->whole()) {
    std::printf("wrote %zu output%s (1 call on the whole inputs) to %s\n",
                outs.size(), outs.size() == 1 ? "" : "s",
                inQuotes(opts_.outputs).c_str());
    std::fflush(stdout);
    return;
  }
  std::printf("wrote %zu output%s for %lld samples (%lld call%s) to %s\n",
              outs.size(), outs.size() == 1 ? "" : "s",
              static_cast<long long>(n), static_cast<long long>(calls),
              calls == 1 ? "" : "s", inQuotes(opts_.outputs).c_str());
  std::fflush(stdout);
}

void Trainer::lockCheckpointDir() {
  checkpointLock_.emplace(opts_.checkpoint);
  for (const std::string &file :
       Checkpoint::removeStaleTemporaries(opts_.checkpoint))
    std::fprintf(stderr,
                 "note: removed %s, a temporary left by an earlier run that "
                 "was killed while writing its checkpoint\n",
                 inQuotes(file).c_str());
}

void Trainer::guardCheckpointDir() {
  const std::string &dir = opts_.checkpoint;
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return; // created (and locked) in openOutputs(), or refused in setup()
  lockCheckpointDir();
  std::string file = Checkpoint::path(dir);
  if (!opts_.resume && !opts_.overwrite && lstat(file.c_str(), &st) == 0)
    throw Error("checkpoint directory " + inQuotes(dir) +
                    " already holds a checkpoint (" + inQuotes(file) +
                    "); add --resume to continue from it or --overwrite to "
                    "replace it",
                ExitUsage);
}

void Trainer::loadCheckpoint() {
  Checkpoint c = Checkpoint::read(opts_.checkpoint, manifest_.params,
                                  checkpointStateSpecs());
  c.checkResumable(opts_.checkpoint, size_, opts_.batchSize, opts_.steps,
                   seed());
  checkPerRankState(c.residuals);
  params_ = std::move(c.params);
  // c.state: the shared state, then the in-flight state drained (complete,
  // handle 0).
  size_t k = 0;
  for (size_t i = 0; i < stateSpecs_.size(); ++i)
    if (!stateSpecs_[i].perRank)
      state_[i] = std::move(c.state[k++]);
  for (size_t i = 0; i < inflight_.size(); ++i)
    inflight_[i] = std::move(c.state[k++]);
  residuals_ = std::move(c.residuals);
  step_ = c.info.step;
}

void Trainer::checkPerRankState(const Residuals &r) const {
  std::vector<const TensorSpec *> mine;
  for (const TensorSpec &s : stateSpecs_)
    if (s.perRank)
      mine.push_back(&s);
  auto fail = [&](const std::string &what) {
    return Error("checkpoint " + inQuotes(Checkpoint::path(opts_.checkpoint)) +
                 " holds the per-rank state of another program: " + what +
                 " (resume with the executable that wrote it, or start "
                 "without --resume)");
  };
  for (size_t i = 0; i < mine.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : mine[i]->shape)
      n *= d;
    if (i >= r.sizes.size() || r.sizes[i] != n)
      throw fail("this executable's " + inQuotes(mine[i]->name) +
                 " (per-rank state entry " + std::to_string(i) + ") has " +
                 std::to_string(n) + " elements, " +
                 (i < r.sizes.size()
                      ? "the checkpoint's entry " + std::to_string(i) +
                            " has " + std::to_string(r.sizes[i])
                      : "the checkpoint has no entry " + std::to_string(i) +
                            " (it has " + std::to_string(r.sizes.size()) +
                            ")"));
  }
  if (r.sizes.size() > mine.size())
    throw fail("this executable keeps " + std::to_string(mine.size()) +
               " per-rank state entries, the checkpoint " +
               std::to_string(r.sizes.size()));
}

/// Only rank 0 reads the checkpoint (the one that writes it, so no shared
/// file system is needed); it passed every check in setup().
void Trainer::shareCheckpoint() {
  comm::broadcast(&step_, sizeof step_, 0);
  for (Tensor &t : params_)
    comm::broadcast(t.data(), t.byteSize(), 0);
  for (size_t i = 0; i < stateSpecs_.size(); ++i)
    if (!stateSpecs_[i].perRank)
      comm::broadcast(state_[i].data(), state_[i].byteSize(), 0);
  for (Tensor &t : inflight_)
    comm::broadcast(t.data(), t.byteSize(), 0);
  // Each rank continues with its own per-rank state, in manifest order
  // (checkPerRankState matched its sizes).
  std::vector<Tensor *> mine;
  int64_t total = 0;
  for (size_t i = 0; i < stateSpecs_.size(); ++i)
    if (stateSpecs_[i].perRank) {
      mine.push_back(&state_[i]);
      total += state_[i].numElements();
    }
  if (mine.empty())
    return;
  std::vector<float> flat(total);
  if (rank_ == 0)
    flat = residuals_.perRank[0];
  for (int r = 1; r < size_; ++r)
    comm::sendTo(rank_ == 0 ? residuals_.perRank[r].data() : flat.data(),
                 total * sizeof(float), 0, r);
  int64_t at = 0;
  for (Tensor *t : mine) {
    std::copy(flat.begin() + at, flat.begin() + at + t->numElements(),
              t->data<float>());
    at += t->numElements();
  }
}

void Trainer::gatherPerRankState() {
  residuals_ = {};
  std::vector<float> mine;
  for (size_t i = 0; i < stateSpecs_.size(); ++i)
    if (stateSpecs_[i].perRank) {
      const Tensor &t = state_[i];
      residuals_.sizes.push_back(t.numElements());
      mine.insert(mine.end(), t.data<float>(),
                  t.data<float>() + t.numElements());
    }
  if (residuals_.sizes.empty())
    return;
  for (int r = 0; r < size_; ++r) {
    std::vector<float> v = r == rank_ ? mine : std::vector<float>(mine.size());
    comm::sendTo(v.data(), v.size() * sizeof(float), r, 0);
    if (rank_ == 0)
      residuals_.perRank.push_back(std::move(v));
  }
}

/// Pieces along an axis are `outer` blocks of `size * inner` contiguous
/// elements; they travel packed.
void Trainer::gatherOwnedState() {
  for (size_t i = 0; i < stateSpecs_.size(); ++i) {
    Tensor &t = state_[i];
    for (const OwnedPiece &piece : stateSpecs_[i].owners) {
      int from = placement().rankOfDevice(piece.device);
      if (from == 0)
        continue;
      if (piece.axis < 0) {
        comm::sendTo(t.data(), t.byteSize(), from, 0);
        continue;
      }
      const std::vector<int64_t> &shape = t.shape();
      int64_t outer = 1, inner = 1, dim = shape[piece.axis];
      for (int64_t d = 0; d < piece.axis; ++d)
        outer *= shape[d];
      for (size_t d = piece.axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
      int64_t block = piece.size * inner;
      std::vector<float> packed(outer * block);
      float *data = t.data<float>();
      auto at = [&](int64_t o) {
        return data + (o * dim + piece.offset) * inner;
      };
      if (rank_ == from)
        for (int64_t o = 0; o < outer; ++o)
          std::copy(at(o), at(o) + block, packed.data() + o * block);
      comm::sendTo(packed.data(), packed.size() * sizeof(float), from, 0);
      if (rank_ == 0)
        for (int64_t o = 0; o < outer; ++o)
          std::copy(packed.data() + o * block, packed.data() + (o + 1) * block,
                    at(o));
    }
  }
}

void Trainer::drainInflight() {
  // The job's communicator started them (NCCL's handles are its own).
  for (size_t i = 0; i < inflight_.size(); ++i) {
    int64_t &h = *handles_[i].data<int64_t>();
    communicator().wait(
        {static_cast<int>(h), Stream{}}, inflight_[i].data<float>(),
        inflightSpecs_[i].mean ? ReduceOp::Mean : ReduceOp::Sum);
    h = 0;
  }
  device().synchronize(); // a device's wait is ordered on its stream
}

std::vector<TensorSpec> Trainer::checkpointStateSpecs() const {
  std::vector<TensorSpec> specs;
  for (const TensorSpec &s : stateSpecs_)
    if (!s.perRank)
      specs.push_back(s);
  for (const InflightSpec &f : inflightSpecs_)
    specs.push_back(f.buffer);
  return specs;
}

void Trainer::saveCheckpoint(int64_t step) {
  if (rank_ != 0)
    return;
  std::vector<Tensor> state;
  auto keep = [&](const Tensor &t) {
    state.emplace_back(t.dtype(), t.shape());
    std::memcpy(state.back().data(), t.data(), t.byteSize());
  };
  for (size_t i = 0; i < stateSpecs_.size(); ++i)
    if (!stateSpecs_[i].perRank)
      keep(state_[i]);
  for (const Tensor &t : inflight_)
    keep(t);
  Checkpoint::write(
      opts_.checkpoint, {step, size_, opts_.batchSize, manifest_.model, seed()},
      manifest_.params, params_, checkpointStateSpecs(), state, residuals_);
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
  DataArray *labels = ds.labels();
  if (!labels || labels->dtype() != DType::I64 || manifest_.outputs.empty() ||
      manifest_.outputs[0].shape.size() != 2 ||
      (manifest_.train && manifest_.train->loss != "cross_entropy"))
    return;
  int64_t classes = manifest_.outputs[0].shape[1];
  labels->forEachChunk([&](const void *chunk, int64_t first, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = static_cast<const int64_t *>(chunk)[i];
      if (v < 0 || v >= classes)
        throw Error("array " + inQuotes(labelsSpec_.name) + " in data file " +
                    inQuotes(ds.path()) + " has label " + std::to_string(v) +
                    " at sample " + std::to_string(first + i) +
                    ", outside [0, " + std::to_string(classes) + ")");
    }
  });
}

/// Inputs the model uses as indices (token ids into an embedding table):
/// out-of-range values would make the compiled code stop on its bounds check
/// mid-training; reject them up front, naming the array and the value.
void Trainer::checkIndexRanges(Dataset &ds) const {
  for (size_t k = 0; k < manifest_.inputs.size(); ++k) {
    const TensorSpec &spec = manifest_.inputs[k];
    if (!spec.indexBound)
      continue;
    int64_t bound = *spec.indexBound;
    ds.inputs()[k].forEachChunk([&](const void *chunk, int64_t first,
                                    int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = spec.dtype == DType::I32
                        ? static_cast<const int32_t *>(chunk)[i]
                        : static_cast<const int64_t *>(chunk)[i];
        if (v < -bound || v >= bound)
          throw Error("array " + inQuotes(spec.name) + " in data file " +
                      inQuotes(ds.path()) + " has value " + std::to_string(v) +
                      " at element " + std::to_string(first + i) +
                      ", outside [" + std::to_string(-bound) + ", " +
                      std::to_string(bound) +
                      ") (the model indexes a dimension of size " +
                      std::to_string(bound) + " with it)");
      }
    });
  }
}

void Trainer::openOutputs() {
  if (rank_ != 0)
    return;
  const std::string &dir = opts_.checkpoint;
  if (!dir.empty() && mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw Error("cannot create checkpoint directory " + inQuotes(dir) + ": " +
                std::strerror(errno));
  if (!dir.empty() && !checkpointLock_)
    lockCheckpointDir();
  if (opts_.log.empty())
    return;
  // Checked in setup() to be a regular file (or none); through a symlink,
  // its target.
  log_.emplace(opts_.log);
}

int Trainer::train() {
  if (opts_.steps == 0)
    return 0;
  if (rank_ == 0 && opts_.resume) {
    std::printf("resumed from %s at step %lld\n",
                inQuotes(Checkpoint::path(opts_.checkpoint)).c_str(),
                static_cast<long long>(step_));
    if (step_ == opts_.steps)
      std::printf("no steps left to train (--steps=%lld)\n",
                  static_cast<long long>(opts_.steps));
    std::fflush(stdout);
  }
  const int64_t batch = opts_.batchSize, global = batch * size_;
  const int64_t first = step_;
  const LrSchedule &schedule = manifest_.train->schedule;
  Tensor lr(DType::F32, {}), stepArg(DType::F32, {}), loss(DType::F32, {});
  // Dropout's generator key: a function of (seed, rank, step), no state.
  const std::optional<uint64_t> seed = this->seed();
  Tensor seedArg(DType::I64, {}), rankArg(DType::I64, {});
  Tensor ranksArg(DType::F32, {}); // train.ranks_input
  Tensor nextLr(DType::F32, {});   // train.next_lr_input
  *ranksArg.data<float>() = static_cast<float>(size_);
  *seedArg.data<int64_t>() = static_cast<int64_t>(seed.value_or(0));
  *rankArg.data<int64_t>() = rank_;
  const bool progress = rank_ == 0 && isatty(STDERR_FILENO);

  Clock::time_point start = Clock::now(), lastDraw;
  int64_t skipped = 0; // --on-nonfinite=skip
  InputBatcher trainInputs(manifest_.inputs, trainSet_->inputs());
  CallArgs args; // per docs/abi.md: params, state, inputs, labels, lr, step,
                 // [seed, rank], [ranks], [next_lr], then loss, new
                 // params, new state
  for (int64_t step = first; step < opts_.steps; ++step) {
    Clock::time_point stepStart = Clock::now();
    // Everything a step depends on is a function of its global number, so
    // a resumed run repeats an uninterrupted one exactly.
    const double rate = schedule.at(baseLr_, step + 1);
    *lr.data<float>() = static_cast<float>(rate);
    *nextLr.data<float>() = static_cast<float>(schedule.at(baseLr_, step + 2));
    *stepArg.data<float>() = static_cast<float>(step + 1);
    int64_t sample = plan_->firstSample(step, rank_);
    args.clear();
    for (Tensor &p : params_)
      args.add(p);
    for (Tensor &s : state_)
      args.add(s);
    for (size_t i = 0; i < inflight_.size(); ++i) {
      args.add(inflight_[i]);
      args.add(handles_[i]);
    }
    trainInputs.add(args, sample, batch);
    if (hasLabels_)
      args.add(trainSet_->labels()->rows(sample, batch), labelsSpec_.shape,
               batch);
    args.add(lr);
    args.add(stepArg);
    if (seed) {
      args.add(seedArg);
      args.add(rankArg);
    }
    if (manifest_.train->ranksInput)
      args.add(ranksArg);
    if (manifest_.train->nextLrInput)
      args.add(nextLr);
    args.add(loss);
    for (Tensor &p : nextParams_)
      args.add(p);
    for (Tensor &s : nextState_)
      args.add(s);
    for (Tensor &h : nextHandles_)
      args.add(h);
    trace::beginStep();
    {
      arena::CallScope scope(arena::Entry::TrainStep);
      model_.trainStep(args.get());
    }
    // While a device runs the step (its calls only queue the work), the
    // host reads the next step's batch from the file into the spare
    // buffers; on the host the step is done already and this is the read
    // the next step would have made. Same samples either way (BatchPlan).
    if (step + 1 < opts_.steps) {
      int64_t next = plan_->firstSample(step + 1, rank_);
      trainInputs.readAhead(next, batch);
      if (hasLabels_)
        trainSet_->labels()->readAhead(next, batch);
    }
    device().synchronize(); // before the host reads the loss
    trace::endStep(step + 1, *loss.data<float>());
    // Only the in-flight state may leave all-reduces running.
    int carried = 0;
    for (const Tensor &h : nextHandles_)
      carried += *h.data<int64_t>() != 0;
    if (comm::pendingAllreduces() != carried)
      throw Error("internal: the train step left " +
                  std::to_string(comm::pendingAllreduces() - carried) +
                  " all-reduces unfinished");
    traffic::Counts sent = traffic::take();
    // The loss is the global mean and the checked buffers are replicated:
    // every rank reaches the same verdict, without communicating.
    std::optional<std::string> nonFinite;
    if (opts_.onNonFinite != NonFinitePolicy::Continue)
      nonFinite = findNonFinite(*loss.data<float>(), manifest_.params,
                                nextParams_, stateSpecs_, nextState_);
    const bool skip = nonFinite && opts_.onNonFinite == NonFinitePolicy::Skip;
    if (skip) { // the double buffers keep the state before the step
      ++skipped;
    } else {
      std::swap(params_, nextParams_);
      std::swap(state_, nextState_);
      std::swap(handles_, nextHandles_);
    }
    step_ = step + 1;

    if (rank_ == 0) {
      double stepTime = secondsSince(stepStart), elapsed = secondsSince(start);
      double value = *loss.data<float>(), speed = global / stepTime;
      if (log_) {
        char line[512];
        int n = std::snprintf(
            line, sizeof line,
            "{\"step\": %lld, \"loss\": %s, \"samples_per_s\": "
            "%.6g, \"lr\": %.9g, \"time_s\": %.6f, "
            "\"collectives\": %lld, \"comm_bytes\": %lld%s}\n",
            static_cast<long long>(step_), jsonNumber(value).c_str(), speed,
            rate, elapsed, static_cast<long long>(sent.collectives),
            static_cast<long long>(sent.bytes),
            skip ? ", \"skipped\": true" : "");
        log_->write(line, std::min<size_t>(n, sizeof line - 1));
      }
      // Redraw at most 10 times a second, and always for the last step.
      if (progress &&
          (step_ == opts_.steps || step == first ||
           Clock::now() - lastDraw > std::chrono::milliseconds(100))) {
        std::fprintf(stderr, "\rstep %lld/%lld  loss %.4f  %.0f samples/s   ",
                     static_cast<long long>(step_),
                     static_cast<long long>(opts_.steps), value, speed);
        lastDraw = Clock::now();
      }
      if (skip) {
        std::fprintf(stderr,
                     "%swarning: step %lld: %s; its update was skipped "
                     "(--on-nonfinite=skip)\n",
                     progress ? "\n" : "", static_cast<long long>(step_),
                     nonFinite->c_str());
      } else if (nonFinite && opts_.onNonFinite == NonFinitePolicy::Stop &&
                 progress) {
        std::fputc('\n', stderr); // the error goes below the progress line
      }
    }
    if (nonFinite && opts_.onNonFinite == NonFinitePolicy::Stop)
      return collectively([&] {
        // The log is the record of how training went wrong: it is written
        // (rank 0), unlike the model and the checkpoint.
        if (log_) {
          log_->commit();
          log_.reset();
        }
        throw Error("step " + std::to_string(step_) + ": " + *nonFinite +
                    "; stopped before saving anything (--on-nonfinite=skip "
                    "or --on-nonfinite=continue to go on)");
      });

    bool due = step_ == opts_.steps ||
               (opts_.checkpointEvery && step_ % opts_.checkpointEvery == 0);
    if (!opts_.checkpoint.empty() && due) {
      drainInflight();
      gatherOwnedState();
      gatherPerRankState();
      if (int code = collectively([&] { saveCheckpoint(step_); }))
        return code;
    }
  }
  drainInflight(); // no request outlives training (--save reads params_)
  if (rank_ != 0 || step_ == first)
    return 0;
  if (progress)
    std::fputc('\n', stderr);
  std::printf("trained %lld steps on %d ranks, final loss %.6g, %.0f "
              "samples/s",
              static_cast<long long>(step_ - first), size_, *loss.data<float>(),
              (step_ - first) * global / secondsSince(start));
  if (skipped)
    std::printf(" (%lld skipped: non-finite)", static_cast<long long>(skipped));
  std::printf("\n");
  std::fflush(stdout);
  return 0;
}

void Trainer::finish() {
  trace::finish(); // every rank
  if (rank_ != 0)
    return;
  if (log_) {
    log_->commit();
    log_.reset();
  }
  if (!opts_.save.empty())
    saveModelWithParams(model_.onnx, manifest_.params, params_, opts_.save,
                        externalDataDir());
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
  if (out.dtype() == DType::I32) {
    const int32_t *v = out.data<int32_t>() + row * rowSize;
    return rowSize == 1 ? v[0] : std::max_element(v, v + rowSize) - v;
  }
  if (out.dtype() == DType::F64) {
    const double *v = out.data<double>() + row * rowSize;
    return std::max_element(v, v + rowSize) - v;
  }
  if (out.dtype() != DType::F32)
    throw Error(std::string("the model's output 0 has dtype ") +
                dtypeName(out.dtype()) +
                "; scoring and predictions need f32, f64, i64 or i32");
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

  InputBatcher inputs(manifest_.inputs, ds.inputs());
  for (int64_t first = 0; first < n; first += batch) {
    int64_t rows = std::min(batch, n - first); // the last chunk may be short
    CallArgs args;
    for (Tensor &p : params_)
      args.add(p);
    inputs.add(args, first, rows);
    for (size_t j = 0; j < outs.size(); ++j)
      args.add(j == 0 && all ? all->rowData(first) : scratch[j].data(),
               outs[j].withBatch(rows));
    arena::CallScope scope(arena::Entry::Forward);
    model_.forward(args.get());
    device().synchronize();
  }

  if (DataArray *labels = ds.labels()) {
    const auto *classes = static_cast<const int64_t *>(labels->rows(0, n));
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i)
      correct += predictedClass(*all, i, all->rowElements()) == classes[i];
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

/// --comm-progress, read before MPI starts (a progress thread needs
/// MPI_Init_thread); Options checks the value with the other flags.
comm::Progress requestedProgress(int argc, char **argv) {
  const std::string flag = "--comm-progress";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg.rfind(flag + "=", 0) == 0)
      value = arg.substr(flag.size() + 1);
    else if (arg == flag && i + 1 < argc)
      value = argv[i + 1];
    else
      continue;
    if (std::optional<comm::Progress> p = comm::parseProgress(value))
      return *p;
  }
  return comm::Progress::Ops;
}
} // namespace

int runMain(int argc, char **argv, const ModelEntryPoints &model) {
  comm::init(&argc, &argv, requestedProgress(argc, argv));
  int code = Trainer(model, argc, argv).run();
  comm::finalize();
  return code;
}

} // namespace autodist::rt
