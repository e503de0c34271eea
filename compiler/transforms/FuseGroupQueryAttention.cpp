// --webnn-fuse-gqa: causal grouped-query attention as PyTorch exports a
// Llama-style prefill, into webnn.groupQueryAttention (docs/LLM.md):
//
//   q4 = [rotaryEmbedding](transpose(reshape(q, [B, S, H, D]), [0, 2, 1, 3]))
//   k4 = [rotaryEmbedding](transpose(reshape(k, [B, S, Hkv, D]), [0, 2, 1, 3]))
//   v4 = transpose(reshape(v, [B, S, Hkv, D]), [0, 2, 1, 3])
//   kr = reshape(expand | tile(reshape(k4, [B, Hkv, 1, S, D]), .. [B, Hkv, H/Hkv, S, D]), [B, H, S, D])
//        (repeat_kv; absent when H == Hkv), vr likewise
//   s  = matmul(q4, transpose(kr, [0, 1, 3, 2])) [* c | / c]
//        (or matmul(q4 * c1, transpose(kr) * c2), torch's SDPA export)
//   p  = softmax(s + mask | where(keep, s, fill), last axis)    mask / keep: constant, causal
//        (fp16: cast(softmax(cast(.., f32)), f16))
//   y  = reshape(transpose(matmul(p, vr), [0, 2, 1, 3]), [B, S, H * D])
//
// groupQueryAttention rather than fusedAttention: it is causal and reads each
// KV head for H/Hkv query heads in place (fusedAttention has no mask and
// would need the repeated K and V materialized). The past is empty (P = 0:
// a single prefill, no cache in the graph), seqlensK = S - 1 and
// totalSequenceLength = S are constants, so the kernel's positions are 0..S-1.
// Rotary embeddings on q and k at those positions (positionIds [1] = 0, the
// same caches) become doRotary, as onnxruntime-genai's GQA does it; other
// rotations (other positions) are kept, moved onto the [B, S, N * D]
// projections GQA reads.
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSEGROUPQUERYATTENTION
#include "compiler/transforms/Passes.h.inc"

