// --webnn-fuse-conv: conv2d -> [bias add] -> [residual add] -> [activation]
// chains into one webnn.fusedConv2d (docs/FUSED_OPS.md). SiLU, which ONNX
// exports as mul(x, sigmoid(x)), is the activation "silu"; MobileNetV3's
// hardSwish is "hardSwish".
//
// Every step requires the intermediate result to have a single use: a value
// another op still reads must be materialized anyway, and fusing would then
// compute the convolution twice.
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSECONV
#include "compiler/transforms/Passes.h.inc"

namespace {

struct FusionCounters {
  int64_t biasAdds = 0, residualAdds = 0, activations = 0;
};

bool channelsLast(std::optional<StringRef> layout) { return layout.value_or("nchw") == "nhwc"; }

// The operand of `add` that is not `v` (either, when both are `v`).
Value otherOperand(AddOp add, Value v) {
  return add.getA() == v ? add.getB() : add.getA();
}

FusedConv2dOp buildFused(PatternRewriter &rewriter, Location loc, Conv2dOp conv, Value residual,
                         StringAttr activation, FloatAttr minValue, FloatAttr maxValue) {
  return FusedConv2dOp::create(rewriter, loc, conv.getType(), conv.getInput(), conv.getFilter(),
                               conv.getBias(), residual, conv.getPaddingAttr(),
                               conv.getStridesAttr(), conv.getDilationsAttr(), conv.getGroupsAttr(),
                               conv.getInputLayoutAttr(), conv.getFilterLayoutAttr(), activation,
                               minValue, maxValue);
}

// add(conv2d(x, w, b?), c) with c a per-channel constant -> conv2d(x, w, b + c).
struct FoldBiasAdd : OpRewritePattern<AddOp> {
  FoldBiasAdd(MLIRContext *ctx, FusionCounters &counters)
      : OpRewritePattern(ctx, /*benefit=*/2), counters(counters) {}
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    Conv2dOp conv = add.getA().getDefiningOp<Conv2dOp>();
    if (!conv) conv = add.getB().getDefiningOp<Conv2dOp>();
    if (!conv || !conv->hasOneUse()) return rewriter.notifyMatchFailure(add, "no single-use conv2d operand");
    Value c = otherOperand(add, conv.getResult());
    auto constant = c.getDefiningOp<ConstantOp>();
    if (!constant) return rewriter.notifyMatchFailure(add, "the other operand is not a constant");
    auto convType = cast<RankedTensorType>(conv.getType());
    auto cType = cast<RankedTensorType>(c.getType());
    if (add.getType() != convType || !convType.hasStaticShape() || !cType.hasStaticShape())
      return rewriter.notifyMatchFailure(add, "the add broadcasts the convolution's output");
    // Per channel: every dimension 1 except the output's channel dimension.
    int64_t channelDim = channelsLast(conv.getInputLayout()) ? 3 : 1;
    int64_t channels = convType.getDimSize(channelDim);
    int64_t offset = 4 - cType.getRank();
    for (int64_t d = 0; d < cType.getRank(); ++d) {
      int64_t expected = d + offset == channelDim ? channels : 1;
      if (cType.getDimSize(d) != expected)
        return rewriter.notifyMatchFailure(add, "the constant is not one value per output channel");
    }
    Value bias = ReshapeOp::create(rewriter, add.getLoc(), RankedTensorType::get({channels}, cType.getElementType()),
                                   c, rewriter.getDenseI64ArrayAttr({channels}))
                     .getResult();
    if (Value old = conv.getBias())
      bias = AddOp::create(rewriter, add.getLoc(), bias.getType(), old, bias).getResult();
    auto newConv = Conv2dOp::create(rewriter, conv.getLoc(), convType, conv.getInput(), conv.getFilter(), bias,
                                    conv.getPaddingAttr(), conv.getStridesAttr(), conv.getDilationsAttr(),
                                    conv.getGroupsAttr(), conv.getInputLayoutAttr(), conv.getFilterLayoutAttr());
    rewriter.replaceOp(add, newConv.getResult());
    rewriter.eraseOp(conv);
    ++counters.biasAdds;
    return success();
  }
  FusionCounters &counters;
};

// add(conv2d(...), r) -> fusedConv2d(..., residual r).
struct FuseResidualAdd : OpRewritePattern<AddOp> {
  FuseResidualAdd(MLIRContext *ctx, FusionCounters &counters)
      : OpRewritePattern(ctx, /*benefit=*/1), counters(counters) {}
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (Value side : {add.getA(), add.getB()}) {
      auto conv = side.getDefiningOp<Conv2dOp>();
      if (!conv || !conv->hasOneUse()) continue;
      Value residual = otherOperand(add, side);
      if (residual == side || residual.getType() != conv.getType() || add.getType() != conv.getType())
        continue;
      FusedConv2dOp fused = buildFused(rewriter, add.getLoc(), conv, residual, StringAttr(), FloatAttr(), FloatAttr());
      rewriter.replaceOp(add, fused.getResult());
      rewriter.eraseOp(conv);
      ++counters.residualAdds;
      return success();
    }
    return rewriter.notifyMatchFailure(add, "no single-use conv2d operand of the add's type");
  }
  FusionCounters &counters;
};

