// --webnn-fuse-rotary: rotary position embeddings as PyTorch exports them
// into webnn.rotaryEmbedding (docs/LLM.md):
//
//   rotate-half:  rot = concat(neg(x[..., D/2:]), x[..., :D/2])         (Llama, Mistral, Qwen)
//   interleaved:  rot = reshape(concat(neg(x[..., 1::2]) [.., D/2, 1],
//                                      x[..., 0::2] [.., D/2, 1], last), [.., D])   (GPT-J)
//   y = x * cos + rot * sin        (operands in either order)
//
// cos and sin broadcast over x ([1|B, 1, S, D] for a [B, N, S, D] x,
// [1|B, S, 1, D] for [B, S, N, D], [1|B, S, D] for [B, S, D]) and are either
// constants whose halves (rotate-half) or pairs (interleaved) hold equal
// angles, as HF's cat(freqs, freqs) / repeat_interleave make them, or (rotate-
// half) cos/sin(concat(f, f)) computed at run time from position ids. They
// become [rows, D/2] caches (constants, or cos/sin(f)); positions are 0, 1, .. per batch entry (positionIds
// [1] = 0) when the table has one batch row and S rows, else an explicit
// [B, S] table of row indices.
#include <functional>

#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSEROTARY
#include "compiler/transforms/Passes.h.inc"

