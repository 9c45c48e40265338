//===- OpRegistry.h - one entry per imported ONNX operator ------*- C++ -*-===//
//
// Everything the importer knows of an ONNX operator is its entry here: the
// opsets whose semantics are implemented, the attributes it accepts (any
// other is an error, so an attribute the importer ignores never changes the
// answer) with ONNX's defaults, the handler that builds its nn ops, how it
// folds on int64/bool constants, and its row of docs/operators.md. Entries
// are registered by family (Import<Family>.cpp), as torch-mlir's ONNX
// importer registers one pattern per op.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_OPREGISTRY_H
#define AUTODIST_LIB_IMPORT_OPREGISTRY_H

#include "FoldShapes.h"

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace autodist::detail {

class NodeImporter;

/// An attribute an operator accepts, with the default ONNX gives it (none:
/// required, or a default the handler computes, e.g. from the opset).
struct AttrSpec {
  using Default = std::variant<std::monostate, int64_t, float, std::string>;
  AttrSpec(const char *name) : name(name) {}
  AttrSpec(const char *name, int dflt) : name(name), dflt(int64_t(dflt)) {}
  AttrSpec(const char *name, float dflt) : name(name), dflt(dflt) {}
  AttrSpec(const char *name, const char *dflt)
      : name(name), dflt(std::string(dflt)) {}

  std::string name;
  Default dflt;
};

/// Builds the nn ops of one node at the builder's insertion point. Returns
/// the value of output 0, or a null value when the handler named its
/// outputs itself (several outputs, or an import-time constant); failure
/// after reporting an error naming the node.
using ImportFn = mlir::FailureOr<mlir::Value> (*)(NodeImporter &);

/// The operator's row of the table in docs/operators.md.
struct OpDoc {
  /// The opsets column after "N+" (e.g. " (attribute form 7-9)").
  std::string opsetNote;
  /// The nn op it becomes, or "— (folded)".
  std::string nnOp;
  /// What its VJP gives its operands.
  std::string gradient;
  /// Attributes, types and limits.
  std::string notes;
};

struct OpSpec {
  std::string name;
  /// The first default-domain opset whose semantics are implemented.
  int64_t sinceOpset = 7;
  std::vector<AttrSpec> attributes;
  /// Null for an operator imported only in folded form (int64 constants).
  ImportFn import = nullptr;
  /// How it folds on int64/bool constants (fold.fn null: never).
  FoldRule fold;
  OpDoc doc;

  const AttrSpec *attribute(llvm::StringRef attr) const;
};

/// The operators the importer supports, by name.
class OpRegistry {
public:
  /// The registry with every family registered.
  static const OpRegistry &get();

  /// Adds `spec`; a name registered twice is a programming error.
  void add(OpSpec spec);
  /// The entry for `opType`, or null when it is not supported.
  const OpSpec *lookup(llvm::StringRef opType) const;
  /// Every entry, in registration order (the order of the doc table).
  llvm::ArrayRef<OpSpec> ops() const { return specs; }

private:
  std::vector<OpSpec> specs;
  std::map<std::string, size_t, std::less<>> index;
};

// The families (Import<Family>.cpp).
void registerContractionOps(OpRegistry &registry);
void registerElementwiseOps(OpRegistry &registry);
void registerNormalizationOps(OpRegistry &registry);
void registerReductionOps(OpRegistry &registry);
void registerShapeOps(OpRegistry &registry);
void registerConstantOps(OpRegistry &registry);
void registerConvPoolOps(OpRegistry &registry);
void registerRecurrentOps(OpRegistry &registry);
void registerScatterOps(OpRegistry &registry);
void registerEmbeddingBagOps(OpRegistry &registry);

/// Prints the operator table of docs/operators.md (markdown), one row per
/// operator, consecutive operators with the same documentation merged.
void printOperatorTable(const OpRegistry &registry, llvm::raw_ostream &os);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_OPREGISTRY_H
