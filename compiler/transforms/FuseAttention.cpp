// --webnn-fuse-attention: multi-head self-attention as exported by PyTorch
// (and written by hand in most WebNN graphs) into one webnn.fusedAttention
// (docs/FUSED_OPS.md):
//
//   q4 = transpose(reshape(q, [B, S, H, Dh]), [0, 2, 1, 3])
//   kT = transpose(reshape(k, [B, T, H, Dh]), [0, 2, 3, 1])
//        (or transpose(transpose(reshape(k), [0, 2, 1, 3]), [0, 1, 3, 2]))
//   v4 = transpose(reshape(v, [B, T, H, Dh]), [0, 2, 1, 3])
//   p  = softmax(scale * matmul(q4, kT), axis 3)   (mul or div by a constant,
//        or a fusedMatmul with alpha if --webnn-fuse-matmul ran first)
//   y  = reshape(transpose(matmul(p, v4), [0, 2, 1, 3]), [B, S, H * Dh])
//
// nn.MultiheadAttention's export (sequence first, batch N = B folded into the
// heads) is the same chain on rank 3, read as B = 1 with N * H heads over rows
// of N * H * Dh:
//
//   q3 = transpose(reshape(q, [S, N * H, Dh]), [1, 0, 2])
//   kT = transpose(reshape(k, [T, N * H, Dh]), [1, 2, 0])
//        (or transpose(transpose(reshape(k), [1, 0, 2]), [0, 2, 1]))
//   v3 = transpose(reshape(v, [T, N * H, Dh]), [1, 0, 2])
//   p  = softmax(matmul(q3, kT), axis 2)
//   y  = reshape(transpose(matmul(p, v3), [1, 0, 2]), [S * N, H * Dh] or ..)
//
// In both forms the scale may also sit on q or k (a mul or div by a constant
// scalar after the reshape or after the transpose), as PyTorch divides q by
// sqrt(Dh) before the transpose.
//
// The four transposes, the [B, H, S, T] scores and probabilities are then
// never written: the CPU kernel reads the heads in place from the [B, S, D]
// projections and keeps each head's scores in cache.
#include <cmath>

#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSEATTENTION
#include "compiler/transforms/Passes.h.inc"

namespace {

std::optional<double> uniformConstant(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant) return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense) return std::nullopt;
  if (dense.isSplat()) return dense.getSplatValue<APFloat>().convertToDouble();
  if (dense.getNumElements() != 1) return std::nullopt;
  return (*dense.getValues<APFloat>().begin()).convertToDouble();
}

bool isPermutation(TransposeOp t, ArrayRef<int64_t> perm) {
  std::optional<ArrayRef<int64_t>> p = t.getPermutation();
  return p && *p == perm;
}

// reshape(x, [B, S, H, Dh]) (rank 4) or reshape(x, [S, H, Dh]) (rank 3, B 1)
// -> x, else null. *shape receives [B, S, H, Dh].
Value headSplitSource(Value v, int64_t rank, SmallVectorImpl<int64_t> &shape) {
  auto reshape = v.getDefiningOp<ReshapeOp>();
  if (!reshape) return Value();
  auto type = cast<RankedTensorType>(reshape.getType());
  if (type.getRank() != rank || !type.hasStaticShape()) return Value();
  shape.assign(type.getShape().begin(), type.getShape().end());
  if (rank == 3) shape.insert(shape.begin(), 1);
  return reshape.getInput();
}

// x * c, c * x or x / c with c a nonzero constant scalar (splat or one
// element) that leaves x's shape as it is, read by nothing else -> x, with c
// (or 1 / c) multiplied into *scale; else v itself.
Value peelScale(Value v, double &scale) {
  Operation *s = v.getDefiningOp();
  if (!s || !(isa<MulOp>(s) || isa<DivOp>(s)) || !s->hasOneUse()) return v;
  for (unsigned side = 0; side < (isa<DivOp>(s) ? 1u : 2u); ++side) {
    std::optional<double> c = uniformConstant(s->getOperand(1 - side));
    Value x = s->getOperand(side);
    if (!c || *c == 0.0 || x.getType() != v.getType()) continue;
    scale *= isa<DivOp>(s) ? 1.0 / *c : *c;
    return x;
  }
  return v;
}

struct FuseAttention : OpRewritePattern<ReshapeOp> {
  FuseAttention(MLIRContext *ctx, int64_t &count) : OpRewritePattern(ctx), count(count) {}

