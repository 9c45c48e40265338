//===- SplitBuckets.cpp - size-capped all-reduce buckets ------------------===//
//
// Splits every `dist.all_reduce` whose bucket is larger than `bucket-bytes`
// into consecutive size-capped buckets, filled in reverse order of
// computation (the last gradient of the backward pass, i.e. of the first
// layers of the forward pass, goes last), each placed right after the last
// of its values is computed. The lowering starts each bucket's collective
// there, so the buckets computed first travel while the backward pass goes
// on (dist-overlap-collectives).
//
//===----------------------------------------------------------------------===//

#include "BucketPlacement.h"
#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace autodist {
#define GEN_PASS_DEF_SPLITBUCKETS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// The bytes of tensor `v` (static shape, checked by the verifier of
/// dist.all_reduce's lowering; a dynamic shape counts as 0).
int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.hasStaticShape())
    return 0;
  return t.getNumElements() * t.getElementTypeBitWidth() / 8;
}

/// The operand indices of `ar`, last computed first, cut into consecutive
/// runs of at most `cap` bytes (a larger tensor alone in its run).
SmallVector<SmallVector<unsigned>> planBuckets(dist::AllReduceOp ar,
                                               int64_t cap) {
  Block *block = ar->getBlock();
  SmallVector<unsigned> order =
      llvm::to_vector(llvm::seq<unsigned>(0, ar.getInputs().size()));
  SmallVector<Operation *> defs;
  for (Value v : ar.getInputs())
    defs.push_back(definingOpIn(block, v));
  llvm::stable_sort(order, [&](unsigned x, unsigned y) {
    return computedAfter(defs[x], defs[y]);
  });
  SmallVector<SmallVector<unsigned>> buckets;
  int64_t bytes = 0;
  for (unsigned i : order) {
    int64_t b = bytesOf(ar.getInputs()[i]);
    if (buckets.empty() || bytes + b > cap) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(i);
    bytes += b;
  }
  return buckets;
}

/// Replaces `ar` by one all-reduce per bucket of `plan`, each placed right
/// after the last of its values is computed.
void splitAllReduce(dist::AllReduceOp ar,
                    ArrayRef<SmallVector<unsigned>> plan) {
  Block *block = ar->getBlock();
  OpBuilder b(ar);
  SmallVector<Value> replacements(ar.getNumResults());
  for (ArrayRef<unsigned> bucket : plan) {
    SmallVector<Value> values;
    for (unsigned i : bucket)
      values.push_back(ar.getInputs()[i]);
    Operation *last = lastComputedIn(block, values);
    if (last)
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPoint(ar);
    auto part = dist::AllReduceOp::create(b, ar.getLoc(), values, ValueRange{},
                                          ar.getKind(), ar.getGroup());
    for (auto [i, r] : llvm::zip(bucket, part.getResults()))
      replacements[i] = r;
  }
  ar->replaceAllUsesWith(replacements);
  ar->erase();
}

struct SplitBucketsPass
    : public autodist::impl::SplitBucketsBase<SplitBucketsPass> {
  using SplitBucketsBase::SplitBucketsBase;

  void runOnOperation() override {
    if (bucketBytes <= 0)
      return;
    SmallVector<dist::AllReduceOp> ars;
    getOperation().walk([&](dist::AllReduceOp ar) { ars.push_back(ar); });
    for (dist::AllReduceOp ar : ars) {
      // A compressed bucket keeps its shape: its state across steps
      // (residuals, PowerSGD's Q; dist-compressor-state) is per all-reduce.
      if (ar.getCompressor() != dist::Compressor::None)
        continue;
      SmallVector<SmallVector<unsigned>> plan = planBuckets(ar, bucketBytes);
      if (plan.size() > 1)
        splitAllReduce(ar, plan);
    }
  }
};

} // namespace
