// RUN: autodist-opt %s -split-input-file --autodist-bound-block-size=max-ops=2 | FileCheck %s
// RUN: not autodist-opt %s -split-input-file --autodist-bound-block-size=max-ops=0 2>&1 | FileCheck %s --check-prefix=ERR

// A block of 5 ops and a return is cut after every second op; the values
// defined in one piece are used in the next ones unchanged.
// CHECK-LABEL: func.func @long
// CHECK:      %[[A:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[A]], %[[A]] : i32
// CHECK-NEXT: cf.br ^[[BB1:.*]]
// CHECK:      ^[[BB1]]:
// CHECK-NEXT: %[[C:.*]] = arith.addi %[[B]], %[[A]] : i32
// CHECK-NEXT: %[[D:.*]] = arith.addi %[[C]], %[[B]] : i32
// CHECK-NEXT: cf.br ^[[BB2:.*]]
// CHECK:      ^[[BB2]]:
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[D]], %[[C]] : i32
// CHECK-NEXT: return %[[E]] : i32
// ERR: autodist-bound-block-size: max-ops must be at least 1, got 0
func.func @long() -> i32 {
  %a = arith.constant 1 : i32
  %b = arith.addi %a, %a : i32
  %c = arith.addi %b, %a : i32
  %d = arith.addi %c, %b : i32
  %e = arith.addi %d, %c : i32
  return %e : i32
}

// -----

// A block of max-ops ops before its terminator is not cut: the last piece
// would hold only the terminator.
// CHECK-LABEL: func.func @exact
// CHECK-NOT: cf.br
// CHECK: return
func.func @exact() -> i32 {
  %a = arith.constant 1 : i32
  %b = arith.addi %a, %a : i32
  return %b : i32
}

// -----

// Only long blocks are cut; a short block and its successors keep their
// arguments and branches.
// CHECK-LABEL: func.func @blocks
// CHECK:      cf.cond_br %{{.*}}, ^[[T:.*]](%{{.*}} : i32), ^[[T]](%{{.*}} : i32)
// CHECK:      ^[[T]](%[[X:.*]]: i32):
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[X]], %[[X]] : i32
// CHECK-NEXT: %[[Z:.*]] = arith.addi %[[Y]], %[[X]] : i32
// CHECK-NEXT: cf.br ^[[NEXT:.*]]
// CHECK:      ^[[NEXT]]:
// CHECK-NEXT: %{{.*}} = arith.addi %[[Z]], %[[Y]] : i32
// CHECK-NEXT: return
func.func @blocks(%p: i1, %v: i32, %w: i32) -> i32 {
  cf.cond_br %p, ^t(%v : i32), ^t(%w : i32)
^t(%x: i32):
  %y = arith.addi %x, %x : i32
  %z = arith.addi %y, %x : i32
  %r = arith.addi %z, %y : i32
  return %r : i32
}

// -----

// Declarations have no body to cut.
// CHECK-LABEL: func.func private @external
func.func private @external(i32) -> i32