namespace {

struct RotaryCounters {
  int64_t rotaries = 0, opsReplaced = 0;
};

// A slice of x along the last axis only: *start, *size (elements kept, after
// the stride: WebNN's sizes are the window's extent), *stride.
bool lastAxisSlice(SliceOp slice, int64_t *start, int64_t *size, int64_t *stride) {
  auto in = cast<RankedTensorType>(slice.getInput().getType());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> starts = slice.getStarts(), sizes = slice.getSizes();
  SmallVector<int64_t> strides(rank, 1);
  if (std::optional<ArrayRef<int64_t>> s = slice.getStrides()) strides.assign(s->begin(), s->end());
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (starts[d] != 0 || sizes[d] != in.getDimSize(d) || strides[d] != 1) return false;
  *start = starts.back();
  *size = cast<RankedTensorType>(slice.getType()).getShape().back();
  *stride = strides.back();
  return true;
}

// Strips single-use reshapes and one neg from `v`; the slice beneath, or null.
SliceOp peelToSlice(Value v, bool *negated, SmallVectorImpl<Operation *> &ops) {
  *negated = false;
  while (Operation *op = v.getDefiningOp()) {
    if (!op->hasOneUse()) return nullptr;
    if (auto slice = dyn_cast<SliceOp>(op)) {
      ops.push_back(op);
      return slice;
    }
    if (isa<ReshapeOp>(op)) {
      v = op->getOperand(0);
    } else if (isa<NegOp>(op) && !*negated) {
      *negated = true;
      v = op->getOperand(0);
    } else {
      return nullptr;
    }
    ops.push_back(op);
  }
  return nullptr;
}

// rot -> x with *interleaved set, or null. The slices may have other uses
// (none here); the rest of the chain must be single-use.
Value rotatedSource(Value rot, bool *interleaved, SmallVectorImpl<Operation *> &ops) {
  auto rotType = cast<RankedTensorType>(rot.getType());
  int64_t rank = rotType.getRank();
  if (rank < 1) return Value();  // a scalar factor (baddbmm's alpha and beta) has no last axis
  int64_t D = rotType.getShape().back();
  Value concatValue = rot;
  *interleaved = false;
  if (auto reshape = rot.getDefiningOp<ReshapeOp>()) {
    if (!reshape->hasOneUse()) return Value();
    ops.push_back(reshape);
    concatValue = reshape.getInput();
    *interleaved = true;
  }
  auto concat = concatValue.getDefiningOp<ConcatOp>();
  if (!concat || !concat->hasOneUse() || concat.getInputs().size() != 2) return Value();
  auto concatType = cast<RankedTensorType>(concat.getType());
  int64_t axis = concat.getAxis();
  if (axis != concatType.getRank() - 1) return Value();
  ops.push_back(concat);
  bool neg0 = false, neg1 = false;
  SliceOp s0 = peelToSlice(concat.getInputs()[0], &neg0, ops);
  SliceOp s1 = peelToSlice(concat.getInputs()[1], &neg1, ops);
  if (!s0 || !s1 || !neg0 || neg1 || s0.getInput() != s1.getInput()) return Value();
  Value x = s0.getInput();
  if (x.getType() != rot.getType()) return Value();
  int64_t a0, n0, t0, a1, n1, t1;
  if (!lastAxisSlice(s0, &a0, &n0, &t0) || !lastAxisSlice(s1, &a1, &n1, &t1) || D % 2 != 0) return Value();
  if (!*interleaved) {
    // concat(-x[D/2:], x[:D/2]) on the same shape.
    if (concatType != rotType || t0 != 1 || t1 != 1 || a0 != D / 2 || n0 != D / 2 || a1 != 0 || n1 != D / 2)
      return Value();
  } else {
    // [.., D/2, 2] = concat([.., D/2, 1] of -x[1::2], [.., D/2, 1] of x[0::2]) -> [.., D].
    SmallVector<int64_t> want(rotType.getShape().take_front(rank - 1));
    want.append({D / 2, 2});
    if (concatType.getShape() != ArrayRef<int64_t>(want) || t0 != 2 || t1 != 2 || a0 != 1 || a1 != 0 ||
        n0 != D / 2 || n1 != D / 2)
      return Value();
  }
  return x;
}

// cos or sin (OpTy) of concat(f, f) along the last axis, under reshapes
// (HF's emb.cos()[:, None]) -> f, else null.
template <typename OpTy>
Value doubledAngles(Value table) {
  while (auto reshape = table.getDefiningOp<ReshapeOp>()) table = reshape.getInput();
  auto trig = table.getDefiningOp<OpTy>();
  if (!trig) return Value();
  auto concat = trig.getInput().template getDefiningOp<ConcatOp>();
  if (!concat || concat.getInputs().size() != 2 || concat.getInputs()[0] != concat.getInputs()[1] ||
      concat.getAxis() != cast<RankedTensorType>(concat.getType()).getRank() - 1)
    return Value();
  return concat.getInputs()[0];
}

struct FuseRotary : OpRewritePattern<AddOp> {
  FuseRotary(MLIRContext *ctx, RotaryCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(AddOp root, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(root.getType());
    if (!type.hasStaticShape() || (type.getRank() != 3 && type.getRank() != 4))
      return rewriter.notifyMatchFailure(root, "not a static rank-3 or rank-4 tensor");
    for (Value rotSide : {root.getA(), root.getB()}) {
      auto rotMul = rotSide.getDefiningOp<MulOp>();
      auto cosMul = otherOperand(root, rotSide).getDefiningOp<MulOp>();
      if (!rotMul || !cosMul || rotMul == cosMul || !rotMul->hasOneUse() || !cosMul->hasOneUse()) continue;
      for (Value rot : {rotMul.getA(), rotMul.getB()}) {
        // rot has x's shape; the other factor (sin) may broadcast.
        if (rot.getType() != type) continue;
        SmallVector<Operation *> ops{root, rotMul, cosMul};
        bool interleaved = false;
        Value x = rotatedSource(rot, &interleaved, ops);
        if (!x || x.getType() != type) continue;
        Value sin = otherOperand(rotMul, rot);
        Value cos;
        if (cosMul.getA() == x) cos = cosMul.getB();
        else if (cosMul.getB() == x) cos = cosMul.getA();
        if (!cos) continue;
        if (succeeded(rewrite(root, x, cos, sin, interleaved, ops, rewriter))) return success();
      }
    }
    return rewriter.notifyMatchFailure(root, "not x * cos + rotate(x) * sin with constant cos/sin tables");
  }

  LogicalResult rewrite(AddOp root, Value x, Value cos, Value sin, bool interleaved, ArrayRef<Operation *> ops,
                        PatternRewriter &rewriter) const {
    auto type = cast<RankedTensorType>(x.getType());
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = type.getRank(), D = shape.back(), half = D / 2;
    auto cosType = cast<RankedTensorType>(cos.getType()), sinType = cast<RankedTensorType>(sin.getType());
    if (cosType.getShape() != sinType.getShape() || cosType.getRank() > rank || cosType.getRank() < 1 ||
        cosType.getShape().back() != D || cosType.getElementType() != type.getElementType() ||
        sinType.getElementType() != type.getElementType())
      return failure();
    SmallVector<int64_t> c(rank - cosType.getRank(), 1);
    c.append(cosType.getShape().begin(), cosType.getShape().end());
    // Which axes are batch, sequence and heads.
    int64_t seqAxis, headAxis = -1;
    if (rank == 3) {
      seqAxis = 1;
    } else if (c[1] == 1) {
      seqAxis = 2, headAxis = 1;  // [B, N, S, D]
    } else if (c[2] == 1) {
      seqAxis = 1, headAxis = 2;  // [B, S, N, D]
    } else {
      return failure();
    }
    int64_t B = shape[0], S = shape[seqAxis], cB = c[0], cS = c[seqAxis];
    if ((cB != 1 && cB != B) || (cS != 1 && cS != S) || (headAxis >= 0 && c[headAxis] != 1)) return failure();
    Type elem = type.getElementType();
    // The [rows, D/2] caches: from constant tables whose halves (pairs) hold
    // one angle, or, for tables computed at run time (position ids as a
    // graph input), from cos/sin(concat(f, f)) as HF's rotary computes
    // them: then the caches are cos/sin(f) and their halves agree by
    // construction.
    std::function<Value()> makeCos, makeSin;
    std::optional<SmallVector<double>> cosValues = floatConstantValues(cos);
    std::optional<SmallVector<double>> sinValues = floatConstantValues(sin);
    if (cosValues && sinValues) {
      SmallVector<double> cosCache, sinCache;
      for (int64_t row = 0; row < cB * cS; ++row)
        for (int64_t i = 0; i < half; ++i) {
          int64_t first = interleaved ? 2 * i : i, second = interleaved ? 2 * i + 1 : i + half;
          const double *cr = cosValues->data() + row * D, *sr = sinValues->data() + row * D;
          if (cr[first] != cr[second] || sr[first] != sr[second]) return failure();
          cosCache.push_back(cr[first]);
          sinCache.push_back(sr[first]);
        }
      makeCos = [&, cosCache] { return floatConstant(rewriter, root.getLoc(), {cB * cS, half}, elem, cosCache); };
      makeSin = [&, sinCache] { return floatConstant(rewriter, root.getLoc(), {cB * cS, half}, elem, sinCache); };
    } else {
      Value fCos = interleaved ? Value() : doubledAngles<CosOp>(cos);
      Value fSin = interleaved ? Value() : doubledAngles<SinOp>(sin);
      if (!fCos || fCos != fSin) return failure();
      makeCos = [&, fCos] {
        Value t = CosOp::create(rewriter, root.getLoc(), fCos).getResult();
        return reshapeTo(rewriter, root.getLoc(), t, {cB * cS, half});
      };
      makeSin = [&, fSin] {
        Value t = SinOp::create(rewriter, root.getLoc(), fSin).getResult();
        return reshapeTo(rewriter, root.getLoc(), t, {cB * cS, half});
      };
    }
    Location loc = root.getLoc();
    rewriter.setInsertionPoint(root);
    Value cosC = makeCos(), sinC = makeSin();
    Type i64 = rewriter.getI64Type();
    Value positions;
    if (cB == 1 && cS == S) {
      positions = intConstant(rewriter, loc, {1}, i64, {0});
    } else {
      SmallVector<int64_t> rows;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t s = 0; s < S; ++s) rows.push_back((cB > 1 ? b : 0) * cS + (cS > 1 ? s : 0));
      positions = intConstant(rewriter, loc, {B, S}, i64, rows);
    }
    Value input = x;
    IntegerAttr numHeads;
    if (headAxis == 2) {  // [B, S, N, D] -> [B, S, N * D]
      input = reshapeTo(rewriter, loc, x, {B, S, shape[2] * D});
      numHeads = rewriter.getI64IntegerAttr(shape[2]);
    } else if (rank == 3) {
      numHeads = rewriter.getI64IntegerAttr(1);
    }
    Value out = RotaryEmbeddingOp::create(rewriter, loc, input, positions, cosC, sinC,
                                          rewriter.getBoolAttr(interleaved), numHeads, IntegerAttr())
                    .getResult();
    out = reshapeTo(rewriter, loc, out, shape);
    rewriter.replaceOp(root, out);
    int64_t replaced = 1;
    for (Operation *op : ops.drop_front())
      if (op->use_empty()) {
        rewriter.eraseOp(op);
        ++replaced;
      }
    ++counters.rotaries;
    counters.opsReplaced += replaced;
    return success();
  }
  RotaryCounters &counters;
};

struct FuseRotaryPass : impl::WebNNFuseRotaryBase<FuseRotaryPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RotaryCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<FuseRotary>(ctx, counters);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numRotariesFused += counters.rotaries;
    numOpsReplaced += counters.opsReplaced;
    recordRewrites(ctx, getArgument(), "rotaries-fused", counters.rotaries);
    recordRewrites(ctx, getArgument(), "ops-replaced", counters.opsReplaced);
  }
};

}  // namespace
}  // namespace mlir::webnn
