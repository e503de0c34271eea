// --webnn-fold-norm-affine: per-channel constant multiplies and adds after an
// nhwc instanceNormalization, through reshapes that keep the channels last,
// into the normalization's own scale and bias:
//
//   mul(instanceNormalization(x, s, b), c)  -> instanceNormalization(x, s c, b c)
//   add(instanceNormalization(x, s, b), d)  -> instanceNormalization(x, s, b + d)
//
// PyTorch exports GroupNorm(C, C) (wav2vec2's feature extractor) as
// InstanceNormalization with unit scale and zero bias, then a Mul and an Add
// with the affine weights: two more passes over the normalized map (3199 x
// 512 there), which the normalization's final sweep does for nothing. The new
// scale and bias are mul/add of constants, which --webnn-fold-constants then
// evaluates.
//
// Every step requires a single use: a value another op still reads must be
// computed anyway.
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFOLDNORMAFFINE
#include "compiler/transforms/Passes.h.inc"

namespace {

// The nhwc instanceNormalization `v` is, through single-use reshapes whose
// last dimension stays the channel count (element i is then channel i % C
// before and after); null if none.
InstanceNormalizationOp normBehindReshapes(Value v) {
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    if (!reshape->hasOneUse()) return {};
    v = reshape.getInput();
  }
  auto norm = v.getDefiningOp<InstanceNormalizationOp>();
  if (!norm || !norm->hasOneUse() || norm.getLayout().value_or("nchw") != "nhwc") return {};
  return norm;
}

template <typename BinaryOp>
struct FoldIntoNorm : OpRewritePattern<BinaryOp> {
  FoldIntoNorm(MLIRContext *ctx, int64_t &counter) : OpRewritePattern<BinaryOp>(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rewriter) const override {
    for (auto [side, other] : {std::pair(op.getA(), op.getB()), std::pair(op.getB(), op.getA())}) {
      InstanceNormalizationOp norm = normBehindReshapes(side);
      if (!norm || !other.template getDefiningOp<ConstantOp>()) continue;
      auto sideType = dyn_cast<RankedTensorType>(side.getType());
      auto cType = dyn_cast<RankedTensorType>(other.getType());
      auto normType = dyn_cast<RankedTensorType>(norm.getType());
      if (!sideType || !cType || !normType || !sideType.hasStaticShape() || !cType.hasStaticShape() ||
          !normType.hasStaticShape() || op.getType() != sideType || sideType.getRank() == 0)
        return rewriter.notifyMatchFailure(op, "the op broadcasts the normalized tensor");
      if (cType.getElementType() != normType.getElementType())
        return rewriter.notifyMatchFailure(op, "the constant's type differs");
      // One value per channel: every dimension 1 but the last, which is C.
      const int64_t channels = normType.getDimSize(3);
      if (sideType.getDimSize(sideType.getRank() - 1) != channels)
        return rewriter.notifyMatchFailure(op, "a reshape moved the channels off the last dimension");
      bool perChannel = cType.getRank() >= 1 && cType.getDimSize(cType.getRank() - 1) == channels;
      for (int64_t d = 0; perChannel && d + 1 < cType.getRank(); ++d) perChannel = cType.getDimSize(d) == 1;
      if (!perChannel) return rewriter.notifyMatchFailure(op, "the constant is not one value per channel");

      Location loc = op.getLoc();
      auto vecType = RankedTensorType::get({channels}, cType.getElementType());
      Value c = ReshapeOp::create(rewriter, loc, vecType, other, rewriter.getDenseI64ArrayAttr({channels})).getResult();
      Value scale = norm.getScale(), bias = norm.getBias();
      if constexpr (std::is_same_v<BinaryOp, MulOp>) {
        scale = scale ? MulOp::create(rewriter, loc, vecType, scale, c).getResult() : c;
        if (bias) bias = MulOp::create(rewriter, loc, vecType, bias, c).getResult();
      } else {
        bias = bias ? AddOp::create(rewriter, loc, vecType, bias, c).getResult() : c;
      }
      // The new normalization and its reshapes go where the op was: the
      // constant may be defined after the old normalization.
      Value result = InstanceNormalizationOp::create(rewriter, norm.getLoc(), normType, norm.getInput(), scale, bias,
                                                     norm.getEpsilonAttr(), norm.getLayoutAttr())
                         .getResult();
      SmallVector<ReshapeOp> reshapes;
      Value v = side;
      while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
        reshapes.push_back(reshape);
        v = reshape.getInput();
      }
      for (auto it = reshapes.rbegin(); it != reshapes.rend(); ++it)
        result = ReshapeOp::create(rewriter, it->getLoc(), it->getType(), result, it->getNewShapeAttr()).getResult();
      rewriter.replaceOp(op, result);
      for (ReshapeOp reshape : reshapes) rewriter.eraseOp(reshape);
      rewriter.eraseOp(norm);
      ++counter;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no single-use nhwc instanceNormalization operand beside a constant");
  }
  int64_t &counter;
};

struct FoldNormAffinePass : impl::WebNNFoldNormAffineBase<FoldNormAffinePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t muls = 0, adds = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<FoldIntoNorm<MulOp>>(ctx, muls);
    patterns.add<FoldIntoNorm<AddOp>>(ctx, adds);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numMulsFolded += muls;
    numAddsFolded += adds;
    recordRewrites(ctx, getArgument(), "muls-folded", muls);
    recordRewrites(ctx, getArgument(), "adds-folded", adds);
  }
};

}  // namespace
}  // namespace mlir::webnn
