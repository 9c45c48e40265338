//===- Importer.h - the importer's state, its op handlers' view -*- C++ -*-===//
//
// Importer walks the graph (OnnxImporter.cpp); each node goes to its
// registry entry's handler (OpRegistry.h) through a NodeImporter: the node,
// its spec, and what the handler may ask of the importer (operands,
// import-time constants, attributes with the spec's defaults, checked op
// building, errors naming the node).
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_IMPORTER_H
#define AUTODIST_LIB_IMPORT_IMPORTER_H

#include "BuildChecked.h"
#include "EmbeddingBag.h"
#include "FoldShapes.h"
#include "NodeAttributes.h"
#include "OpRegistry.h"

#include "autodist/Import/OnnxImporter.h"
#include "autodist/runtime/ParseModel.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace autodist::detail {

/// A TensorProto data type's name ("FLOAT"), or its number if invalid.
std::string dataTypeName(int64_t t);
/// The nn element type of TensorProto data type `t` (FLOAT is f32, DOUBLE
/// f64, FLOAT16 f16, BFLOAT16 bf16, INT8..INT64 signless, UINT8..UINT64
/// unsigned, BOOL i1), or null when nn has no tensors of it (strings,
/// complex, float8).
mlir::Type elementTypeOf(mlir::MLIRContext *ctx, int64_t t);
/// The types elementTypeOf accepts, as an error lists them.
extern const char kSupportedElementTypes[];
/// The values of a float TensorProto (raw_data or float_data).
std::vector<float> readFloats(const onnx::TensorProto &t);
/// The values of a double TensorProto (raw_data or double_data).
std::vector<double> readDoubles(const onnx::TensorProto &t);
/// The f32 tensor type of a float TensorProto's dims.
mlir::RankedTensorType f32Tensor(mlir::MLIRContext *ctx,
                                 const onnx::TensorProto &t);

class Importer {
public:
  Importer(mlir::MLIRContext *ctx, llvm::StringRef bufferName,
           llvm::StringRef modelDir, const rt::SkippedData &skipped,
           const OnnxImportOptions &options);

  mlir::OwningOpRef<mlir::ModuleOp> run(const onnx::ModelProto &model);

private:
  friend class NodeImporter;

  mlir::LogicalResult importNode(const onnx::NodeProto &node);
  mlir::LogicalResult collectInitializers(const onnx::GraphProto &graph);
  /// Checks that float initializer `t` holds as many bytes as its shape
  /// needs (read or, for a large one, skipped at parsing).
  mlir::LogicalResult checkFloatData(const onnx::TensorProto &t);
  /// `t` with its values at hand: `t` itself, or for external data a copy
  /// with the bytes read from the model's directory (for the small tensors
  /// whose values the importer needs); null after an error at `loc`.
  const onnx::TensorProto *withValues(const onnx::TensorProto &t,
                                      mlir::Location loc);
  mlir::FailureOr<mlir::RankedTensorType>
  inputType(const onnx::ValueInfoProto &info);
  /// Makes graph input `info` a constant when --bind-input names it.
  mlir::LogicalResult bindInput(const onnx::ValueInfoProto &info);
  /// The int64/bool constant `k` named `name` as an arith.constant (made
  /// once); `error` starts the error when it cannot be (an unknown entry).
  mlir::FailureOr<mlir::Value>
  materialize(const std::string &name, const IntConstant &k,
              llvm::function_ref<mlir::InFlightDiagnostic()> error);
  /// Folds `node` by `spec`'s rule when its result is an int64/bool
  /// constant (FoldShapes.h): true when folded.
  mlir::FailureOr<bool> foldIntConstants(const onnx::NodeProto &node,
                                         const OpSpec &spec);
  /// After `node` folded to a constant with entries unknown at import (the
  /// dynamic batch read by Shape), also imports it as run-time ops where
  /// its handler can, so that an op needing those entries (Expand,
  /// ConstantOfShape) reads them at run time. Silent: without a run-time
  /// form the constant stays import-time only.
  void importRunTimeShadow(const onnx::NodeProto &node, const OpSpec &spec);
  /// Erases the run-time shadows nothing read.
  void eraseUnusedShadows();

  mlir::Location nodeLoc(const onnx::NodeProto &node);
  mlir::InFlightDiagnostic nodeError(const onnx::NodeProto &node);

