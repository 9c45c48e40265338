//===- ImportScatter.cpp - ScatterND and GatherND -------------------------===//
//
// Exporters emit ScatterND for masks built once from static shapes (Swin's
// shifted-window attention mask: zeros, then a window id written into each
// region). There every input is a constant, and the importer computes the
// result: an arith.constant, as if the exporter had folded it. On run-time
// values ScatterND is nn.scatter_nd (PyTorch's index_put_), and GatherND
// nn.gather_nd.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;

namespace autodist::detail {
namespace {

/// The value of `v` when it is a constant that is not a parameter: an
/// arith.constant, or one reshaped or broadcast by nn ops (exporters write
/// `ConstantOfShape -> Expand -> Reshape` for the updates); null otherwise.
DenseElementsAttr constantValue(Value v) {
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr;
  Operation *op = v.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!op || !type || !type.hasStaticShape() ||
      !isa<nn::ReshapeOp, nn::ExpandOp, nn::SqueezeOp, nn::UnsqueezeOp,
           nn::FlattenOp>(op) ||
      op->getNumOperands() != 1)
    return {};
  DenseElementsAttr in = constantValue(op->getOperand(0));
  if (!in)
    return {};
  if (in.isSplat())
    return DenseElementsAttr::get(type, in.getSplatValue<Attribute>());
  // Reshapes keep the elements in order; a broadcast does not.
  if (isa<nn::ExpandOp>(op))
    return {};
  return in.reshape(type);
}

/// Input `i` as a constant (constantValue), null when it is not one.
FailureOr<DenseElementsAttr> constantInput(NodeImporter &n, int i) {
  FailureOr<Value> v = n.operand(i);
  if (failed(v))
    return failure();
  return constantValue(*v);
}

/// The elements of `attr` as T (float or int64_t).
template <typename T> std::vector<T> elementsOf(DenseElementsAttr attr) {
  std::vector<T> out;
  out.reserve(attr.getNumElements());
  if constexpr (std::is_same_v<T, float>) {
    for (float v : attr.getValues<float>())
      out.push_back(v);
  } else {
    for (const APInt &v : attr.getValues<APInt>())
      out.push_back(attr.getElementType().isInteger(1) ? v.getZExtValue()
                                                       : v.getSExtValue());
  }
  return out;
}

template <typename T>
DenseElementsAttr scatter(NodeImporter &n, DenseElementsAttr data,
                          const IntConstant &indices, DenseElementsAttr upd,
                          StringRef reduction) {
  auto type = cast<RankedTensorType>(data.getType());
  ArrayRef<int64_t> shape = type.getShape();
  std::vector<T> out = elementsOf<T>(data), updates = elementsOf<T>(upd);
  int64_t k = indices.dims.back();
  // Elements of one update slice: the data dims after the first k.
  int64_t slice = 1;
  for (int64_t d : shape.drop_front(k))
    slice *= d;
  int64_t tuples = int64_t(indices.values.size()) / std::max<int64_t>(k, 1);
  if (k == 0)
    tuples = int64_t(updates.size()) / std::max<int64_t>(slice, 1);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t idx = indices.values[t * k + j], dim = shape[j];
      if (idx < -dim || idx >= dim) {
        n.error() << "index " << idx << " (indices entry " << t * k + j
                  << ") is out of range for data dim " << j << " of size "
                  << dim;
        return {};
      }
      offset = offset * dim + (idx < 0 ? idx + dim : idx);
    }
    offset *= slice;
    for (int64_t e = 0; e < slice; ++e) {
      T &dst = out[offset + e];
      T src = updates[t * slice + e];
      if (reduction == "add")
        dst = dst + src;
      else if (reduction == "mul")
        dst = dst * src;
      else if (reduction == "max")
        dst = std::max(dst, src);
      else if (reduction == "min")
        dst = std::min(dst, src);
      else
        dst = src;
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    return DenseElementsAttr::get(type, ArrayRef<float>(out));
  } else {
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    SmallVector<APInt> bits;
    for (int64_t v : out)
      bits.push_back(APInt(width, uint64_t(v), /*isSigned=*/width > 1));
    return DenseElementsAttr::get(type, bits);
  }
}

/// ScatterND on run-time values: nn.scatter_nd, whose verifier checks the
/// shapes (an error naming the node).
FailureOr<Value> importRuntimeScatterND(NodeImporter &n, StringRef reduction) {
  FailureOr<Value> data = n.operand(0), indices = n.operand(1),
                   updates = n.operand(2);
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  Type it = cast<RankedTensorType>(indices->getType()).getElementType();
  if (!it.isSignlessInteger(64) && !it.isSignlessInteger(32)) {
    n.error() << "input 'indices' must be int64 or int32, got " << it;
    return failure();
  }
  auto dt = cast<RankedTensorType>(data->getType());
  auto itype = cast<RankedTensorType>(indices->getType());
  auto ut = cast<RankedTensorType>(updates->getType());
  int64_t q = itype.getRank();
  int64_t k = q ? itype.getDimSize(q - 1) : ShapedType::kDynamic;
  bool fits = q >= 1 && !ShapedType::isDynamic(k) && k >= 1 &&
              k <= dt.getRank() && ut.getElementType() == dt.getElementType();
  if (fits) {
    SmallVector<int64_t> want(itype.getShape().drop_back());
    llvm::append_range(want, dt.getShape().drop_front(k));
    fits = (int64_t)want.size() == ut.getRank();
    for (int64_t i = 0; fits && i < ut.getRank(); ++i)
      fits = ShapedType::isDynamic(want[i]) || ut.isDynamicDim(i) ||
             want[i] == ut.getDimSize(i);
  }
  if (!fits) {
    n.error() << "inputs do not match: data " << dt << ", indices " << itype
              << ", updates " << ut
              << " (updates must be indices.shape[:-1] + data.shape[k:] of "
                 "the data's type, k = indices.shape[-1] static and <= rank)";
    return failure();
  }
  return n.build<nn::ScatterNDOp>(
      {*data, *indices, *updates},
      {n.b.getNamedAttr("reduction", n.b.getStringAttr(reduction))});
}

