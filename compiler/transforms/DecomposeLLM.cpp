// The decoder-LLM ops (docs/LLM.md) expanded into WebNN spec ops, for
// --webnn-decompose-fused. Each expansion computes what the CPU kernel
// computes (statistics in float32, clamped cache rows, ORT's GQA positions);
// docs/LLM.md lists them. groupQueryAttention with constant seqlensK /
// totalSequenceLength folds its positions into constants; with run-time ones
// (a real decode loop) the past length of each batch entry is computed in
// the graph and selects, per cache row, past, new (gatherElements) or zero,
// and the causal mask. Dynamic shapes have no expansion (spec ops need
// static shapes for the position constants).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "compiler/transforms/DecomposePatterns.h"
#include "compiler/transforms/MatchUtils.h"
#include "llvm/ADT/APFloat.h"

namespace mlir::webnn {
namespace {

Type f32(PatternRewriter &rewriter) { return rewriter.getF32Type(); }

Value castTo(PatternRewriter &rewriter, Location loc, Value v, Type elem) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elem) return v;
  return CastOp::create(rewriter, loc, v, TypeAttr::get(elem)).getResult();
}

// x * 1 / sqrt(mean(x^2 over [axis, rank)) + eps) in float32 -> (normalized in
// x's type, invStdDev f32).
std::pair<Value, Value> rmsNormalize(PatternRewriter &rewriter, Location loc, Value x, int64_t axis, double eps) {
  auto type = cast<RankedTensorType>(x.getType());
  Value xf = castTo(rewriter, loc, x, f32(rewriter));
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < type.getRank(); ++d) axes.push_back(d);
  Value sq = MulOp::create(rewriter, loc, xf, xf).getResult();
  Value mean = ReduceMeanOp::create(rewriter, loc, sq, rewriter.getDenseI64ArrayAttr(axes), rewriter.getBoolAttr(true))
                   .getResult();
  Value var = AddOp::create(rewriter, loc, mean, scalarConstant(rewriter, loc, f32(rewriter), eps)).getResult();
  Value inv = ReciprocalOp::create(rewriter, loc, SqrtOp::create(rewriter, loc, var).getResult()).getResult();
  Value normalized = MulOp::create(rewriter, loc, xf, inv).getResult();
  return {castTo(rewriter, loc, normalized, type.getElementType()), inv};
}

struct DecomposeRmsNormalization : CountedExpansion<RmsNormalizationOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(RmsNormalizationOp op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    auto [n, inv] = rmsNormalize(rewriter, op.getLoc(), op.getInput(), op.getAxis().value_or(type.getRank() - 1),
                                 op.getEpsilon() ? op.getEpsilon()->convertToDouble() : 1e-5);
    Value out = MulOp::create(rewriter, op.getLoc(), n, op.getScale()).getResult();
    return expandTo(rewriter, op, {out, inv});
  }
};

struct DecomposeSkipRmsNormalization : CountedExpansion<SkipRmsNormalizationOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(SkipRmsNormalizationOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value sum = AddOp::create(rewriter, loc, op.getInput(), op.getSkip()).getResult();
    if (Value bias = op.getBias()) sum = AddOp::create(rewriter, loc, sum, bias).getResult();
    int64_t rank = cast<RankedTensorType>(sum.getType()).getRank();
    auto [n, inv] = rmsNormalize(rewriter, loc, sum, rank - 1,
                                 op.getEpsilon() ? op.getEpsilon()->convertToDouble() : 1e-5);
    Value out = MulOp::create(rewriter, loc, n, op.getGamma()).getResult();
    return expandTo(rewriter, op, {out, inv, sum});
  }
};

