//===- Manifest.h - The compiled model's manifest ---------------*- C++ -*-===//
//
// The JSON manifest (`autodist_manifest`, docs/abi.md) describes the entry
// points' arguments: parameters, inputs, outputs and the training setup.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_MANIFEST_H
#define AUTODIST_RUNTIME_MANIFEST_H

#include "autodist/runtime/LrSchedule.h"
#include "autodist/runtime/Placement.h"
#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autodist::rt {

/// A part of an optimizer-state tensor that is meaningful only on the rank
/// owning cluster device `device` (its parameter server): the whole tensor
/// (axis -1), or [offset, offset + size) along `axis`.
struct OwnedPiece {
  int64_t device = 0;
  int64_t axis = -1, offset = 0, size = 0;
};

/// One argument: a name, a shape where -1 is the dynamic batch, a dtype.
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  /// For i64 inputs the model uses as indices (e.g. token ids into an
  /// embedding): valid values are [-indexBound, indexBound).
  std::optional<int64_t> indexBound;
  /// Inputs only, for nn.embedding_bag (docs/abi.md "Bag inputs"): on the
  /// ids, the input holding each sample's start into them (the ids are then
  /// all samples' concatenated, not one row per sample); on those offsets,
  /// the ids' input, and whether the model takes one offset more, the end
  /// of the last bag (PyTorch's include_last_offset).
  std::string bagOffsets, bagIds;
  bool offsetsIncludeEnd = false;
  /// Optimizer state only: the pieces held by parameter servers; the rest
  /// is the same on every rank.
  std::vector<OwnedPiece> owners;
  /// State only (`"per_rank": true`): every rank keeps its own value (the
  /// compressors' error feedback, weight prediction's local gradients);
  /// checkpoints hold each rank's.
  bool perRank = false;
  /// State only (`"init": {"kind": "powersgd_q", "seed": S}`): PowerSGD's
  /// Q, which starts from compress::initPowerSGDQ(S); otherwise state starts
  /// at zero.
  std::optional<int64_t> powerSGDSeed;
  /// State only (`"init": {"kind": "constant", "value": V}`): every
  /// element starts at V (fp16 loss scaling's scale).
  std::optional<float> constantInit;
  /// State only (`"init": {"kind": "param", "name": P}`): starts as a copy
  /// of parameter P's initial value (weight prediction's predicted weights),
  /// which has its shape; the index of P in Manifest::params.
  std::optional<size_t> paramInit;

  /// The shape with every -1 replaced by `batch`.
  std::vector<int64_t> withBatch(int64_t batch) const;
  /// Whether the leading dimension is the dynamic batch.
  bool isBatched() const { return !shape.empty() && shape[0] == -1; }
};

/// A gradient all-reduce that crosses steps (staleness, docs/abi.md
/// "In-flight state"): started by step t in `buffer`, completed by step
/// t + 1; the runtime keeps the buffer in place and passes its handle.
struct InflightSpec {
  TensorSpec buffer;               // f32, rank 1, static
  bool mean = true;                // "op": "mean" (else "sum")
  std::vector<std::string> params; // whose gradients it carries
};

struct TrainSpec {
  std::string loss, optimizer;
  double lr = 0;
  std::optional<TensorSpec> labels;   // absent: the loss takes no labels
  std::vector<TensorSpec> state;      // step state, f32, starts at zero
  std::vector<InflightSpec> inflight; // in-flight state, starts empty
  /// The train step takes the number of ranks (f32, rank 0) last.
  bool ranksInput = false;
  /// The train step takes the next step's learning rate (f32, rank 0) after
  /// that (weight prediction predicts the next step's weights).
  bool nextLrInput = false;
  LrSchedule schedule; // absent in the manifest: constant
  /// Present when the train step takes the generator's key (seed, rank):
  /// the model has dropout. The compiled default; --seed overrides it.
  std::optional<uint64_t> seed;
};

struct Manifest {
  int version = 0;
  std::string model;
  /// Where the model's external data files were at compile time (absolute;
  /// empty when every initializer is inside the model).
  std::string externalDataDir;
  std::vector<TensorSpec> params, inputs, outputs;
  std::optional<TrainSpec> train; // absent for inference-only builds
  std::string strategy;
  /// The cluster the strategy was built for (empty: one node).
  std::vector<ClusterNode> cluster;
  /// "float32_matmul": "tf32" (--precision=tf32): f32 products and
  /// convolutions may use TF32 tensor cores.
  bool tf32 = false;

  /// Parses and checks the manifest; throws Error on malformed input.
  static Manifest parse(std::string_view json);
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_MANIFEST_H