FailureOr<Value> importGatherND(NodeImporter &n) {
  FailureOr<Value> data = n.operand(0), indices = n.operand(1);
  if (failed(data) || failed(indices))
    return failure();
  Type it = cast<RankedTensorType>(indices->getType()).getElementType();
  if (!it.isSignlessInteger(64) && !it.isSignlessInteger(32)) {
    n.error() << "input 'indices' must be int64 or int32, got " << it;
    return failure();
  }
  return n.build<nn::GatherNDOp>(
      {*data, *indices},
      {n.b.getNamedAttr("batch_dims",
                        n.b.getI64IntegerAttr(n.attrInt("batch_dims")))});
}

FailureOr<Value> importScatterND(NodeImporter &n) {
  std::string reduction = n.attrString("reduction");
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min") {
    n.error() << "attribute 'reduction' = '" << reduction
              << "' must be none, add, mul, max or min";
    return failure();
  }
  if ((reduction == "max" || reduction == "min") && n.opset() < 18) {
    n.error() << "attribute 'reduction' = '" << reduction << "' needs opset 18";
    return failure();
  }
  const IntConstant *indices = n.intConstant(1);
  FailureOr<DenseElementsAttr> data = constantInput(n, 0);
  if (failed(data))
    return failure();
  FailureOr<DenseElementsAttr> updates = constantInput(n, 2);
  if (failed(updates))
    return failure();
  bool folded = indices && !indices->hasUnknown() && !indices->isBool &&
                !indices->dims.empty() && *data && *updates;
  if (!folded)
    return importRuntimeScatterND(n, reduction);
  auto dataType = cast<RankedTensorType>(data->getType());
  auto updType = cast<RankedTensorType>(updates->getType());
  Type elem = dataType.getElementType();
  int64_t k = indices->dims.back();
  // updates.shape = indices.shape[:-1] + data.shape[k:]
  SmallVector<int64_t> want(indices->dims.begin(), indices->dims.end() - 1);
  if (k <= dataType.getRank())
    llvm::append_range(want, dataType.getShape().drop_front(k));
  if (k > dataType.getRank() || updType.getElementType() != elem ||
      updType.getShape() != ArrayRef<int64_t>(want)) {
    n.error() << "inputs do not match: data " << dataType << ", indices "
              << listString(indices->dims) << ", updates " << updType
              << " (updates must be indices.shape[:-1] + data.shape[k:] of "
                 "the data's type, k = indices.shape[-1] <= rank)";
    return failure();
  }
  DenseElementsAttr result =
      elem.isF32() ? scatter<float>(n, *data, *indices, *updates, reduction)
                   : scatter<int64_t>(n, *data, *indices, *updates, reduction);
  if (!result)
    return failure();
  return arith::ConstantOp::create(n.b, n.loc(), result).getResult();
}

} // namespace

void registerScatterOps(OpRegistry &r) {
  r.add({"ScatterND",
         11,
         {{"reduction", "none"}},
         importScatterND,
         {},
         {"", "`arith.constant` (computed at import) or `nn.scatter_nd`",
          "data and updates, reduction none and add (`nn.scatter_nd`)",
          "computed at import when `data`, `indices` and `updates` are "
          "constants (Swin's shifted-window attention mask); float, int64, "
          "int32 or bool; `reduction` none, add, mul (opset 16+), max, min "
          "(opset 18+); negative indices count from the end. On run-time "
          "values (PyTorch's `index_put_`): `nn.scatter_nd`, int64/int32 "
          "indices whose last dim is static, the addressed data dims "
          "static, out-of-range indices stop the program; gradients "
          "(float32) for none (data: zero where written; updates: the "
          "result's gradient gathered) and add"}});
  r.add({"GatherND",
         11,
         {{"batch_dims", 0}},
         importGatherND,
         {},
         {" (`batch_dims` 12+)", "`nn.gather_nd`",
          "data (`nn.gather_nd_grad`: each gradient slice added at its index "
          "tuple, repeated tuples sum); indices none",
          "any data element type, int64/int32 indices with a static last "
          "dim (the tuple size), `batch_dims`; the addressed data dims "
          "static; negative indices count from the end, out-of-range ones "
          "stop the program"}});
}

} // namespace autodist::detail
