//===- BucketPlacement.h - where a bucket of values can go ------*- C++ -*-===//
//
// A collective over a bucket of values goes right after the last of them is
// computed, so that it can travel while the rest of the step computes
// (dist-overlap-collectives): dist-split-buckets places its buckets so, and
// dist-staleness-pipeline the synchronous rest of a bucket.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_TRANSFORMS_BUCKETPLACEMENT_H
#define AUTODIST_TRANSFORMS_BUCKETPLACEMENT_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

namespace autodist {

/// The operation of `block` that computes `v`, or null for a value from
/// outside the block (an argument, or defined above).
inline mlir::Operation *definingOpIn(mlir::Block *block, mlir::Value v) {
  mlir::Operation *def = v.getDefiningOp();
  return def ? block->findAncestorOpInBlock(*def) : nullptr;
}

/// Whether `a` is computed after `b` in their block (null: before
/// everything).
inline bool computedAfter(mlir::Operation *a, mlir::Operation *b) {
  return a && (!b || b->isBeforeInBlock(a));
}

/// The operation of `block` that computes the last of `values`, or null when
/// none is computed in it.
inline mlir::Operation *lastComputedIn(mlir::Block *block,
                                       mlir::ValueRange values) {
  mlir::Operation *last = nullptr;
  for (mlir::Value v : values)
    if (mlir::Operation *def = definingOpIn(block, v); computedAfter(def, last))
      last = def;
  return last;
}

} // namespace autodist

#endif // AUTODIST_TRANSFORMS_BUCKETPLACEMENT_H