namespace {

struct GqaCounters {
  int64_t attentions = 0, rotaries = 0, opsReplaced = 0;
};

// A score this negative (or -inf) contributes exp(-1e4) ~ 0 after softmax.
constexpr double kMasked = -1e4;

struct HeadSplit {
  Value source;  // [B, S, N * D] (or any shape of B * S * N * D elements)
  int64_t B = 0, S = 0, N = 0, D = 0;
};

// transpose(reshape(src, [B, S, N, D]), [0, 2, 1, 3]).
std::optional<HeadSplit> headSplit(Value v4, SmallVectorImpl<Operation *> &ops) {
  auto t = v4.getDefiningOp<TransposeOp>();
  if (!t || !hasPermutation(t, {0, 2, 1, 3})) return std::nullopt;
  auto r = t.getInput().getDefiningOp<ReshapeOp>();
  if (!r) return std::nullopt;
  auto type = cast<RankedTensorType>(r.getType());
  if (type.getRank() != 4 || !type.hasStaticShape()) return std::nullopt;
  ops.append({t, r});
  return HeadSplit{r.getInput(), type.getDimSize(0), type.getDimSize(1), type.getDimSize(2), type.getDimSize(3)};
}

// repeat_kv: reshape(expand | tile(reshape(k4, [B, Hkv, 1, T, D])), [B, H, T, D]) -> k4
// with *rep = H / Hkv; v itself (rep 1) when it is not a repeat.
Value repeatedSource(Value v, int64_t *rep, SmallVectorImpl<Operation *> &ops) {
  *rep = 1;
  auto outer = v.getDefiningOp<ReshapeOp>();
  if (!outer) return v;
  Operation *grow = outer.getInput().getDefiningOp();
  if (!grow || (!isa<ExpandOp>(grow) && !isa<TileOp>(grow))) return v;
  auto inner = grow->getOperand(0).getDefiningOp<ReshapeOp>();
  if (!inner) return v;
  auto src = cast<RankedTensorType>(inner.getInput().getType());
  auto unsq = cast<RankedTensorType>(inner.getType());
  auto grown = cast<RankedTensorType>(grow->getResult(0).getType());
  auto out = cast<RankedTensorType>(outer.getType());
  if (src.getRank() != 4 || unsq.getRank() != 5 || grown.getRank() != 5 || out.getRank() != 4 ||
      !grown.hasStaticShape())
    return v;
  int64_t B = src.getDimSize(0), kv = src.getDimSize(1), T = src.getDimSize(2), D = src.getDimSize(3);
  int64_t r = grown.getDimSize(2);
  if (unsq.getShape() != ArrayRef<int64_t>{B, kv, 1, T, D} || grown.getShape() != ArrayRef<int64_t>{B, kv, r, T, D} ||
      out.getShape() != ArrayRef<int64_t>{B, kv * r, T, D})
    return v;
  ops.append({outer, grow, inner});
  *rep = r;
  return inner.getInput();
}

// Every element of a constant `[.., S, T]` mask (leading dims 1): 0 where
// key j <= query i, <= kMasked where j > i (additive), or nonzero / zero
// (a where condition, `keepIsTrue` saying which value keeps the score).
bool isCausalMask(Value mask, int64_t S, bool additive, bool keepIsTrue) {
  auto type = cast<RankedTensorType>(mask.getType());
  // [.., S, S] with leading 1s: one mask for every batch entry and head (a
  // [S, 1, S] of S * S elements would broadcast per head instead).
  if (type.getRank() < 2 || !type.hasStaticShape() || type.getNumElements() != S * S ||
      type.getShape().take_back(2) != ArrayRef<int64_t>{S, S})
    return false;
  SmallVector<double> values;
  if (additive) {
    std::optional<SmallVector<double>> f = floatConstantValues(mask);
    if (!f) return false;
    values = *f;
  } else {
    std::optional<SmallVector<int64_t>> c = intConstantValues(mask);
    if (!c) return false;
    for (int64_t x : *c) values.push_back(double(x));
  }
  for (int64_t i = 0; i < S; ++i)
    for (int64_t j = 0; j < S; ++j) {
      double m = values[i * S + j];
      bool keep = additive ? m == 0.0 : ((m != 0.0) == keepIsTrue);
      bool dropped = additive ? m <= kMasked : !keep;
      if (j <= i ? !keep : !dropped) return false;
    }
  return true;
}

struct RotaryInfo {
  RotaryEmbeddingOp op;
  Value cos, sin;
  bool interleaved = false;
  bool atZero = false;  // positions 0.. (positionIds [1] = 0), whole head rotated
};

// rotaryEmbedding(x4) -> x4 with *info; x4 itself (info unset) when not rotated.
Value unrotated(Value v, std::optional<RotaryInfo> *info, SmallVectorImpl<Operation *> &ops) {
  auto rot = v.getDefiningOp<RotaryEmbeddingOp>();
  if (!rot || cast<RankedTensorType>(rot.getType()).getRank() != 4) return v;
  std::optional<SmallVector<int64_t>> pos = intConstantValues(rot.getPositionIds());
  ops.push_back(rot);
  *info = RotaryInfo{rot, rot.getCosCache(), rot.getSinCache(), rot.getInterleaved().value_or(false),
                     pos && pos->size() == 1 && (*pos)[0] == 0 && !rot.getRotaryEmbeddingDim()};
  return rot.getInput();
}

// The same rotation on the [B, S, N * D] projection the head split read:
// rotaryEmbedding's 3-D form with numHeads N rotates each head alike.
Value rotate3d(PatternRewriter &rewriter, Location loc, RotaryInfo r, Value x3, int64_t heads) {
  return RotaryEmbeddingOp::create(rewriter, loc, x3, r.op.getPositionIds(), r.cos, r.sin, r.op.getInterleavedAttr(),
                                   rewriter.getI64IntegerAttr(heads), r.op.getRotaryEmbeddingDimAttr())
      .getResult();
}

// Whether a and b hold the same values: one value, equal constants, or the
// same pure op of equal operands (each rotary fusion builds its own
// cos/sin(f) caches for run-time tables).
bool sameValue(Value a, Value b, int depth = 0) {
  if (a == b) return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 8 || x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumResults() != 1 || y->getNumResults() != 1 || a.getType() != b.getType() ||
      x->getNumOperands() != y->getNumOperands() || !isPure(x))
    return false;
  if (auto ca = dyn_cast<ConstantOp>(x)) return ca.getValue() == cast<ConstantOp>(y).getValue();
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameValue(p, q, depth + 1)) return false;
  return true;
}

