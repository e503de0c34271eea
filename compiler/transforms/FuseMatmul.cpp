// --webnn-fuse-matmul: matmul -> [scale] -> [bias add] -> [residual add] ->
// [gelu | relu] chains into one webnn.fusedMatmul (docs/FUSED_OPS.md), and
// the erf form of GELU that PyTorch exports (x * 0.5 * (1 + erf(x / sqrt 2)),
// five element-wise ops) into webnn.gelu first, so it can join the chain.
//
// A transformer encoder's linear layers are matmul + bias (+ GELU in the
// feed-forward block, + the residual before each layerNormalization). Unfused,
// each step is a pass over a [tokens, N] tensor; fused, the CPU backend runs
// one oneDNN matmul and one vectorized epilogue while the output is in cache.
// Every step requires the intermediate result to have a single use: a value
// another op still reads must be materialized anyway.
#include <cmath>

#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSEMATMUL
#include "compiler/transforms/Passes.h.inc"

namespace {

struct FusionCounters {
  int64_t scales = 0, biasAdds = 0, residualAdds = 0, activations = 0, gelus = 0;
};

// The value of a constant whose elements are all equal (a scalar, a [1] or a
// splat tensor), as a double; nullopt otherwise.
std::optional<double> uniformConstant(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant) return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense) return std::nullopt;
  if (dense.isSplat()) return dense.getSplatValue<APFloat>().convertToDouble();
  if (dense.getNumElements() != 1) return std::nullopt;
  return (*dense.getValues<APFloat>().begin()).convertToDouble();
}

bool near(std::optional<double> v, double expected) {
  return v && std::abs(*v - expected) <= 1e-6 * std::abs(expected);
}

Value otherOperand(Operation *binary, Value v) {
  return binary->getOperand(0) == v ? binary->getOperand(1) : binary->getOperand(0);
}

// A fusedMatmul that stands for matmul(a, b) alone, to grow in place.
FusedMatmulOp asFused(PatternRewriter &rewriter, Value v) {
  if (auto fused = v.getDefiningOp<FusedMatmulOp>()) return fused;
  auto mm = v.getDefiningOp<MatmulOp>();
  if (!mm) return nullptr;
  rewriter.setInsertionPoint(mm);
  auto fused = FusedMatmulOp::create(rewriter, mm.getLoc(), mm.getType(), mm.getA(), mm.getB(), Value(), Value(),
                                     FloatAttr(), StringAttr());
  rewriter.replaceOp(mm, fused.getResult());
  return fused;
}

bool isMatmulLike(Value v) { return v.getDefiningOp<MatmulOp>() || v.getDefiningOp<FusedMatmulOp>(); }

bool hasActivation(FusedMatmulOp op) { return op.getActivation().value_or("none") != "none"; }

// Rebuilds `op` with new optional operands and attributes (the operand
// segment sizes change, so it cannot be modified in place).
FusedMatmulOp rebuild(PatternRewriter &rewriter, Operation *replaced, FusedMatmulOp op, Value bias, Value residual,
                      FloatAttr alpha, StringAttr activation) {
  rewriter.setInsertionPoint(replaced);
  auto fused = FusedMatmulOp::create(rewriter, replaced->getLoc(), op.getType(), op.getA(), op.getB(), bias,
                                     residual, alpha, activation);
  rewriter.replaceOp(replaced, fused.getResult());
  rewriter.eraseOp(op);
  return fused;
}

// mul(matmul, s) / div(matmul, s), s a uniform constant -> alpha = s or 1 / s
// (attention scores: Q K^T / sqrt(Dh)).
struct FuseScale : RewritePattern {
  FuseScale(MLIRContext *ctx, FusionCounters &counters)
      : RewritePattern(MatchAnyOpTypeTag(), 3, ctx), counters(counters) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    bool isDiv = isa<DivOp>(op);
    if (!isDiv && !isa<MulOp>(op)) return rewriter.notifyMatchFailure(op, "not mul or div");
    for (unsigned side = 0; side < 2; ++side) {
      if (isDiv && side == 1) break;  // s / matmul is not a scale
      Value mmValue = op->getOperand(side);
      if (!isMatmulLike(mmValue) || !mmValue.hasOneUse() || mmValue.getType() != op->getResult(0).getType())
        continue;
      std::optional<double> s = uniformConstant(op->getOperand(1 - side));
      if (!s || *s == 0.0) continue;
      if (auto prior = mmValue.getDefiningOp<FusedMatmulOp>())
        if (prior.getBias() || prior.getResidual() || hasActivation(prior)) continue;
      FusedMatmulOp fused = asFused(rewriter, mmValue);
      double alpha = fused.getAlpha() ? fused.getAlpha()->convertToDouble() : 1.0;
      alpha = isDiv ? alpha / *s : alpha * *s;
      rebuild(rewriter, op, fused, Value(), Value(), rewriter.getF64FloatAttr(alpha), StringAttr());
      ++counters.scales;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no single-use matmul scaled by a uniform constant");
  }
  FusionCounters &counters;
};

