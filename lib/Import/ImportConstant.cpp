//===- ImportConstant.cpp - Constant, ConstantOfShape, Range --------------===//
//
// Operators whose result is known at import: int64/bool ones become
// import-time constants (folded further), float ones `arith.constant`s.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>

using namespace mlir;

namespace autodist::detail {
namespace {

/// FLOAT16, BFLOAT16, INT16 and INT8 constants: data only (never folded
/// into attributes), of their own type.
bool isNarrowType(int32_t t) {
  return t == onnx::TensorProto::FLOAT16 || t == onnx::TensorProto::BFLOAT16 ||
         t == onnx::TensorProto::INT16 || t == onnx::TensorProto::INT8;
}

/// `t` (a narrow type) as an arith.constant: its raw little-endian bytes,
/// or int32_data, where ONNX keeps these types one value (or the 16 bits of
/// a half) per entry.
FailureOr<Value> narrowConstant(NodeImporter &n, const onnx::TensorProto &t) {
  SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
  auto type = RankedTensorType::get(
      dims, elementTypeOf(n.b.getContext(), t.data_type()));
  size_t width = type.getElementTypeBitWidth() / 8;
  std::vector<char> bytes;
  if (!t.raw_data().empty()) {
    bytes.assign(t.raw_data().begin(), t.raw_data().end());
  } else {
    for (int32_t v : t.int32_data()) {
      uint16_t bits = static_cast<uint16_t>(v);
      const char *p = reinterpret_cast<const char *>(&bits);
      bytes.insert(bytes.end(), p, p + width); // little-endian host
    }
  }
  if ((int64_t)bytes.size() != type.getNumElements() * (int64_t)width) {
    n.error() << "attribute 'value' has " << bytes.size() / width
              << " values for shape " << type;
    return failure();
  }
  return arith::ConstantOp::create(
             n.b, n.loc(), DenseElementsAttr::getFromRawBuffer(type, bytes))
      .getResult();
}

FailureOr<Value> importConstant(NodeImporter &n) {
  // The scalar and list forms (opset 12): value_int(s), value_float(s).
  const onnx::NodeProto &node = n.node;
  if (node.attribute_size() != 1) {
    n.error() << "needs exactly one of the attributes 'value', 'value_int', "
                 "'value_ints', 'value_float', 'value_floats'";
    return failure();
  }
  const onnx::AttributeProto &a = node.attribute(0);
  if (a.name() == "value_int" || a.name() == "value_ints") {
    IntConstant c;
    if (a.name() == "value_int") {
      c.values = {a.i()};
    } else {
      c.values.assign(a.ints().begin(), a.ints().end());
      c.dims = {(int64_t)c.values.size()};
    }
    for (int64_t &v : c.values)
      if (isUnknown(v)) // as readInts does: never mistaken for an unknown
        v = std::numeric_limits<int64_t>::min();
    n.defineConstant(0, std::move(c));
    return Value();
  }
  if (a.name() == "value_float")
    return n.floatConstant(RankedTensorType::get({}, n.b.getF32Type()),
                           {a.f()});
  if (a.name() == "value_floats") {
    std::vector<float> data(a.floats().begin(), a.floats().end());
    return n.floatConstant(
        RankedTensorType::get({(int64_t)data.size()}, n.b.getF32Type()), data);
  }
  if (a.name() != "value" || !a.has_t()) {
    n.error() << "attribute '" << a.name()
              << "' is not supported (value, value_int, value_ints, "
                 "value_float, value_floats)";
    return failure();
  }
  const onnx::TensorProto *values = n.withValues(a.t());
  if (!values)
    return failure();
  const onnx::TensorProto &t = *values;
  // INT32 is read as int64 (exporters' masks and indices).
  if (t.data_type() == onnx::TensorProto::INT64 ||
      t.data_type() == onnx::TensorProto::INT32 ||
      t.data_type() == onnx::TensorProto::BOOL) {
    IntConstant c = readInts(t);
    if (!c.matchesDims()) {
      n.error() << "attribute 'value' has " << c.values.size()
                << " values for shape " << shapeString(c.dims);
      return failure();
    }
    n.defineConstant(0, std::move(c));
    return Value();
  }
  if (t.data_type() == onnx::TensorProto::DOUBLE) {
    // Exporters write Python floats as DOUBLE scalars, cast to FLOAT at
    // once (1 / sqrt(head_dim)): folded there, exactly; read as data it
    // becomes an f64 constant (NodeImporter::value).
    n.defineDoubleConstant(0, t);
    return Value();
  }
  if (isNarrowType(t.data_type()))
    return narrowConstant(n, t);
  if (t.data_type() != onnx::TensorProto::FLOAT) {
    n.error() << "attribute 'value' of type " << dataTypeName(t.data_type())
              << " is not supported (FLOAT, DOUBLE, FLOAT16, BFLOAT16, "
                 "INT64, INT32, INT16, INT8, BOOL)";
    return failure();
  }
  return n.floatConstant(f32Tensor(n.b.getContext(), t), readFloats(t));
}

FailureOr<Value> importConstantOfShape(NodeImporter &n) {
  // An int64/bool value of a known shape was folded already; here the value
  // is float, or the shape reads the dynamic batch.
  float value = 0.0f;
  std::optional<IntConstant> intValue;
  if (const onnx::AttributeProto *a = n.attr("value")) {
    int32_t type = a->has_t() ? a->t().data_type() : -1;
    bool isInt = type == onnx::TensorProto::INT64 ||
                 type == onnx::TensorProto::INT32 ||
                 type == onnx::TensorProto::BOOL;
    if (type != onnx::TensorProto::FLOAT && !isInt) {
      n.error() << "attribute 'value' must be a float, int64 or bool tensor";
      return failure();
    }
    const onnx::TensorProto *t = n.withValues(a->t());
    if (!t)
      return failure();
    size_t count;
    if (isInt) {
      intValue = readInts(*t);
      count = intValue->values.size();
    } else {
      std::vector<float> v = readFloats(*t);
      count = v.size();
      if (count == 1)
        value = v[0];
    }
    if (count != 1) {
      n.error() << "attribute 'value' must hold one value";
      return failure();
    }
  }
  // A shape that reads the dynamic batch (HF's default attention mask and
  // token types, an RNN's h0): the scalar expanded to the shape read at run
  // time.
  if (auto rt = n.runTimeShape(0)) {
    auto &[target, sizes] = *rt;
    if (llvm::any_of(target, [](int64_t d) { return d < -1; })) {
      n.error() << "negative dim in the shape";
      return failure();
    }
    DenseElementsAttr attr;
    if (!intValue)
      attr = DenseElementsAttr::get(RankedTensorType::get({}, n.b.getF32Type()),
                                    value);
    else if (intValue->isBool)
      attr = DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI1Type()),
                                    static_cast<bool>(intValue->values[0]));
    else if (intValue->isInt32)
      attr = DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI32Type()),
                                    static_cast<int32_t>(intValue->values[0]));
    else
      attr = DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI64Type()),
                                    intValue->values[0]);
    Value scalar = arith::ConstantOp::create(n.b, n.loc(), attr);
    return n.build<nn::ExpandOp>(
        {scalar, sizes},
        {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(target))});
  }
  FailureOr<std::vector<int64_t>> shape = n.constInput(0, "shape");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; })) {
    n.error() << "negative dim in the shape";
    return failure();
  }
  if (intValue) { // folded unless the shape is unknown: never a float here
    n.error() << "an int64/bool value needs a shape known at import";
    return failure();
  }
  auto type = RankedTensorType::get(
      SmallVector<int64_t>(shape->begin(), shape->end()), n.b.getF32Type());
  return arith::ConstantOp::create(n.b, n.loc(),
                                   DenseElementsAttr::get(type, value))
      .getResult();
}

