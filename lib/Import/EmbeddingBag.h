//===- EmbeddingBag.h - nn.EmbeddingBag exports, recognized ----*- C++ -*-===//
//
// PyTorch exports nn.EmbeddingBag as a Loop over the bags whose body slices
// the flattened ids of one bag, gathers their rows and reduces them, with
// the bag boundaries computed by Shape/ReduceProd/Range around it. The
// importer finds that pattern on the ONNX graph before importing it, imports
// the Loop as one lookup-and-reduce and skips the nodes only it read.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_EMBEDDINGBAG_H
#define AUTODIST_LIB_IMPORT_EMBEDDINGBAG_H

#include <map>
#include <set>
#include <string>

namespace onnx {
class GraphProto;
class NodeProto;
} // namespace onnx

namespace autodist::detail {

/// One recognized nn.EmbeddingBag Loop.
struct EmbeddingBag {
  /// The table (an initializer) and the ids.
  std::string weight, ids;
  /// "sum", "mean" or "max".
  std::string mode;
  /// Empty for a 2-D input (every bag one row of `ids`); else the per-bag
  /// start offsets into the 1-D `ids`.
  std::string offsets;
  /// With offsets: whether the last one ends the last bag (PyTorch's
  /// include_last_offset) instead of starting one.
  bool includeLastOffset = false;
};

/// The nn.EmbeddingBag Loops of `graph`, by node, and the nodes only they
/// read (their bag boundaries), which the importer skips.
void findEmbeddingBags(const onnx::GraphProto &graph,
                       std::map<const onnx::NodeProto *, EmbeddingBag> &bags,
                       std::set<const onnx::NodeProto *> &absorbed);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_EMBEDDINGBAG_H