// The cos/sin rows for each (batch, position): [S, half] when every batch
// entry reads the same rows, else [B, S, half]. Constant positions are
// clamped to the cache like the kernel does; run-time ones are gathered as
// they are.
Value cacheRows(PatternRewriter &rewriter, Location loc, Value cache, Value positionIds, int64_t S) {
  auto cacheType = cast<RankedTensorType>(cache.getType());
  int64_t maxSeq = cacheType.getDimSize(0);
  auto posType = cast<RankedTensorType>(positionIds.getType());
  Type i64 = rewriter.getI64Type();
  Value indices;
  if (std::optional<SmallVector<int64_t>> pos = intConstantValues(positionIds)) {
    SmallVector<int64_t> rows;
    auto clampRow = [&](int64_t p) { return std::min(std::max<int64_t>(p, 0), maxSeq - 1); };
    if (posType.getNumElements() == 1) {
      for (int64_t s = 0; s < S; ++s) rows.push_back(clampRow((*pos)[0] + s));
      indices = intConstant(rewriter, loc, {S}, i64, rows);
    } else {
      for (int64_t p : *pos) rows.push_back(clampRow(p));
      indices = intConstant(rewriter, loc, posType.getShape(), i64, rows);
    }
  } else if (posType.getNumElements() == 1) {
    SmallVector<int64_t> iota;
    for (int64_t s = 0; s < S; ++s) iota.push_back(s);
    indices = AddOp::create(rewriter, loc, reshapeTo(rewriter, loc, positionIds, {1}),
                            intConstant(rewriter, loc, {S}, i64, iota))
                  .getResult();
  } else {
    indices = positionIds;
  }
  return GatherOp::create(rewriter, loc, cache, indices, rewriter.getI64IntegerAttr(0)).getResult();
}

// Rotates the first rotaryDim features of x [B, N, S, D] (headsAxis 1) or
// [B, S, N, D] (headsAxis 2) by the rows of cos/sin ([S, half] or [B, S, half]).
Value rotate(PatternRewriter &rewriter, Location loc, Value x, Value cosRows, Value sinRows, int64_t headsAxis,
             bool interleaved, int64_t rotaryDim) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t B = shape[0], S = shape[headsAxis == 1 ? 2 : 1], D = shape[3], half = rotaryDim / 2;
  auto rowsType = cast<RankedTensorType>(cosRows.getType());
  int64_t rowsB = rowsType.getRank() == 3 ? B : 1;
  // Broadcastable views: [rowsB, 1, S, half] or [rowsB, S, 1, half], plus a
  // trailing 1 for the interleaved pairs.
  SmallVector<int64_t> view = headsAxis == 1 ? SmallVector<int64_t>{rowsB, 1, S, half}
                                             : SmallVector<int64_t>{rowsB, S, 1, half};
  if (interleaved) view.push_back(1);
  Value c = reshapeTo(rewriter, loc, castTo(rewriter, loc, cosRows, type.getElementType()), view);
  Value s = reshapeTo(rewriter, loc, castTo(rewriter, loc, sinRows, type.getElementType()), view);
  Value rot = rotaryDim == D ? x : sliceLastAxis(rewriter, loc, x, 0, rotaryDim);
  Value x1, x2;
  if (interleaved) {
    SmallVector<int64_t> pairs(shape.take_front(3));
    pairs.append({half, 2});
    rot = reshapeTo(rewriter, loc, rot, pairs);
    x1 = sliceLastAxis(rewriter, loc, rot, 0, 1);
    x2 = sliceLastAxis(rewriter, loc, rot, 1, 1);
  } else {
    x1 = sliceLastAxis(rewriter, loc, rot, 0, half);
    x2 = sliceLastAxis(rewriter, loc, rot, half, half);
  }
  auto mul = [&](Value a, Value b) { return MulOp::create(rewriter, loc, a, b).getResult(); };
  Value y1 = SubOp::create(rewriter, loc, mul(x1, c), mul(x2, s)).getResult();
  Value y2 = AddOp::create(rewriter, loc, mul(x2, c), mul(x1, s)).getResult();
  int64_t axis = interleaved ? 4 : 3;
  Value y = ConcatOp::create(rewriter, loc, ValueRange{y1, y2}, rewriter.getI64IntegerAttr(axis)).getResult();
  if (interleaved) {
    SmallVector<int64_t> flat(shape.take_front(3));
    flat.push_back(rotaryDim);
    y = reshapeTo(rewriter, loc, y, flat);
  }
  if (rotaryDim < D)
    y = ConcatOp::create(rewriter, loc, ValueRange{y, sliceLastAxis(rewriter, loc, x, rotaryDim, D - rotaryDim)},
                         rewriter.getI64IntegerAttr(3))
            .getResult();
  return y;
}

