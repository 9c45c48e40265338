//===- SplitPowerSGD.cpp - one all-reduce per PowerSGD matrix -------------===//
//
// A `dist.all_reduce` with compressor `powersgd` becomes one such
// all-reduce per operand of rank >= 2 (PowerSGD's matrices, each with its
// own factors and state) and one uncompressed all-reduce of the rest.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_SPLITPOWERSGD
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// An all-reduce like `ar` (kind, group) of `inputs`, compressed by PowerSGD
/// of `ar`'s rank or not at all.
dist::AllReduceOp reduceLike(OpBuilder &b, dist::AllReduceOp ar,
                             ValueRange inputs, bool powerSGD) {
  auto r = dist::AllReduceOp::create(b, ar.getLoc(), inputs, ValueRange{},
                                     ar.getKind(), ar.getGroup());
  if (powerSGD) {
    r.setCompressor(dist::Compressor::PowerSGD);
    r.setPowersgdRank(ar.getPowersgdRank());
  }
  return r;
}

/// Replaces the PowerSGD bucket `ar` by its matrices' own all-reduces and
/// one uncompressed all-reduce of its other operands.
void split(dist::AllReduceOp ar) {
  IRRewriter b(ar);
  SmallVector<Value> results(ar.getNumResults());
  SmallVector<Value> plain;
  SmallVector<unsigned> plainAt;
  for (auto [i, v] : llvm::enumerate(ar.getInputs())) {
    if (cast<RankedTensorType>(v.getType()).getRank() >= 2) {
      results[i] = reduceLike(b, ar, v, /*powerSGD=*/true).getResult(0);
      continue;
    }
    plain.push_back(v);
    plainAt.push_back(i);
  }
  if (!plain.empty()) {
    dist::AllReduceOp rest = reduceLike(b, ar, plain, /*powerSGD=*/false);
    for (auto [at, r] : llvm::zip(plainAt, rest.getResults()))
      results[at] = r;
  }
  b.replaceOp(ar, results);
}

struct SplitPowerSGDPass
    : public autodist::impl::SplitPowerSGDBase<SplitPowerSGDPass> {
  void runOnOperation() override {
    SmallVector<dist::AllReduceOp> buckets;
    getOperation().walk([&](dist::AllReduceOp ar) {
      if (ar.getCompressor() == dist::Compressor::PowerSGD &&
          (ar.getInputs().size() > 1 ||
           cast<RankedTensorType>(ar.getInputs().front().getType()).getRank() <
               2))
        buckets.push_back(ar);
    });
    for (dist::AllReduceOp ar : buckets)
      split(ar);
  }
};

} // namespace
