//===- Checkpoint.h - Training checkpoints ----------------------*- C++ -*-===//
//
// A checkpoint is everything a resumed run needs to continue exactly where an
// uninterrupted one would be: the parameters, the optimizer state and the
// number of steps done. The data order depends on the number of ranks and
// the per-rank batch size (BatchPlan), and dropout's masks on the seed, so
// those are recorded and must match.
//
// On disk it is one file, DIR/checkpoint.npz (written atomically, replacing
// the previous one), holding
//   checkpoint.json        {"format": "autodist-checkpoint", "version": 1,
//                           "step": 10, "world_size": 2, "batch_size": 4,
//                           "model": "mlp.onnx", "params": [names...],
//                           "state": [names...], "seed": 7}
//                          (seed only for models with dropout)
//   params/<name>.npy      one <f4 array per parameter, manifest order
//   state/<name>.npy       one <f4 array per optimizer state buffer
//   residuals/rank<r>.npy  with per-rank state (manifest `per_rank`: error
//                          feedback, PowerSGD's Q, weight prediction's local
//                          gradients): rank r's entries in manifest order
//                          (sizes in checkpoint.json "residual_sizes"), one
//                          per rank of the run
// so numpy.load(DIR + "/checkpoint.npz")["params/fc1.weight"] reads it too.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_CHECKPOINT_H
#define AUTODIST_RUNTIME_CHECKPOINT_H

#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

/// The format version this runtime writes and reads.
constexpr int kCheckpointVersion = 1;

/// What a checkpoint records besides the arrays.
struct CheckpointInfo {
  int64_t step = 0;      // steps done; training continues with step + 1
  int64_t worldSize = 1; // ranks of the run that wrote it
  int64_t batchSize = 0; // its --batch-size (per rank)
  std::string model;     // manifest `model`, informational
  /// Dropout's seed, for models with dropout (manifest `train.seed`).
  std::optional<uint64_t> seed;
};

/// The per-rank state of every rank (manifest `per_rank` state entries):
/// `perRank[r]` is rank r's entries, concatenated in manifest order
/// (`sizes`: their element counts).
struct Residuals {
  std::vector<int64_t> sizes;
  std::vector<std::vector<float>> perRank;
};

struct Checkpoint {
  CheckpointInfo info;
  std::vector<Tensor> params, state;
  Residuals residuals;

  /// DIR/checkpoint.npz.
  static std::string path(const std::string &dir);

  /// Removes DIR/checkpoint.npz.tmp-XXXXXX files: temporaries of a run that
  /// ended without its signal handler (SIGKILL, the OOM killer, mpirun
  /// forcibly exiting on a second Ctrl-C). Only with DIR's lock held, so no
  /// run is writing one. Returns the paths removed.
  static std::vector<std::string>
  removeStaleTemporaries(const std::string &dir);

  /// Writes `path(dir)` atomically; `params`/`state` match the specs;
  /// `residuals` has no ranks or `info.worldSize` of them.
  static void write(const std::string &dir, const CheckpointInfo &info,
                    const std::vector<TensorSpec> &paramSpecs,
                    const std::vector<Tensor> &params,
                    const std::vector<TensorSpec> &stateSpecs,
                    const std::vector<Tensor> &state,
                    const Residuals &residuals = {});

  /// Reads `path(dir)`, checking the format and that its parameters and
  /// state are exactly `paramSpecs` and `stateSpecs` (names and shapes).
  static Checkpoint read(const std::string &dir,
                         const std::vector<TensorSpec> &paramSpecs,
                         const std::vector<TensorSpec> &stateSpecs);

  /// Throws unless a run of `worldSize` ranks with `batchSize` per rank,
  /// `totalSteps` steps in all and dropout seed `seed` (if the model has
  /// dropout) can continue from this checkpoint.
  void checkResumable(const std::string &dir, int64_t worldSize,
                      int64_t batchSize, int64_t totalSteps,
                      std::optional<uint64_t> seed = std::nullopt) const;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_CHECKPOINT_H
