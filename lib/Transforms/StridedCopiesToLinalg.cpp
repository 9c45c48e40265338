//===- StridedCopiesToLinalg.cpp - strided memref.copy as linalg.copy -----===//
//
// A memref.copy that is not a plain memcpy lowers to a call of the generic
// runtime function memrefCopy, which computes every element's address with
// a loop over the rank. As a linalg.copy it becomes loops specialized to
// the shapes and strides, which LLVM vectorizes.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_STRIDEDCOPIESTOLINALG
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

/// Whether `type` is copied by memcpy when lowered to LLVM (an identity
/// layout, or strides that are contiguous row-major).
bool isCopiedByMemcpy(MemRefType type) {
  return type.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(type);
}

/// Whether `copy` lowers to the generic runtime copy: a ranked copy where a
/// side is not contiguous.
bool needsRuntimeCopy(memref::CopyOp copy) {
  auto source = dyn_cast<MemRefType>(copy.getSource().getType());
  auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
  if (!source || !target || source.getRank() == 0)
    return false;
  return !isCopiedByMemcpy(source) || !isCopiedByMemcpy(target);
}

struct StridedCopiesToLinalgPass
    : public autodist::impl::StridedCopiesToLinalgBase<
          StridedCopiesToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      if ((allCopies && source) || needsRuntimeCopy(copy))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