/// Range of int64/int32 scalars one of which is known only at run time
/// (`torch.arange(batch)`): nn.range, the constants among them
/// materialized.
FailureOr<Value> runTimeRange(NodeImporter &n) {
  SmallVector<Value> operands;
  Type elem;
  for (int i = 0; i < 3; ++i) {
    std::optional<Value> v = n.runTimeValue(i);
    const IntConstant *c = n.intConstant(i);
    if (!v && c && !c->hasUnknown() && c->values.size() == 1 && !c->isBool) {
      auto t = RankedTensorType::get({}, c->isInt32 ? n.b.getI32Type()
                                                    : n.b.getI64Type());
      v = c->isInt32
              ? arith::ConstantOp::create(
                    n.b, n.loc(),
                    DenseElementsAttr::get(t,
                                           static_cast<int32_t>(c->values[0])))
                    .getResult()
              : arith::ConstantOp::create(
                    n.b, n.loc(), DenseElementsAttr::get(t, c->values[0]))
                    .getResult();
    }
    auto t = v ? dyn_cast<RankedTensorType>(v->getType()) : RankedTensorType();
    if (!t || t.getNumElements() != 1 ||
        !(t.getElementType().isSignlessInteger(64) ||
          t.getElementType().isSignlessInteger(32)) ||
        (elem && t.getElementType() != elem)) {
      n.error() << "input " << i
                << " must be an int64 or int32 scalar like the others";
      return failure();
    }
    elem = t.getElementType();
    if (t.getRank() != 0) // a 1-element vector, as exporters sometimes give
      v = tensor::CollapseShapeOp::create(n.b, n.loc(),
                                          RankedTensorType::get({}, elem), *v,
                                          ArrayRef<ReassociationIndices>{});
    operands.push_back(*v);
  }
  return n.build<nn::RangeOp>(operands, {});
}

