//===- BuildChecked.h - build an op from its own type inference -*- C++ -*-===//
//
// The importer builds ops whose result types come from the ops' own
// inference. A bad shape or attribute must become one error naming the ONNX
// node, not an abort in the generated builder, so the op is created with
// placeholder types, asked for its types, and verified, with every message
// collected into one line.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_BUILDCHECKED_H
#define AUTODIST_LIB_IMPORT_BUILDCHECKED_H

#include "ValidateModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <string>

namespace autodist::detail {

/// What is wrong with the sizes of inferred result `types` (a shape from
/// the model's shape constants whose size overflows 64 bits, see
/// sizeFitsInt64), or "".
inline std::string overflowingResults(llvm::ArrayRef<mlir::Type> types) {
  for (auto [i, type] : llvm::enumerate(types)) {
    auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(type);
    if (ranked && !sizeFitsInt64(ranked.getShape()))
      return "result " + std::to_string(i) + " has shape " +
             shapeString(ranked.getShape()) + ", whose size overflows 64 bits";
  }
  return "";
}

/// Creates `OpTy` with `numResults` results typed by its own inference and
/// verifies it. On failure the op is erased, null is returned and
/// `messages` holds what inference and the verifier said ("; "-joined).
template <typename OpTy>
mlir::Operation *createInferredOp(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::ValueRange operands,
                                  llvm::ArrayRef<mlir::NamedAttribute> attrs,
                                  unsigned numResults, std::string &messages) {
  mlir::MLIRContext *ctx = b.getContext();
  mlir::LogicalResult ok = mlir::success();
  mlir::Operation *op = nullptr;
  {
    mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &diag) {
      if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
        return mlir::success();
      std::string msg = diag.str();
      // The verifier's restatement of an inference failure adds nothing.
      if (llvm::StringRef(msg).starts_with("'") &&
          llvm::StringRef(msg).contains("failed to infer returned types"))
        return mlir::success();
      if (!messages.empty())
        messages += "; ";
      messages += msg;
      return mlir::success();
    });
    mlir::OperationState state(loc, OpTy::getOperationName());
    state.addOperands(operands);
    state.addAttributes(attrs);
    for (unsigned i = 0; i < numResults; ++i)
      state.addTypes(b.getNoneType());
    op = b.create(state);
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(OpTy::inferReturnTypes(
            ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), types)) ||
        types.size() != numResults) {
      ok = mlir::failure();
    } else if (std::string sizes = overflowingResults(types); !sizes.empty()) {
      messages = sizes;
      ok = mlir::failure();
    } else {
      for (unsigned i = 0; i < numResults; ++i)
        op->getResult(i).setType(types[i]);
      ok = mlir::verify(op);
    }
  }
  if (mlir::failed(ok)) {
    op->erase();
    return nullptr;
  }
  return op;
}

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_BUILDCHECKED_H