  LogicalResult matchAndRewrite(ReshapeOp root, PatternRewriter &rewriter) const override {
    auto merge = root.getInput().getDefiningOp<TransposeOp>();
    if (!merge || !merge->hasOneUse())
      return rewriter.notifyMatchFailure(root, "not reshape(transpose(..)) read once");
    // Rank 4 [B, H, S, Dh] heads, or rank 3 [N * H, S, Dh] (PyTorch's
    // nn.MultiheadAttention); the permutations below are spelled for each.
    const int64_t rank = cast<RankedTensorType>(merge.getType()).getRank();
    if (rank != 3 && rank != 4) return rewriter.notifyMatchFailure(root, "the head merge is not rank 3 or 4");
    const bool r4 = rank == 4;
    const SmallVector<int64_t> split = r4 ? SmallVector<int64_t>{0, 2, 1, 3} : SmallVector<int64_t>{1, 0, 2};
    const SmallVector<int64_t> splitT = r4 ? SmallVector<int64_t>{0, 2, 3, 1} : SmallVector<int64_t>{1, 2, 0};
    const SmallVector<int64_t> swapLast = r4 ? SmallVector<int64_t>{0, 1, 3, 2} : SmallVector<int64_t>{0, 2, 1};
    if (!isPermutation(merge, split))
      return rewriter.notifyMatchFailure(root, "the head merge does not swap the head and sequence axes");
    auto pv = merge.getInput().getDefiningOp<MatmulOp>();
    if (!pv || !pv->hasOneUse()) return rewriter.notifyMatchFailure(root, "no single-use matmul(p, v)");
    auto softmax = pv.getA().getDefiningOp<SoftmaxOp>();
    if (!softmax || !softmax->hasOneUse() || (softmax.getAxis() != rank - 1 && softmax.getAxis() != -1))
      return rewriter.notifyMatchFailure(root, "p is not a single-use softmax over the last axis");
    // scale * matmul(q4, kT)
    Value scores = softmax.getInput();
    double scale = 1.0;
    Value q4, kT;
    if (Operation *s = scores.getDefiningOp(); s && (isa<MulOp>(s) || isa<DivOp>(s)) && s->hasOneUse()) {
      for (unsigned side = 0; side < (isa<DivOp>(s) ? 1u : 2u); ++side) {
        std::optional<double> c = uniformConstant(s->getOperand(1 - side));
        auto mm = s->getOperand(side).getDefiningOp<MatmulOp>();
        if (!c || *c == 0.0 || !mm || !mm->hasOneUse() || mm.getType() != s->getResult(0).getType()) continue;
        scale = isa<DivOp>(s) ? 1.0 / *c : *c;
        q4 = mm.getA();
        kT = mm.getB();
      }
    } else if (auto mm = scores.getDefiningOp<MatmulOp>(); mm && mm->hasOneUse()) {
      q4 = mm.getA();
      kT = mm.getB();
    } else if (auto fused = scores.getDefiningOp<FusedMatmulOp>();
               fused && fused->hasOneUse() && !fused.getBias() && !fused.getResidual() &&
               fused.getActivation().value_or("none") == "none") {
      scale = fused.getAlpha() ? fused.getAlpha()->convertToDouble() : 1.0;
      q4 = fused.getA();
      kT = fused.getB();
    }
    if (!q4) return rewriter.notifyMatchFailure(root, "the softmax input is not a (scaled) matmul");

    // A scale on q or k (before or after the head split's transpose) scales
    // the scores alike.
    SmallVector<int64_t> qShape, kShape, vShape;
    auto qT = peelScale(q4, scale).getDefiningOp<TransposeOp>();
    if (!qT || !isPermutation(qT, split))
      return rewriter.notifyMatchFailure(root, "q is not transpose(.., head split)");
    Value q = headSplitSource(peelScale(qT.getInput(), scale), rank, qShape);
    Value k;
    if (auto kTr = peelScale(kT, scale).getDefiningOp<TransposeOp>()) {
      if (isPermutation(kTr, splitT)) {
        k = headSplitSource(peelScale(kTr.getInput(), scale), rank, kShape);
      } else if (isPermutation(kTr, swapLast)) {
        auto k4 = peelScale(kTr.getInput(), scale).getDefiningOp<TransposeOp>();
        if (k4 && isPermutation(k4, split)) k = headSplitSource(peelScale(k4.getInput(), scale), rank, kShape);
      }
    }
    Value v;
    if (auto vT = pv.getB().getDefiningOp<TransposeOp>(); vT && isPermutation(vT, split))
      v = headSplitSource(vT.getInput(), rank, vShape);
    if (!q || !k || !v) return rewriter.notifyMatchFailure(root, "q, k or v is not a head split of a projection");
    // [B, S, H, Dh] for q, [B, T, H, Dh] for k and v.
    if (kShape != vShape || qShape[0] != kShape[0] || qShape[2] != kShape[2] || qShape[3] != kShape[3])
      return rewriter.notifyMatchFailure(root, "q, k and v disagree on batch, heads or head size");
    int64_t B = qShape[0], S = qShape[1], H = qShape[2], Dh = qShape[3], T = kShape[1];
    auto rootType = cast<RankedTensorType>(root.getType());
    if (!rootType.hasStaticShape() || rootType.getNumElements() != B * S * H * Dh)
      return rewriter.notifyMatchFailure(root, "the result does not hold B * S * H * Dh elements");

    Type elem = rootType.getElementType();
    auto as3d = [&](Value x, int64_t rows) -> Value {
      auto type = RankedTensorType::get({B, rows, H * Dh}, elem);
      if (x.getType() == type) return x;
      return ReshapeOp::create(rewriter, root.getLoc(), type, x, rewriter.getDenseI64ArrayAttr({B, rows, H * Dh}))
          .getResult();
    };
    Value q3 = as3d(q, S), k3 = as3d(k, T), v3 = as3d(v, T);
    auto outType = RankedTensorType::get({B, S, H * Dh}, elem);
    Value out = FusedAttentionOp::create(rewriter, root.getLoc(), outType, q3, k3, v3,
                                         rewriter.getI64IntegerAttr(H), rewriter.getF64FloatAttr(scale))
                    .getResult();
    if (outType != rootType)
      out = ReshapeOp::create(rewriter, root.getLoc(), rootType, out, root.getNewShapeAttr()).getResult();
    rewriter.replaceOp(root, out);
    ++count;
    return success();
  }
  int64_t &count;
};

struct FuseAttentionPass : impl::WebNNFuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t count = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<FuseAttention>(ctx, count);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numAttentionsFused += count;
    recordRewrites(ctx, getArgument(), "attentions-fused", count);  // --report in release builds
  }
};

}  // namespace
}  // namespace mlir::webnn
