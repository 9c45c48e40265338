//===- LinalgToBlas.cpp - contractions on memrefs to GEMM calls -----------===//
//
// Contractions go to a tuned library (docs/abi.md: autodist_rt_sgemm, backed
// by OpenBLAS; autodist_rt_gemm_bf16/f16 for --precision's 16-bit operands,
// accumulated in f32; with a bias row, autodist_rt_sgemm_bias and
// gemm_bias_bf16/f16, where the target's GEMM adds it in its epilogue). Any
// linalg contraction (linalg.matmul, linalg.contract,
// batched or broadcast forms) is split into one GEMM over an (m, n, k) triple
// of its dims and loops over all other dims; transposes are read off the
// indexing maps.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "autodist/runtime/AbiNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace autodist {
#define GEN_PASS_DEF_CONVERTLINALGTOBLAS
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// A rank-2 memref of `element`s of fully dynamic shape and strides.
MemRefType stridedMatrixType(Type element) {
  MLIRContext *ctx = element.getContext();
  int64_t dyn = ShapedType::kDynamic;
  return MemRefType::get({dyn, dyn}, element,
                         StridedLayoutAttr::get(ctx, dyn, {dyn, dyn}));
}

/// The runtime's GEMM for A and B of element type `ab` (C is f32): sgemm,
/// or the 16-bit GEMMs of --precision=bf16|fp16 (f32 accumulation).
StringRef gemmFunction(Type ab) {
  if (ab.isBF16())
    return abi::kGemmBf16;
  if (ab.isF16())
    return abi::kGemmF16;
  return abi::kSgemm;
}

/// The same with a bias row: C = alpha op(A) op(B) + bias.
StringRef gemmBiasFunction(Type ab) {
  if (ab.isBF16())
    return abi::kGemmBiasBf16;
  if (ab.isF16())
    return abi::kGemmBiasF16;
  return abi::kSgemmBias;
}

/// A rank-1 f32 memref of dynamic size and stride.
MemRefType stridedVectorType(MLIRContext *ctx) {
  int64_t dyn = ShapedType::kDynamic;
  return MemRefType::get({dyn}, Float32Type::get(ctx),
                         StridedLayoutAttr::get(ctx, dyn, {dyn}));
}

/// The runtime's GEMM: (A, B, C, transA, transB, alpha, beta), or with
/// `bias` (A, B, bias, C, transA, transB, alpha).
func::FuncOp declareGemm(ModuleOp module, Type ab, bool bias) {
  StringRef name = bias ? gemmBiasFunction(ab) : gemmFunction(ab);
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  MemRefType m = stridedMatrixType(ab);
  MemRefType c = stridedMatrixType(b.getF32Type());
  SmallVector<Type> args = {
      m, m, c, b.getI32Type(), b.getI32Type(), b.getF32Type(), b.getF32Type()};
  if (bias) {
    args.insert(args.begin() + 2, stridedVectorType(b.getContext()));
    args.pop_back(); // no beta: the bias is C's initial value
  }
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                b.getFunctionType(args, {}));
  f.setPrivate();
  f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return f;
}

/// Position of loop dim `dim` among the results of `map`, or -1.
int64_t positionIn(AffineMap map, unsigned dim) {
  std::optional<unsigned> pos =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  return pos ? static_cast<int64_t>(*pos) : -1;
}

/// Of the loop dims `candidates`, the one read innermost through `map`
/// (so that the GEMM's operands keep unit inner strides where the layout
/// is row-major); nullopt if there is none.
std::optional<unsigned> innermost(ArrayRef<unsigned> candidates,
                                  AffineMap map) {
  std::optional<unsigned> best;
  for (unsigned d : candidates)
    if (!best || positionIn(map, d) > positionIn(map, *best))
      best = d;
  return best;
}

/// The GEMM of one contraction: C's row and column dims, the reduced dim,
/// and which input supplies the rows.
struct GemmDims {
  unsigned row, col, k;
  unsigned rowOperand; // 0 (A) or 1 (B); the other supplies the columns
};

/// The element type of A and B when `op`'s memref operands are f32, or
/// both bf16 or both f16 with an f32 C; else null.
Type gemmOperandType(linalg::LinalgOp op) {
  if (op->getNumOperands() != 3)
    return Type();
  SmallVector<Type> e;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<MemRefType>(v.getType());
    if (!t)
      return Type();
    e.push_back(t.getElementType());
  }
  if (!e[2].isF32() || e[0] != e[1] ||
      !(e[0].isF32() || e[0].isBF16() || e[0].isF16()))
    return Type();
  return e[0];
}