// relu | clamp | sigmoid | hardSwish of a single-use conv2d or fusedConv2d (activation
// "none") -> fusedConv2d with that activation.
struct FuseActivation : RewritePattern {
  FuseActivation(MLIRContext *ctx, FusionCounters &counters)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), counters(counters) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    StringAttr activation;
    FloatAttr minValue, maxValue;
    if (isa<ReluOp>(op)) {
      activation = rewriter.getStringAttr("relu");
    } else if (isa<SigmoidOp>(op)) {
      activation = rewriter.getStringAttr("sigmoid");
    } else if (isa<HardSwishOp>(op)) {
      activation = rewriter.getStringAttr("hardSwish");
    } else if (auto clamp = dyn_cast<ClampOp>(op)) {
      activation = rewriter.getStringAttr("clamp");
      minValue = clamp.getMinValueAttr();
      maxValue = clamp.getMaxValueAttr();
    } else {
      return rewriter.notifyMatchFailure(op, "not relu, clamp, sigmoid or hardSwish");
    }
    Value source = op->getOperand(0);
    if (!source.hasOneUse() || source.getType() != op->getResult(0).getType())
      return rewriter.notifyMatchFailure(op, "the activation's input has other uses");
    if (auto conv = source.getDefiningOp<Conv2dOp>()) {
      FusedConv2dOp fused = buildFused(rewriter, op->getLoc(), conv, Value(), activation, minValue, maxValue);
      rewriter.replaceOp(op, fused.getResult());
      rewriter.eraseOp(conv);
    } else if (auto prior = source.getDefiningOp<FusedConv2dOp>()) {
      if (prior.getActivation().value_or("none") != "none")
        return rewriter.notifyMatchFailure(op, "the fused conv already has an activation");
      rewriter.modifyOpInPlace(prior, [&] {
        prior.setActivationAttr(activation);
        prior.setActivationMinValueAttr(minValue);
        prior.setActivationMaxValueAttr(maxValue);
      });
      rewriter.replaceOp(op, prior.getResult());
    } else {
      return rewriter.notifyMatchFailure(op, "the input is not a convolution");
    }
    ++counters.activations;
    return success();
  }
  FusionCounters &counters;
};

// mul(c, sigmoid(c)) (either operand order), c a conv2d or a fusedConv2d
// without activation read only by that sigmoid and that mul -> fusedConv2d
// with activation "silu". The conv's result has two uses here, so
// FuseActivation leaves the sigmoid alone.
struct FuseSilu : OpRewritePattern<MulOp> {
  FuseSilu(MLIRContext *ctx, FusionCounters &counters)
      : OpRewritePattern(ctx, /*benefit=*/1), counters(counters) {}
  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    for (auto [x, other] : {std::pair(mul.getA(), mul.getB()), std::pair(mul.getB(), mul.getA())}) {
      auto sigmoid = other.getDefiningOp<SigmoidOp>();
      if (!sigmoid || sigmoid.getInput() != x || !sigmoid->hasOneUse()) continue;
      if (mul.getType() != x.getType() || sigmoid.getType() != x.getType()) continue;
      // Exactly the sigmoid and the mul read the convolution's result.
      if (std::distance(x.use_begin(), x.use_end()) != 2) continue;
      StringAttr silu = rewriter.getStringAttr("silu");
      if (auto conv = x.getDefiningOp<Conv2dOp>()) {
        FusedConv2dOp fused = buildFused(rewriter, mul.getLoc(), conv, Value(), silu, FloatAttr(), FloatAttr());
        rewriter.replaceOp(mul, fused.getResult());
        rewriter.eraseOp(sigmoid);
        rewriter.eraseOp(conv);
      } else if (auto prior = x.getDefiningOp<FusedConv2dOp>()) {
        if (prior.getActivation().value_or("none") != "none") continue;
        rewriter.modifyOpInPlace(prior, [&] { prior.setActivationAttr(silu); });
        rewriter.replaceOp(mul, prior.getResult());
        rewriter.eraseOp(sigmoid);
      } else {
        continue;
      }
      ++counters.activations;
      return success();
    }
    return rewriter.notifyMatchFailure(mul, "not mul(conv, sigmoid(conv)) with no other use of the conv");
  }
  FusionCounters &counters;
};

struct FuseConvPass : impl::WebNNFuseConvBase<FuseConvPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    FusionCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<FoldBiasAdd, FuseResidualAdd, FuseActivation, FuseSilu>(ctx, counters);
    // Walk in program order so a chain fuses from the convolution down: the
    // residual add before the activation that follows it.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    numBiasAddsFolded += counters.biasAdds;
    numResidualAddsFused += counters.residualAdds;
    numActivationsFused += counters.activations;
    recordRewrites(ctx, getArgument(), "bias-adds-folded", counters.biasAdds);
    recordRewrites(ctx, getArgument(), "residual-adds-fused", counters.residualAdds);
    recordRewrites(ctx, getArgument(), "activations-fused", counters.activations);
  }
};

}  // namespace
}  // namespace mlir::webnn