// add(matmul, c), c a constant with one value per output column -> bias.
struct FuseBiasAdd : OpRewritePattern<AddOp> {
  FuseBiasAdd(MLIRContext *ctx, FusionCounters &counters)
      : OpRewritePattern(ctx, /*benefit=*/2), counters(counters) {}
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (Value side : {add.getA(), add.getB()}) {
      if (!isMatmulLike(side) || !side.hasOneUse() || side.getType() != add.getType()) continue;
      Value c = otherOperand(add, side);
      if (!c.getDefiningOp<ConstantOp>()) continue;
      auto outType = cast<RankedTensorType>(add.getType());
      auto cType = cast<RankedTensorType>(c.getType());
      if (!outType.hasStaticShape() || !cType.hasStaticShape() || cType.getRank() < 1) continue;
      int64_t n = outType.getShape().back();
      bool perColumn = cType.getShape().back() == n && cType.getRank() <= outType.getRank();
      for (int64_t d = 0; d + 1 < cType.getRank(); ++d) perColumn &= cType.getDimSize(d) == 1;
      if (!perColumn) continue;
      if (auto prior = side.getDefiningOp<FusedMatmulOp>())
        if (prior.getBias() || prior.getResidual() || hasActivation(prior)) continue;
      FusedMatmulOp fused = asFused(rewriter, side);
      rewriter.setInsertionPoint(add);
      Value bias = c;
      if (cType.getRank() != 1)
        bias = ReshapeOp::create(rewriter, add.getLoc(), RankedTensorType::get({n}, cType.getElementType()), c,
                                 rewriter.getDenseI64ArrayAttr({n}))
                   .getResult();
      rebuild(rewriter, add, fused, bias, Value(), fused.getAlphaAttr(), StringAttr());
      ++counters.biasAdds;
      return success();
    }
    return rewriter.notifyMatchFailure(add, "no single-use matmul plus a per-column constant");
  }
  FusionCounters &counters;
};

// add(matmul, r), r of the output's type -> residual (the skip connection
// before a transformer's layerNormalization).
struct FuseResidualAdd : OpRewritePattern<AddOp> {
  FuseResidualAdd(MLIRContext *ctx, FusionCounters &counters)
      : OpRewritePattern(ctx, /*benefit=*/1), counters(counters) {}
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (Value side : {add.getA(), add.getB()}) {
      if (!isMatmulLike(side) || !side.hasOneUse() || side.getType() != add.getType()) continue;
      Value residual = otherOperand(add, side);
      if (residual == side || residual.getType() != add.getType()) continue;
      if (auto prior = side.getDefiningOp<FusedMatmulOp>())
        if (prior.getResidual() || hasActivation(prior)) continue;
      FusedMatmulOp fused = asFused(rewriter, side);
      rebuild(rewriter, add, fused, fused.getBias(), residual, fused.getAlphaAttr(), StringAttr());
      ++counters.residualAdds;
      return success();
    }
    return rewriter.notifyMatchFailure(add, "no single-use matmul of the add's type");
  }
  FusionCounters &counters;
};

// mul(mul(x, add(erf(x / sqrt2), 1)), 0.5) and its reassociations
// (mul(mul(x, 0.5), add(...)), x * 0.70710678 for the division) -> gelu(x).
struct FuseErfGelu : OpRewritePattern<MulOp> {
  FuseErfGelu(MLIRContext *ctx, FusionCounters &counters)
      : OpRewritePattern(ctx, /*benefit=*/2), counters(counters) {}