/// Picks the GEMM dims of a contraction with f32 (or 16-bit float A and B)
/// memref operands and projected-permutation maps; nullopt if it has no m,
/// n or k dim.
std::optional<GemmDims> pickGemmDims(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  if (!gemmOperandType(op))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps,
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  std::optional<unsigned> m = innermost(dims->m, maps[2]);
  std::optional<unsigned> n = innermost(dims->n, maps[2]);
  std::optional<unsigned> k = innermost(dims->k, maps[0]);
  if (!m || !n || !k)
    return std::nullopt;
  // C's rows are whichever of m and n it lists first.
  if (positionIn(maps[2], *m) < positionIn(maps[2], *n))
    return GemmDims{*m, *n, *k, 0};
  return GemmDims{*n, *m, *k, 1};
}

/// The 2-D view of `operand` (read through `map`) at the loop indices
/// `ivs` (null for the GEMM's dims), cast to the runtime's matrix type.
Value matrixView(OpBuilder &b, Location loc, Value operand, AffineMap map,
                 ArrayRef<Value> ivs) {
  auto type = cast<MemRefType>(operand.getType());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    Value iv = ivs[map.getDimPosition(i)];
    strides.push_back(b.getIndexAttr(1));
    if (iv) {
      offsets.push_back(iv);
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(memref::getMixedSize(b, loc, operand, i));
    shape.push_back(type.getDimSize(i));
  }
  Value view = operand;
  if (static_cast<int64_t>(shape.size()) != type.getRank()) {
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, sizes, strides);
    view = memref::SubViewOp::create(b, loc, viewType, operand, offsets, sizes,
                                     strides);
  }
  return memref::CastOp::create(b, loc,
                                stridedMatrixType(type.getElementType()), view);
}

/// Whether `v` is the f32 constant 0.
bool isZero(Value v) {
  FloatAttr f;
  return matchPattern(v, m_Constant(&f)) && f.getValue().isZero();
}

/// The last op before `op` in its block that may write memory (views,
/// casts and allocations do not), or null.
Operation *previousWriter(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(prev) ||
        isMemoryEffectFree(prev))
      continue;
    return prev;
  }
  return nullptr;
}

/// Whether the buffer `src` holds zeros when `copy` reads it: its only
/// writer is a linalg.fill with 0 before `copy` in the same block, and it is
/// read only by copies.
bool holdsZeros(Value src, memref::CopyOp copy) {
  linalg::FillOp fill;
  for (Operation *user : src.getUsers()) {
    if (auto f = dyn_cast<linalg::FillOp>(user)) {
      if (fill || f->getBlock() != copy->getBlock() ||
          !f->isBeforeInBlock(copy) || !isZero(f.getInputs()[0]))
        return false;
      fill = f;
      continue;
    }
    auto c = dyn_cast<memref::CopyOp>(user);
    if (!c || c.getSource() != src)
      return false;
  }
  return static_cast<bool>(fill);
}

/// Whether the sgemm calls of `op` may ignore C's prior contents (BLAS beta
/// = 0): every loop around them is a dim of C (each element is written by
/// one call) and the write into C just before `op` is a fill with 0, or a
/// copy of a buffer that holds zeros. That fill or copy is erased (the
/// calls overwrite all of C).
bool overwritesZeroInit(linalg::LinalgOp op, const GemmDims &g) {
  AffineMap cMap = op.getIndexingMapsArray()[2];
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (d != g.row && d != g.col && d != g.k && positionIn(cMap, d) < 0)
      return false;
  Value c = op->getOperand(2);
  Operation *prev = previousWriter(op);
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
      fill && fill.getOutputs()[0] == c && isZero(fill.getInputs()[0])) {
    fill.erase();
    return true;
  }
  auto copy = dyn_cast_or_null<memref::CopyOp>(prev);
  if (!copy || copy.getTarget() != c || !holdsZeros(copy.getSource(), copy))
    return false;
  Value src = copy.getSource();
  copy.erase();
  // A fill that no copy reads any more is dead.
  if (llvm::all_of(src.getUsers(),
                   [](Operation *u) { return isa<linalg::FillOp>(u); }))
    for (Operation *u : llvm::make_early_inc_range(src.getUsers()))
      u->erase();
  return true;
}