  mlir::MLIRContext *ctx;
  mlir::OpBuilder b;
  mlir::FileLineColLoc fileLoc;
  /// The absolute directory of the model: where external data lives.
  std::string modelDir;
  /// The float initializers whose bytes were not read (ParseModel.h).
  const rt::SkippedData &skipped;
  const OnnxImportOptions &options;
  std::map<std::string, mlir::Value> values;
  std::map<std::string, IntConstant> intConstants;
  /// The shapes the graph declares for its outputs and value_infos (-1 for
  /// a symbolic dim), by value name.
  std::map<std::string, std::vector<int64_t>> declaredShapes;
  /// DOUBLE Constants: no nn value, only a Cast to FLOAT reads them (folded).
  std::map<std::string, const onnx::TensorProto *> doubleConstants;
  /// The ops importRunTimeShadow made, in order.
  std::vector<mlir::Operation *> shadowOps;
  std::map<std::string, const onnx::TensorProto *> floatInits;
  std::vector<std::string> paramOrder;
  /// Copies of external tensors with their bytes read (see withValues).
  std::deque<onnx::TensorProto> inlined;
  /// Whether some initializer keeps its data in an external file.
  bool hasExternalData = false;
  /// The model's default-domain opset (operator semantics depend on it).
  int64_t opset = 21;
  /// The recognized nn.EmbeddingBag Loops, and the nodes only they read
  /// (not imported).
  std::map<const onnx::NodeProto *, EmbeddingBag> embeddingBags;
  std::set<const onnx::NodeProto *> absorbed;
};

/// One node as its handler sees it.
class NodeImporter {
public:
  NodeImporter(Importer &im, const onnx::NodeProto &node, const OpSpec &spec)
      : node(node), spec(spec), b(im.b), im(im) {}

  const onnx::NodeProto &node;
  const OpSpec &spec;
  /// Where the node's ops go.
  mlir::OpBuilder &b;

  int64_t opset() const { return im.opset; }
  mlir::Location loc() const { return im.nodeLoc(node); }
  /// Starts an error naming the node: `node 'n' (Conv, opset 17): `.
  mlir::InFlightDiagnostic error() const { return im.nodeError(node); }