  // 1 + erf(x / sqrt 2) -> x, else null.
  static Value onePlusErfOf(Value v) {
    auto add = v.getDefiningOp<AddOp>();
    if (!add || !add->hasOneUse()) return Value();
    for (Value side : {add.getA(), add.getB()}) {
      auto erf = side.getDefiningOp<ErfOp>();
      if (!erf || !erf->hasOneUse() || !near(uniformConstant(otherOperand(add, side)), 1.0)) continue;
      Operation *scaled = erf.getInput().getDefiningOp();
      if (!scaled || !scaled->hasOneUse()) continue;
      if (isa<DivOp>(scaled) && near(uniformConstant(scaled->getOperand(1)), M_SQRT2)) return scaled->getOperand(0);
      if (isa<MulOp>(scaled))
        for (unsigned i = 0; i < 2; ++i)
          if (near(uniformConstant(scaled->getOperand(1 - i)), M_SQRT1_2)) return scaled->getOperand(i);
    }
    return Value();
  }

  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    // Split the product of three factors x, 0.5 and (1 + erf) two ways.
    for (Value side : {root.getA(), root.getB()}) {
      Value rest = otherOperand(root, side);
      auto inner = side.getDefiningOp<MulOp>();
      if (!inner || !inner->hasOneUse() || inner.getA() == inner.getB()) continue;
      Value x;
      if (near(uniformConstant(rest), 0.5)) {  // (x * (1 + erf)) * 0.5
        for (Value f : {inner.getA(), inner.getB()})
          if (Value y = onePlusErfOf(f); y && y == otherOperand(inner, f)) x = y;
      } else if (Value y = onePlusErfOf(rest)) {  // (x * 0.5) * (1 + erf)
        for (Value f : {inner.getA(), inner.getB()})
          if (f == y && near(uniformConstant(otherOperand(inner, f)), 0.5)) x = y;
      }
      if (!x || x.getType() != root.getType()) continue;
      auto gelu = GeluOp::create(rewriter, root.getLoc(), root.getType(), x);
      rewriter.replaceOp(root, gelu.getResult());
      ++counters.gelus;
      return success();
    }
    return rewriter.notifyMatchFailure(root, "not x * 0.5 * (1 + erf(x / sqrt(2)))");
  }
  FusionCounters &counters;
};

// gelu | relu of a single-use matmul -> activation.
struct FuseActivation : RewritePattern {
  FuseActivation(MLIRContext *ctx, FusionCounters &counters)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), counters(counters) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    StringAttr activation;
    if (isa<GeluOp>(op)) activation = rewriter.getStringAttr("gelu");
    else if (isa<ReluOp>(op)) activation = rewriter.getStringAttr("relu");
    else return rewriter.notifyMatchFailure(op, "not gelu or relu");
    Value source = op->getOperand(0);
    if (!isMatmulLike(source) || !source.hasOneUse() || source.getType() != op->getResult(0).getType())
      return rewriter.notifyMatchFailure(op, "the input is not a single-use matmul");
    if (auto prior = source.getDefiningOp<FusedMatmulOp>())
      if (hasActivation(prior)) return rewriter.notifyMatchFailure(op, "the fused matmul has an activation");
    FusedMatmulOp fused = asFused(rewriter, source);
    rewriter.modifyOpInPlace(fused, [&] { fused.setActivationAttr(activation); });
    rewriter.replaceOp(op, fused.getResult());
    ++counters.activations;
    return success();
  }
  FusionCounters &counters;
};

struct FuseMatmulPass : impl::WebNNFuseMatmulBase<FuseMatmulPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    FusionCounters counters;
    // The GELU chain first, so that a bias add's consumer is already one op.
    {
      RewritePatternSet patterns(ctx);
      patterns.add<FuseErfGelu>(ctx, counters);
      GreedyRewriteConfig config;
      config.enableFolding(false);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    patterns.add<FuseScale, FuseBiasAdd, FuseResidualAdd, FuseActivation>(ctx, counters);
    // Program order, so a chain fuses from the matmul down: scale, bias and
    // residual before the activation that follows them.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numScalesFused += counters.scales;
    numBiasAddsFused += counters.biasAdds;
    numResidualAddsFused += counters.residualAdds;
    numActivationsFused += counters.activations;
    numErfGelusFormed += counters.gelus;
    // Statistics are no-ops in release builds; --report reads these instead.
    StringRef pass = getArgument();
    recordRewrites(ctx, pass, "erf-gelus-formed", counters.gelus);
    recordRewrites(ctx, pass, "scales-fused", counters.scales);
    recordRewrites(ctx, pass, "bias-adds-fused", counters.biasAdds);
    recordRewrites(ctx, pass, "residual-adds-fused", counters.residualAdds);
    recordRewrites(ctx, pass, "activations-fused", counters.activations);
  }
};

}  // namespace
}  // namespace mlir::webnn