struct DecomposeRotaryEmbedding : CountedExpansion<RotaryEmbeddingOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(RotaryEmbeddingOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!type.hasStaticShape()) return rewriter.notifyMatchFailure(op, "dynamic shape");
    int64_t half = cast<RankedTensorType>(op.getCosCache().getType()).getDimSize(1);
    int64_t rotaryDim = op.getRotaryEmbeddingDim().value_or(2 * half);
    Value x = op.getInput();
    int64_t headsAxis = 1, S;
    if (type.getRank() == 4) {
      S = type.getDimSize(2);
    } else {
      // [B, S, hidden]: head size hidden / numHeads, or rotaryDim without numHeads (ORT's rule).
      int64_t B = type.getDimSize(0), hidden = type.getDimSize(2);
      S = type.getDimSize(1);
      // numHeads = 0 passes the verifier as "absent".
      int64_t heads = int64_t(op.getNumHeads().value_or(0));
      int64_t D = heads > 0 ? hidden / heads : rotaryDim;
      x = reshapeTo(rewriter, loc, x, {B, S, hidden / D, D});
      headsAxis = 2;
    }
    Value cosRows = cacheRows(rewriter, loc, op.getCosCache(), op.getPositionIds(), S);
    Value sinRows = cacheRows(rewriter, loc, op.getSinCache(), op.getPositionIds(), S);
    Value y = rotate(rewriter, loc, x, cosRows, sinRows, headsAxis, op.getInterleaved().value_or(false), rotaryDim);
    return expandTo(rewriter, op, reshapeTo(rewriter, loc, y, type.getShape()));
  }
};

