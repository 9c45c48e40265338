//===- MixedPrecision.cpp - matrix products on 16-bit float operands ------===//
//
// --precision=bf16|fp16: the operands of every f32 matrix product are
// rounded to a 16-bit float; the product stays f32 (nn.matmul/nn.gemm
// accept bf16/f16 operands with an f32 result). Each target maps such a
// product to its library (cuBLASLt's 16-bit GEMM, or the CPU runtime's,
// which widens the operands exactly and calls sgemm).
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {
#define GEN_PASS_DEF_MIXEDPRECISION
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Rounds f32 values to `type`, one nn.cast per value, placed right after
/// its definition so that every product reading it shares the cast.
class Rounder {
public:
  explicit Rounder(Type type) : type(type) {}

  Value round(Value v) {
    auto it = casts.find(v);
    if (it != casts.end())
      return it->second;
    OpBuilder b(v.getContext());
    if (auto arg = dyn_cast<BlockArgument>(v))
      b.setInsertionPointToStart(arg.getOwner());
    else
      b.setInsertionPointAfter(v.getDefiningOp());
    auto t = cast<RankedTensorType>(v.getType());
    Value c =
        nn::CastOp::create(b, v.getLoc(), t.clone(type), v, TypeAttr::get(type))
            .getResult();
    casts[v] = c;
    return c;
  }

private:
  Type type;
  DenseMap<Value, Value> casts;
};

/// Whether `op`'s operands `a` and `b` are f32 (a product to round).
bool isF32Product(Value a, Value b) {
  return cast<RankedTensorType>(a.getType()).getElementType().isF32() &&
         cast<RankedTensorType>(b.getType()).getElementType().isF32();
}

struct MixedPrecisionPass
    : public autodist::impl::MixedPrecisionBase<MixedPrecisionPass> {
  using MixedPrecisionBase::MixedPrecisionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Type type;
    if (precision == "bf16")
      type = BFloat16Type::get(ctx);
    else if (precision == "fp16" || precision == "f16")
      type = Float16Type::get(ctx);
    else {
      module.emitError("unsupported precision '")
          << precision << "' for nn-mixed-precision (supported: bf16, fp16)";
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      Rounder rounder(type);
      func.walk([&](Operation *op) {
        auto half = dyn_cast<nn::HalfOperandsOpInterface>(op);
        if (!half || !half.acceptsHalfOperands())
          return;
        Value a = op->getOperand(0), b = op->getOperand(1);
        if (!isF32Product(a, b))
          return;
        op->setOperand(0, rounder.round(a));
        op->setOperand(1, rounder.round(b));
      });
    }
  }
};

} // namespace