FailureOr<Value> importRange(NodeImporter &n) {
  for (int i = 0; i < 3; ++i)
    if (const IntConstant *c = n.intConstant(i); c && c->hasUnknown())
      return runTimeRange(n);
  // Int64 ranges were folded already; a float one needs constant scalars.
  double args[3];
  for (int i = 0; i < 3; ++i) {
    FailureOr<Value> v = n.operand(i);
    if (failed(v))
      return failure();
    DenseElementsAttr attr;
    if (!matchPattern(*v, m_Constant(&attr)) || attr.getNumElements() != 1 ||
        !attr.getElementType().isF32()) {
      n.error() << "input " << i
                << " must be a constant scalar (float32 or int64)";
      return failure();
    }
    args[i] = (*attr.getValues<float>().begin());
  }
  if (args[2] == 0) {
    n.error() << "delta is 0";
    return failure();
  }
  int64_t count =
      std::max<int64_t>((int64_t)std::ceil((args[1] - args[0]) / args[2]), 0);
  std::vector<float> data;
  for (int64_t i = 0; i < count; ++i)
    data.push_back(float(args[0] + i * args[2]));
  auto type = RankedTensorType::get({count}, n.b.getF32Type());
  return arith::ConstantOp::create(
             n.b, n.loc(), DenseElementsAttr::get(type, ArrayRef<float>(data)))
      .getResult();
}

} // namespace

void registerConstantOps(OpRegistry &r) {
  r.add({"Constant",
         7,
         {"value", "value_int", "value_ints", "value_float", "value_floats"},
         importConstant,
         {},
         {"", "`arith.constant`", "—",
          "`value` tensor of float, double, float16, bfloat16, int64, "
          "int32, int16, int8 or bool (unsigned types are errors); a double "
          "that a Cast to FLOAT reads is folded (rounded as the Cast would; "
          "exporters write Python floats so), one read as data is an f64 "
          "constant; "
          "`value_int`, `value_ints`, `value_float`, `value_floats` (opset "
          "12+); `sparse_value` and the string forms are errors"}});
  r.add({"ConstantOfShape",
         9,
         {"value"},
         importConstantOfShape,
         {fold::constantOfShape, 1},
         {"", "`arith.constant`, `nn.expand`", "—",
          "constant int64 `shape` input. An int64/bool `value` gives an "
          "int64/bool constant (folded further); a float `value` (default "
          "0.0) an `arith.constant` float tensor (not a parameter). A shape "
          "that reads the dynamic batch (HF's default attention mask and "
          "token types) gives the value expanded to it at run time "
          "(`nn.expand`)"}});
  r.add({"Range",
         11,
         {},
         importRange,
         {fold::range, 1, 0, false, /*paramsAtRunTime=*/true},
         {"", "`arith.constant`, `nn.range`", "—",
          "constant scalar inputs. Int64: an int64 constant (e.g. position "
          "ids, read as data by Gather); float32: an `arith.constant` "
          "tensor. Int64/int32 inputs that read the dynamic batch "
          "(`torch.arange(batch)`) are computed at run time (`nn.range`)"}});
}

} // namespace autodist::detail