struct DecomposeGroupQueryAttention : CountedExpansion<GroupQueryAttentionOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(GroupQueryAttentionOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto pastType = cast<RankedTensorType>(op.getPastKey().getType());
    if (!qType.hasStaticShape() || !pastType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    std::optional<SmallVector<int64_t>> seqlens = intConstantValues(op.getSeqlensK());
    std::optional<SmallVector<int64_t>> total;
    bool runtimeTotal = false;
    if (Value t = op.getTotalSequenceLength()) {
      total = intConstantValues(t);
      runtimeTotal = !total;
    }
    int64_t B = qType.getDimSize(0), S = qType.getDimSize(1), H = op.getNumHeads(), Hkv = op.getKvNumHeads();
    int64_t D = pastType.getDimSize(3), P = pastType.getDimSize(2), T = P + S;
    if (!seqlens || runtimeTotal) return expandWithRuntimePositions(op, rewriter, B, S, H, Hkv, D, P);
    // The kernel's (ORT's) rule: past 0 on the first prompt (S ==
    // totalSequenceLength), seqlensK + 1 - S otherwise, clamped to the cache.
    auto pastOf = [&](int64_t b) {
      int64_t p = (total && (*total)[0] == S) ? 0 : (*seqlens)[b] + 1 - S;
      return std::clamp<int64_t>(p, 0, P);
    };
    int64_t past = pastOf(0);
    for (int64_t b = 1; b < B; ++b)
      if (pastOf(b) != past) return rewriter.notifyMatchFailure(op, "batch entries have different past lengths");
    Type elem = qType.getElementType();

    auto [q4, k4, v4] = splitHeads(op, rewriter, B, S, H, Hkv, D);
    if (op.getDoRotary().value_or(false)) {
      Value pos = intConstant(rewriter, loc, {1}, rewriter.getI64Type(), {past});
      Value cosRows = cacheRows(rewriter, loc, op.getCosCache(), pos, S);
      Value sinRows = cacheRows(rewriter, loc, op.getSinCache(), pos, S);
      int64_t rotaryDim = 2 * cast<RankedTensorType>(op.getCosCache().getType()).getDimSize(1);
      bool interleaved = op.getRotaryInterleaved().value_or(false);
      q4 = rotate(rewriter, loc, q4, cosRows, sinRows, 1, interleaved, rotaryDim);
      k4 = rotate(rewriter, loc, k4, cosRows, sinRows, 1, interleaved, rotaryDim);
    }
    // present = past[:, :, :past] ++ new ++ zeros, [B, Hkv, P + S, D].
    auto present = [&](Value pastValue, Value fresh) -> Value {
      SmallVector<Value> parts;
      if (past > 0) {
        Value kept = pastValue;
        if (past < P)
          kept = SliceOp::create(rewriter, loc, pastValue, rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
                                 rewriter.getDenseI64ArrayAttr({B, Hkv, past, D}), DenseI64ArrayAttr())
                     .getResult();
        parts.push_back(kept);
      }
      parts.push_back(fresh);
      if (P - past > 0)
        parts.push_back(floatConstant(rewriter, loc, {B, Hkv, P - past, D}, elem,
                                      SmallVector<double>(B * Hkv * (P - past) * D, 0.0)));
      if (parts.size() == 1) return fresh;
      return ConcatOp::create(rewriter, loc, parts, rewriter.getI64IntegerAttr(2)).getResult();
    };
    Value presentKey = present(op.getPastKey(), k4), presentValue = present(op.getPastValue(), v4);
    // Query row i (position past + i) sees keys [max(0, pos - window), pos].
    int64_t window = op.getLocalWindowSize().value_or(-1);
    double lowest = llvm::APFloat::getLargest(cast<FloatType>(elem).getFloatSemantics(), true).convertToDouble();
    SmallVector<double> mask(S * T, 0.0);
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = 0; j < T; ++j) {
        int64_t pos = past + i;
        if (j > pos || (window >= 0 && j < pos - window)) mask[i * T + j] = lowest;
      }
    Value out = attend(op, rewriter, q4, presentKey, presentValue, floatConstant(rewriter, loc, {S, T}, elem, mask),
                       B, S, H, Hkv, D, T);
    return expandTo(rewriter, op, {out, presentKey, presentValue});
  }

  // seqlensK (or totalSequenceLength) known only at run time: the past
  // length of each batch entry, pastLen[b] = clamp(seqlensK[b] + 1 - S, 0, P)
  // (0 on a first prompt, total == S), is computed in the graph, and decides
  // the rotary rows, which cache row holds past, new or zero, and the mask.
  LogicalResult expandWithRuntimePositions(GroupQueryAttentionOp op, PatternRewriter &rewriter, int64_t B,
                                           int64_t S, int64_t H, int64_t Hkv, int64_t D, int64_t P) const {
    Location loc = op.getLoc();
    int64_t T = P + S;
    Type i64 = rewriter.getI64Type(), elem = cast<RankedTensorType>(op.getQuery().getType()).getElementType();
    auto c64 = [&](int64_t v) { return intConstant(rewriter, loc, {1}, i64, {v}); };
    auto iota = [&](int64_t n, ArrayRef<int64_t> shape) {
      SmallVector<int64_t> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(i);
      return intConstant(rewriter, loc, shape, i64, v);
    };
    auto add = [&](Value a, Value b) { return AddOp::create(rewriter, loc, a, b).getResult(); };
    auto sub = [&](Value a, Value b) { return SubOp::create(rewriter, loc, a, b).getResult(); };
    auto clampTo = [&](Value v, int64_t lo, int64_t hi) {
      Value up = MinOp::create(rewriter, loc, v, c64(hi)).getResult();
      return MaxOp::create(rewriter, loc, up, c64(lo)).getResult();
    };
    Value past = add(castTo(rewriter, loc, reshapeTo(rewriter, loc, op.getSeqlensK(), {B}), i64), c64(1 - S));
    if (Value t = op.getTotalSequenceLength()) {
      Value first = EqualOp::create(rewriter, loc, castTo(rewriter, loc, reshapeTo(rewriter, loc, t, {1}), i64), c64(S))
                        .getResult();
      past = WhereOp::create(rewriter, loc, first, c64(0), past).getResult();
    }
    past = clampTo(past, 0, P);  // [B]

    auto [q4, k4, v4] = splitHeads(op, rewriter, B, S, H, Hkv, D);
    if (op.getDoRotary().value_or(false)) {
      // Rows past[b] + s, clamped to the cache: [B, S] indices, [B, S, half] rows.
      int64_t maxSeq = cast<RankedTensorType>(op.getCosCache().getType()).getDimSize(0);
      Value pos = clampTo(add(reshapeTo(rewriter, loc, past, {B, 1}), iota(S, {1, S})), 0, maxSeq - 1);
      Value cosRows = GatherOp::create(rewriter, loc, op.getCosCache(), pos, rewriter.getI64IntegerAttr(0)).getResult();
      Value sinRows = GatherOp::create(rewriter, loc, op.getSinCache(), pos, rewriter.getI64IntegerAttr(0)).getResult();
      int64_t rotaryDim = 2 * cast<RankedTensorType>(op.getCosCache().getType()).getDimSize(1);
      bool interleaved = op.getRotaryInterleaved().value_or(false);
      q4 = rotate(rewriter, loc, q4, cosRows, sinRows, 1, interleaved, rotaryDim);
      k4 = rotate(rewriter, loc, k4, cosRows, sinRows, 1, interleaved, rotaryDim);
    }
    // present row j of entry b: past[j] for j < past[b], new[j - past[b]]
    // below past[b] + S, zero after (the kernel's layout).
    Value pastB = reshapeTo(rewriter, loc, past, {B, 1, 1, 1});
    Value row = iota(T, {1, 1, T, 1});
    Value fromPast = LesserOp::create(rewriter, loc, row, pastB).getResult();
    Value fromNew = LesserOp::create(rewriter, loc, row, add(pastB, c64(S))).getResult();
    Value newRow = clampTo(sub(row, pastB), 0, S - 1);  // [B, 1, T, 1]
    Value newIdx = ExpandOp::create(rewriter, loc, newRow, rewriter.getDenseI64ArrayAttr({B, Hkv, T, D})).getResult();
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    auto present = [&](Value pastValue, Value fresh) -> Value {
      Value padded = ConcatOp::create(rewriter, loc,
                                      ValueRange{pastValue, floatConstant(rewriter, loc, {B, Hkv, S, D}, elem,
                                                                          SmallVector<double>(B * Hkv * S * D, 0.0))},
                                      rewriter.getI64IntegerAttr(2))
                         .getResult();
      Value spread = GatherElementsOp::create(rewriter, loc, fresh, newIdx, rewriter.getI64IntegerAttr(2)).getResult();
      Value tail = WhereOp::create(rewriter, loc, fromNew, spread, zero).getResult();
      return WhereOp::create(rewriter, loc, fromPast, padded, tail).getResult();
    };
    Value presentKey = present(op.getPastKey(), k4), presentValue = present(op.getPastValue(), v4);
    // Query row i of entry b (position past[b] + i) sees keys
    // [max(0, pos - window), pos]: mask [B, 1, S, T].
    Value qPos = add(pastB, iota(S, {1, 1, S, 1}));
    Value key = iota(T, {1, 1, 1, T});
    Value allowed = LesserOrEqualOp::create(rewriter, loc, key, qPos).getResult();
    if (int64_t window = op.getLocalWindowSize().value_or(-1); window >= 0) {
      Value inWindow = GreaterOrEqualOp::create(rewriter, loc, key, sub(qPos, c64(window))).getResult();
      allowed = LogicalAndOp::create(rewriter, loc, allowed, inWindow).getResult();
    }
    double lowest = llvm::APFloat::getLargest(cast<FloatType>(elem).getFloatSemantics(), true).convertToDouble();
    Value mask = WhereOp::create(rewriter, loc, allowed, zero, scalarConstant(rewriter, loc, elem, lowest)).getResult();
    Value out = attend(op, rewriter, q4, presentKey, presentValue, mask, B, S, H, Hkv, D, T);
    return expandTo(rewriter, op, {out, presentKey, presentValue});
  }

  // q [B, H, S, D], k and v [B, Hkv, S, D] from the three inputs or the
  // packed QKV.
  static std::tuple<Value, Value, Value> splitHeads(GroupQueryAttentionOp op, PatternRewriter &rewriter, int64_t B,
                                                    int64_t S, int64_t H, int64_t Hkv, int64_t D) {
    Location loc = op.getLoc();
    Value q3 = op.getQuery(), k3 = op.getKey(), v3 = op.getValue();
    if (!k3) {  // packed QKV
      k3 = sliceLastAxis(rewriter, loc, q3, H * D, Hkv * D);
      v3 = sliceLastAxis(rewriter, loc, q3, (H + Hkv) * D, Hkv * D);
      q3 = sliceLastAxis(rewriter, loc, q3, 0, H * D);
    }
    auto heads = [&](Value v, int64_t n) {
      Value r = reshapeTo(rewriter, loc, v, {B, S, n, D});
      return TransposeOp::create(rewriter, loc, r, rewriter.getDenseI64ArrayAttr({0, 2, 1, 3})).getResult();
    };
    return {heads(q3, H), heads(k3, Hkv), heads(v3, Hkv)};
  }

  // softmax(q k^T * scale (softcapped) + mask) v over [B, H, S, T], query
  // head h reading KV head h / (H / Hkv); merged back to [B, S, H * D].
  static Value attend(GroupQueryAttentionOp op, PatternRewriter &rewriter, Value q4, Value presentKey,
                      Value presentValue, Value mask, int64_t B, int64_t S, int64_t H, int64_t Hkv, int64_t D,
                      int64_t T) {
    Location loc = op.getLoc();
    Type elem = cast<RankedTensorType>(q4.getType()).getElementType();
    auto repeat = [&](Value kv) -> Value {
      if (H == Hkv) return kv;
      int64_t rep = H / Hkv;
      Value u = reshapeTo(rewriter, loc, kv, {B, Hkv, 1, T, D});
      Value e = ExpandOp::create(rewriter, loc, u, rewriter.getDenseI64ArrayAttr({B, Hkv, rep, T, D})).getResult();
      return reshapeTo(rewriter, loc, e, {B, H, T, D});
    };
    Value kT = TransposeOp::create(rewriter, loc, repeat(presentKey), rewriter.getDenseI64ArrayAttr({0, 1, 3, 2}))
                   .getResult();
    Value scores = MatmulOp::create(rewriter, loc, q4, kT).getResult();
    double scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0 / std::sqrt(double(D));
    scores = MulOp::create(rewriter, loc, scores, scalarConstant(rewriter, loc, elem, scale)).getResult();
    if (double softcap = op.getSoftcap() ? op.getSoftcap()->convertToDouble() : 0.0; softcap > 0) {
      Value c = scalarConstant(rewriter, loc, elem, softcap);
      Value t = TanhOp::create(rewriter, loc, DivOp::create(rewriter, loc, scores, c).getResult()).getResult();
      scores = MulOp::create(rewriter, loc, t, c).getResult();
    }
    scores = AddOp::create(rewriter, loc, scores, mask).getResult();
    Value probs = SoftmaxOp::create(rewriter, loc, scores, rewriter.getI64IntegerAttr(3)).getResult();
    Value context = MatmulOp::create(rewriter, loc, probs, repeat(presentValue)).getResult();
    Value merged = TransposeOp::create(rewriter, loc, context, rewriter.getDenseI64ArrayAttr({0, 2, 1, 3})).getResult();
    return reshapeTo(rewriter, loc, merged, {B, S, H * D});
  }

};

