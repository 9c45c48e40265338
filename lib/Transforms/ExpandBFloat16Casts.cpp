//===- ExpandBFloat16Casts.cpp - bf16 casts in integer arithmetic ---------===//
//
// The CPU target's bf16 conversions, expanded before LLVM: x86 LLVM lowers
// them to libgcc's __truncsfbf2, which libgcc 12 lacks. Only the bf16
// patterns of arith's expansion run, so f32 code is left as it is.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autodist {
#define GEN_PASS_DEF_EXPANDBFLOAT16CASTS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;

namespace {

struct ExpandBFloat16CastsPass
    : public autodist::impl::ExpandBFloat16CastsBase<ExpandBFloat16CastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