/// The linalg.generic that is the last write into `op`'s C before it when
/// it copies a 1-D f32 vector into every row of C (a Gemm's bias, as
/// convert-nn-to-linalg broadcasts it) and `op` is a single 2-D GEMM whose
/// columns are C's; else null.
linalg::GenericOp biasBroadcast(linalg::LinalgOp op, const GemmDims &g) {
  if (op.getNumLoops() != 3 ||
      positionIn(op.getIndexingMapsArray()[2], g.col) != 1)
    return {};
  auto gen = dyn_cast_or_null<linalg::GenericOp>(previousWriter(op));
  if (!gen || gen.getNumDpsInputs() != 1 || gen.getNumDpsInits() != 1 ||
      gen.getDpsInits()[0] != op->getOperand(2) || gen.getNumLoops() != 2 ||
      gen.getNumParallelLoops() != 2)
    return {};
  auto bias = dyn_cast<MemRefType>(gen.getDpsInputs()[0].getType());
  if (!bias || bias.getRank() != 1 || !bias.getElementType().isF32())
    return {};
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  if (!maps[1].isIdentity() ||
      maps[0] != AffineMap::get(2, 0, getAffineDimExpr(1, ctx)))
    return {};
  // The body only yields the bias element.
  Block &body = gen.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || &body.front() != yield.getOperation() ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != body.getArgument(0))
    return {};
  return gen;
}

/// Rewrites contraction `op` to `C += op(X) op(Y)` (`C = ...` over a zero
/// init) sgemm calls, one per
/// point of its non-GEMM dims (scf.for loops); leaves contractions it
/// cannot map (other element types, constant indices) to the loop lowering.
void rewriteContraction(ModuleOp module, linalg::LinalgOp op,
                        bool biasEpilogue) {
  std::optional<GemmDims> g = pickGemmDims(op);
  if (!g)
    return;
  linalg::GenericOp bias = biasEpilogue ? biasBroadcast(op, *g) : nullptr;
  bool zeroInit = !bias && overwritesZeroInit(op, *g);
  IRRewriter b(op);
  Location loc = op.getLoc();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Range> ranges = op.createLoopRanges(b, loc);
  SmallVector<Value> ivs(ranges.size());
  // One loop per dim that is not the GEMM's, outermost first.
  for (unsigned d = 0; d < ranges.size(); ++d) {
    if (d == g->row || d == g->col || d == g->k)
      continue;
    Value lb = getValueOrCreateConstantIndexOp(b, loc, ranges[d].offset);
    Value ub = getValueOrCreateConstantIndexOp(b, loc, ranges[d].size);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, lb, ub, step);
    ivs[d] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  unsigned xi = g->rowOperand, yi = 1 - g->rowOperand;
  Value x = matrixView(b, loc, op->getOperand(xi), maps[xi], ivs);
  Value y = matrixView(b, loc, op->getOperand(yi), maps[yi], ivs);
  Value c = matrixView(b, loc, op->getOperand(2), maps[2], ivs);
  // X is read as [row, k] unless it lists k first; Y as [k, col].
  bool tX = positionIn(maps[xi], g->k) < positionIn(maps[xi], g->row);
  bool tY = positionIn(maps[yi], g->col) < positionIn(maps[yi], g->k);
  SmallVector<Value> args = {x, y, c};
  if (bias)
    args.insert(args.begin() + 2, memref::CastOp::create(
                                      b, loc, stridedVectorType(b.getContext()),
                                      bias.getDpsInputs()[0]));
  args.push_back(arith::ConstantIntOp::create(b, loc, tX ? 1 : 0, 32));
  args.push_back(arith::ConstantIntOp::create(b, loc, tY ? 1 : 0, 32));
  args.push_back(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)));
  if (!bias)
    args.push_back(arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(zeroInit ? 0.0f : 1.0f)));
  func::CallOp::create(
      b, loc, declareGemm(module, gemmOperandType(op), bias != nullptr), args);
  b.eraseOp(op);
  // The call writes C's bias rows itself.
  if (bias)
    b.eraseOp(bias);
}

struct ConvertLinalgToBlasPass
    : public autodist::impl::ConvertLinalgToBlasBase<ConvertLinalgToBlasPass> {
  using ConvertLinalgToBlasBase::ConvertLinalgToBlasBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      rewriteContraction(module, op, biasEpilogue);
  }
};

} // namespace