struct FuseGqa : OpRewritePattern<ReshapeOp> {
  FuseGqa(MLIRContext *ctx, GqaCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(ReshapeOp root, PatternRewriter &rewriter) const override {
    SmallVector<Operation *> ops;
    auto merge = root.getInput().getDefiningOp<TransposeOp>();
    if (!merge || !merge->hasOneUse() || !hasPermutation(merge, {0, 2, 1, 3}))
      return rewriter.notifyMatchFailure(root, "not reshape(transpose(.., [0, 2, 1, 3]))");
    auto pv = merge.getInput().getDefiningOp<MatmulOp>();
    if (!pv || !pv->hasOneUse()) return rewriter.notifyMatchFailure(root, "no single-use matmul(p, v)");
    // fp16 exports take the softmax in float32: cast(softmax(cast(s, f32)), f16).
    Value probs = pv.getA();
    auto castBack = probs.getDefiningOp<CastOp>();
    if (castBack && castBack->hasOneUse()) probs = castBack.getInput();
    else castBack = nullptr;
    auto softmax = probs.getDefiningOp<SoftmaxOp>();
    int64_t rank = cast<RankedTensorType>(pv.getType()).getRank();
    if (rank != 4 || !softmax || !softmax->hasOneUse() || (softmax.getAxis() != 3 && softmax.getAxis() != -1))
      return rewriter.notifyMatchFailure(root, "p is not a single-use softmax over the last axis");
    ops.append({merge, pv, softmax});
    Value scores = softmax.getInput();
    if (castBack) {
      auto castUp = scores.getDefiningOp<CastOp>();
      if (!castUp || !castUp->hasOneUse() || castUp.getInput().getType() != castBack.getResult().getType())
        return rewriter.notifyMatchFailure(root, "the softmax's casts do not pair up");
      ops.append({castBack, castUp});
      scores = castUp.getInput();
    }

    // The causal mask.
    Value scaled;
    auto scoresType = cast<RankedTensorType>(scores.getType());
    if (!scoresType.hasStaticShape() || scoresType.getRank() != 4 ||
        scoresType.getDimSize(2) != scoresType.getDimSize(3))
      return rewriter.notifyMatchFailure(root, "the scores are not a static [B, H, S, S] (a past is not fused)");
    int64_t S = scoresType.getDimSize(2);
    if (auto add = scores.getDefiningOp<AddOp>(); add && add->hasOneUse()) {
      for (Value side : {add.getA(), add.getB()})
        if (side.getType() == scoresType && isCausalMask(otherOperand(add, side), S, true, true)) scaled = side;
      if (scaled) ops.push_back(add);
    } else if (auto where = scores.getDefiningOp<WhereOp>(); where && where->hasOneUse()) {
      for (bool keepIsTrue : {true, false}) {
        Value s = keepIsTrue ? where.getTrueValue() : where.getFalseValue();
        Value fill = keepIsTrue ? where.getFalseValue() : where.getTrueValue();
        std::optional<double> f = uniformFloatConstant(fill);
        if (s.getType() == scoresType && f && *f <= kMasked && isCausalMask(where.getCondition(), S, false, keepIsTrue))
          scaled = s;
      }
      if (scaled) ops.push_back(where);
    }
    if (!scaled) return rewriter.notifyMatchFailure(root, "the softmax input is not masked causally by a constant");
    if (!scaled.hasOneUse()) return rewriter.notifyMatchFailure(root, "the scores have other uses");

    // The scale.
    double scale = 1.0;
    MatmulOp qk;
    if (Operation *s = scaled.getDefiningOp(); s && (isa<MulOp>(s) || isa<DivOp>(s))) {
      for (unsigned side = 0; side < (isa<DivOp>(s) ? 1u : 2u) && !qk; ++side) {
        std::optional<double> c = uniformFloatConstant(s->getOperand(1 - side));
        auto mm = s->getOperand(side).getDefiningOp<MatmulOp>();
        if (!c || *c == 0.0 || !mm || !mm->hasOneUse() || mm.getType() != scoresType) continue;
        scale = isa<DivOp>(s) ? 1.0 / *c : *c;
        qk = mm;
        ops.push_back(s);
      }
    } else {
      qk = scaled.getDefiningOp<MatmulOp>();
    }
    if (!qk) return rewriter.notifyMatchFailure(root, "the scores are not a (scaled) matmul");
    ops.push_back(qk);

    // Q, K, V. PyTorch's scaled_dot_product_attention export scales q and
    // K^T by sqrt(scale) each instead of the scores.
    auto peelScale = [&](Value v) {
      if (auto mul = v.getDefiningOp<MulOp>(); mul && mul->hasOneUse())
        for (Value side : {mul.getA(), mul.getB()})
          if (std::optional<double> c = uniformFloatConstant(otherOperand(mul, side));
              c && *c != 0.0 && side.getType() == mul.getType()) {
            scale *= *c;
            ops.push_back(mul);
            return side;
          }
      return v;
    };
    Value qScaled = peelScale(qk.getA());
    auto kT = peelScale(qk.getB()).getDefiningOp<TransposeOp>();
    if (!kT || !kT->hasOneUse() || !hasPermutation(kT, {0, 1, 3, 2}))
      return rewriter.notifyMatchFailure(root, "k is not transpose(.., [0, 1, 3, 2])");
    ops.push_back(kT);
    int64_t kRep = 1, vRep = 1;
    Value k4r = repeatedSource(kT.getInput(), &kRep, ops);
    Value v4 = repeatedSource(pv.getB(), &vRep, ops);
    std::optional<RotaryInfo> qRot, kRot;
    Value q4 = unrotated(qScaled, &qRot, ops);
    Value k4 = unrotated(k4r, &kRot, ops);
    std::optional<HeadSplit> q = headSplit(q4, ops), k = headSplit(k4, ops), v = headSplit(v4, ops);
    if (!q || !k || !v) return rewriter.notifyMatchFailure(root, "q, k or v is not a head split");
    if (k->B != q->B || v->B != q->B || k->S != S || v->S != S || q->S != S || k->N != v->N || kRep != vRep ||
        k->N * kRep != q->N || k->D != q->D || v->D != q->D)
      return rewriter.notifyMatchFailure(root, "q, k and v disagree on batch, length, heads or head size");
    // GQA's own rotary (doRotary) when q and k are rotated alike at
    // positions 0..; otherwise each rotation moves onto its 3-D projection.
    bool absorb = qRot && kRot && qRot->atZero && kRot->atZero && sameValue(qRot->cos, kRot->cos) &&
                  sameValue(qRot->sin, kRot->sin) && qRot->interleaved == kRot->interleaved;
    int64_t B = q->B, H = q->N, Hkv = k->N, D = q->D;
    auto rootType = cast<RankedTensorType>(root.getType());
    if (!rootType.hasStaticShape() || rootType.getNumElements() != B * S * H * D)
      return rewriter.notifyMatchFailure(root, "the result does not hold B * S * H * D elements");

    Location loc = root.getLoc();
    rewriter.setInsertionPoint(root);
    Type elem = rootType.getElementType();
    Value q3 = reshapeTo(rewriter, loc, q->source, {B, S, H * D});
    Value k3 = reshapeTo(rewriter, loc, k->source, {B, S, Hkv * D});
    if (qRot && !absorb) q3 = rotate3d(rewriter, loc, *qRot, q3, H);
    if (kRot && !absorb) k3 = rotate3d(rewriter, loc, *kRot, k3, Hkv);
    Value v3 = reshapeTo(rewriter, loc, v->source, {B, S, Hkv * D});
    Value past = floatConstant(rewriter, loc, {B, Hkv, 0, D}, elem, {});
    Type i32 = rewriter.getI32Type();
    Value seqlens = intConstant(rewriter, loc, {B}, i32, SmallVector<int64_t>(B, S - 1));
    Value total = intConstant(rewriter, loc, {}, i32, {S});
    auto gqa = GroupQueryAttentionOp::create(
        rewriter, loc, q3, k3, v3, past, past, seqlens, total, absorb ? qRot->cos : Value(),
        absorb ? qRot->sin : Value(), rewriter.getI64IntegerAttr(H), rewriter.getI64IntegerAttr(Hkv),
        rewriter.getF64FloatAttr(scale), FloatAttr(), IntegerAttr(), absorb ? rewriter.getBoolAttr(true) : BoolAttr(),
        absorb && qRot->interleaved ? rewriter.getBoolAttr(true) : BoolAttr());
    Value out = reshapeTo(rewriter, loc, gqa.getOutput(), rootType.getShape());
    rewriter.replaceOp(root, out);
    ++counters.attentions;
    if (absorb) ++counters.rotaries;
    counters.opsReplaced += 1 + eraseDeadOps(rewriter, ops);
    return success();
  }
  GqaCounters &counters;
};

struct FuseGqaPass : impl::WebNNFuseGroupQueryAttentionBase<FuseGqaPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    GqaCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<FuseGqa>(ctx, counters);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numAttentionsFused += counters.attentions;
    numRotariesAbsorbed += counters.rotaries;
    numOpsReplaced += counters.opsReplaced;
    recordRewrites(ctx, getArgument(), "attentions-fused", counters.attentions);
    recordRewrites(ctx, getArgument(), "rotaries-absorbed", counters.rotaries);
    recordRewrites(ctx, getArgument(), "ops-replaced", counters.opsReplaced);
  }
};

}  // namespace
}  // namespace mlir::webnn