// Unpacks `bits`-wide values, low bits first, from `bytes` (per row of
// `rowBytes` bytes) into `count` values per row.
SmallVector<int64_t> unpack(ArrayRef<int64_t> bytes, int64_t rows, int64_t rowBytes, int64_t count, int64_t bits) {
  SmallVector<int64_t> out;
  out.reserve(rows * count);
  int64_t perByte = 8 / bits, maskBits = (1 << bits) - 1;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < count; ++i)
      out.push_back((bytes[r * rowBytes + i / perByte] >> (bits * (i % perByte))) & maskBits);
  return out;
}

struct DecomposeMatMulNBits : CountedExpansion<MatMulNBitsOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(MatMulNBitsOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<SmallVector<int64_t>> packed = intConstantValues(op.getWeight());
    if (!packed) return rewriter.notifyMatchFailure(op, "the weight is not a constant");
    int64_t K = op.getK(), N = op.getN(), bs = op.getBlockSize(), bits = op.getBits().value_or(4);
    int64_t kBlocks = (K + bs - 1) / bs;
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type elem = inType.getElementType();
    // 4-bit weights stay 4-bit (uint4, which dequantizeLinear takes); 2- and
    // 8-bit ones become uint8.
    Type qElem = IntegerType::get(getContext(), bits == 4 ? 4 : 8, IntegerType::Unsigned);
    Value q = intConstant(rewriter, loc, {N, kBlocks, bs}, qElem,
                          unpack(*packed, N * kBlocks, bs * bits / 8, bs, bits));
    Value scales = reshapeTo(rewriter, loc, op.getScales(), {N, kBlocks, 1});
    Value w;
    Value zpValue = op.getZeroPoints();
    if (zpValue && !cast<RankedTensorType>(zpValue.getType()).getElementType().isUnsignedInteger(8)) {
      // Float zero points: (q - zp) * scale in the input's type.
      Value qf = CastOp::create(rewriter, loc, q, TypeAttr::get(elem)).getResult();
      Value centered = SubOp::create(rewriter, loc, qf, reshapeTo(rewriter, loc, zpValue, {N, kBlocks, 1})).getResult();
      w = MulOp::create(rewriter, loc, centered, scales).getResult();
    } else {
      SmallVector<int64_t> zp(N * kBlocks, int64_t(1) << (bits - 1));
      if (zpValue) {
        std::optional<SmallVector<int64_t>> zpBytes = intConstantValues(zpValue);
        if (!zpBytes) return rewriter.notifyMatchFailure(op, "the packed zero points are not a constant");
        zp = unpack(*zpBytes, N, (kBlocks * bits + 7) / 8, kBlocks, bits);
      }
      Value zpConst = intConstant(rewriter, loc, {N, kBlocks, 1}, qElem, zp);
      w = DequantizeLinearOp::create(rewriter, loc, q, scales, zpConst).getResult();
    }
    w = reshapeTo(rewriter, loc, w, {N, kBlocks * bs});
    if (kBlocks * bs != K) w = sliceLastAxis(rewriter, loc, w, 0, K);
    w = TransposeOp::create(rewriter, loc, w, rewriter.getDenseI64ArrayAttr({1, 0})).getResult();
    Value out = MatmulOp::create(rewriter, loc, op.getInput(), w).getResult();
    if (Value bias = op.getBias()) out = AddOp::create(rewriter, loc, out, bias).getResult();
    return expandTo(rewriter, op, out);
  }
};

}  // namespace

void populateDecomposeLLMPatterns(RewritePatternSet &patterns, int64_t &count) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<DecomposeRmsNormalization, DecomposeSkipRmsNormalization, DecomposeRotaryEmbedding,
               DecomposeGroupQueryAttention, DecomposeMatMulNBits>(ctx, count);
}

bool isLLMOp(Operation *op) {
  return isa<MatMulNBitsOp, RmsNormalizationOp, SkipRmsNormalizationOp, RotaryEmbeddingOp, GroupQueryAttentionOp>(op);
}

}  // namespace mlir::webnn