  /// Whether input `i` is given (present and non-empty).
  bool hasInput(int i) const;
  /// Input `i` as a value (an int64/bool constant is materialized).
  mlir::FailureOr<mlir::Value> operand(int i);
  /// Inputs 0 .. `required` - 1 (all of them when -1) and those of the
  /// next `optional` that are given, as values.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> operands(int required = -1,
                                                           int optional = 0);
  /// Input `i` as an import-time int64/bool constant, or null.
  const IntConstant *intConstant(int i) const;
  /// The run-time value of input `i` when the importer has one (a graph
  /// value, or the run-time shadow of a constant with unknown entries),
  /// without materializing a constant.
  std::optional<mlir::Value> runTimeValue(int i) const;
  /// The run-time form of 1-D shape input `i` whose import-time constant
  /// has unknown entries (the batch): the constant's entries with -1 for
  /// the unknown ones, and the run-time shape tensor; none when there is no
  /// such run-time value.
  std::optional<std::pair<std::vector<int64_t>, mlir::Value>>
  runTimeShape(int i) const;
  /// Input `i` when it is a run-time 1-D int64/int32 tensor of static
  /// length (axes, starts, a shape: a graph input rather than a constant).
  std::optional<mlir::Value> runTimeIndexVector(int i) const;
  /// The shape the model declares for output `i` (a graph output or a
  /// value_info; -1 for a symbolic dim), which an op whose result shape
  /// depends on run-time values (`what` names that input) takes; an error
  /// when the model declares none.
  mlir::FailureOr<std::vector<int64_t>> declaredShape(int i,
                                                      llvm::StringRef what);
  /// The int64 values of constant input `i` (`what` names it in the error
  /// when it is not one, or depends on a dynamic dim).
  mlir::FailureOr<std::vector<int64_t>> constInput(int i, llvm::StringRef what);
  /// The values of input `i` when it is a float constant (an
  /// arith.constant or a float initializer), nullopt when it is not one.
  mlir::FailureOr<std::optional<std::vector<float>>> constFloats(int i);
  /// Axes from attribute `axes` or from constant input `inputIndex` (the
  /// opset 13/18 form); nullopt when neither is given.
  mlir::FailureOr<std::optional<std::vector<int64_t>>> axes(int inputIndex);
  /// `t` with its values read (external data), null after an error.
  const onnx::TensorProto *withValues(const onnx::TensorProto &t);

  /// The graph value `name` (an int64/bool constant is materialized).
  mlir::FailureOr<mlir::Value> value(const std::string &name);
  /// This (Loop) node as a recognized nn.EmbeddingBag, or null.
  const EmbeddingBag *embeddingBag() const {
    auto it = im.embeddingBags.find(&node);
    return it == im.embeddingBags.end() ? nullptr : &it->second;
  }

  /// Fails with error `what` when an output other than the first is used.
  mlir::LogicalResult onlyFirstOutput(llvm::StringRef what);
  /// Names output `i` (outputs other than the one a handler returns).
  void define(int i, mlir::Value v);
  /// Makes output `i` an import-time constant.
  void defineConstant(int i, IntConstant c);
  /// Makes output `i` the DOUBLE constant `t`, for a Cast to fold.
  void defineDoubleConstant(int i, const onnx::TensorProto &t);
  /// Input `i` as a DOUBLE constant, or null.
  const onnx::TensorProto *doubleConstant(int i) const;
  /// An f32 arith.constant of `type` holding `data`, or an error.
  mlir::FailureOr<mlir::Value> floatConstant(mlir::RankedTensorType type,
                                             llvm::ArrayRef<float> data);

  /// Attribute `name`, or null when absent.
  const onnx::AttributeProto *attr(llvm::StringRef name) const {
    return findAttr(node, name);
  }
  /// Attributes with the defaults of the registry entry.
  int64_t attrInt(llvm::StringRef name) const;
  float attrFloat(llvm::StringRef name) const;
  std::string attrString(llvm::StringRef name) const;
  /// Attributes with a default the handler gives (opset-dependent ones).
  int64_t attrInt(llvm::StringRef name, int64_t dflt) const {
    return detail::attrInt(node, name, dflt);
  }
  std::optional<std::vector<int64_t>> attrInts(llvm::StringRef name) const {
    return detail::attrInts(node, name);
  }
  std::optional<std::vector<float>> attrFloats(llvm::StringRef name) const {
    return detail::attrFloats(node, name);
  }
  std::optional<std::vector<std::string>>
  attrStrings(llvm::StringRef name) const {
    return detail::attrStrings(node, name);
  }

  /// Builds op `OpTy` with result types from its own type inference; a
  /// failure is reported as one error naming the node instead of aborting.
  template <typename OpTy>
  mlir::FailureOr<mlir::Operation *>
  buildOp(mlir::ValueRange operands,
          llvm::ArrayRef<mlir::NamedAttribute> attrs = {},
          unsigned numResults = 1) {
    std::string messages;
    mlir::Operation *op =
        createInferredOp<OpTy>(b, loc(), operands, attrs, numResults, messages);
    if (!op) {
      error() << describeBuildFailure(operands, messages);
      return mlir::failure();
    }
    return op;
  }
  template <typename OpTy>
  mlir::FailureOr<mlir::Value>
  build(mlir::ValueRange operands,
        llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    mlir::FailureOr<mlir::Operation *> op = buildOp<OpTy>(operands, attrs);
    if (mlir::failed(op))
      return mlir::failure();
    return (*op)->getResult(0);
  }

private:
  /// The error for an op that could not be built: the verifier's words,
  /// led by the input element types when those are what it refused.
  static std::string describeBuildFailure(mlir::ValueRange operands,
                                          const std::string &messages);

  Importer &im;
};

/// A handler for a one-operand op without attributes.
template <typename OpTy>
mlir::FailureOr<mlir::Value> importUnary(NodeImporter &n) {
  mlir::FailureOr<mlir::Value> x = n.operand(0);
  if (mlir::failed(x))
    return mlir::failure();
  return n.build<OpTy>({*x});
}

/// A handler for a two-operand op without attributes.
template <typename OpTy>
mlir::FailureOr<mlir::Value> importBinary(NodeImporter &n) {
  mlir::FailureOr<mlir::Value> x = n.operand(0), y = n.operand(1);
  if (mlir::failed(x) || mlir::failed(y))
    return mlir::failure();
  return n.build<OpTy>({*x, *y});
}

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_IMPORTER_H
