// --webnn-pool-before-pointwise: averagePool2d(conv2d(x, w, b)) ->
// conv2d(averagePool2d(x), w, b) for a 1x1, stride-1, undilated, unpadded
// convolution read only by an unpadded average pool in the same layout.
// Each output pixel of such a convolution is w times its input pixel plus
// b, and each window of an unpadded pool averages real pixels only, so the
// two commute (the bias averages to itself); the convolution then runs on
// the pooled map. DenseNet's transition layers (batchNorm, relu, 1x1 conv,
// 2x2 stride-2 average pool) then do a quarter of their multiplies
// (docs/PERFORMANCE.md, issue 19). The values differ by rounding order only.
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNPOOLBEFOREPOINTWISE
#include "compiler/transforms/Passes.h.inc"

namespace {

struct MovePoolBeforePointwise : OpRewritePattern<AveragePool2dOp> {
  MovePoolBeforePointwise(MLIRContext *ctx, int64_t &counter) : OpRewritePattern(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(AveragePool2dOp pool, PatternRewriter &rewriter) const override {
    auto conv = pool.getInput().getDefiningOp<Conv2dOp>();
    if (!conv || !conv->hasOneUse()) return rewriter.notifyMatchFailure(pool, "the input is not a single-use conv2d");
    if (!allEqual(conv.getPadding(), 0) || !allEqual(conv.getStrides(), 1) || !allEqual(conv.getDilations(), 1))
      return rewriter.notifyMatchFailure(pool, "the convolution is padded, strided or dilated");
    if (!allEqual(pool.getPadding(), 0)) return rewriter.notifyMatchFailure(pool, "the pool is padded");
    const bool nhwc = conv.getInputLayout().value_or("nchw") == "nhwc";
    if (nhwc != (pool.getLayout().value_or("nchw") == "nhwc"))
      return rewriter.notifyMatchFailure(pool, "the pool's layout is not the convolution's input layout");
    auto x = dyn_cast<RankedTensorType>(conv.getInput().getType());
    auto w = dyn_cast<RankedTensorType>(conv.getFilter().getType());
    auto y = dyn_cast<RankedTensorType>(pool.getType());
    auto c = dyn_cast<RankedTensorType>(conv.getType());
    if (!x || !w || !y || !c || !x.hasStaticShape() || !w.hasStaticShape() || !y.hasStaticShape() ||
        !c.hasStaticShape() || x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
      return rewriter.notifyMatchFailure(pool, "dynamic or not 4-D shapes");
    // 1x1: the filter's two spatial extents, whatever its layout's letters.
    StringRef layout = conv.getFilterLayout().value_or("oihw");
    for (size_t i = 0; i < 4 && i < layout.size(); ++i)
      if ((layout[i] == 'h' || layout[i] == 'w') && w.getDimSize(int64_t(i)) != 1)
        return rewriter.notifyMatchFailure(pool, "the filter is not 1x1");
    const int64_t hAxis = nhwc ? 1 : 2, wAxis = nhwc ? 2 : 3, cAxis = nhwc ? 3 : 1;
    if (y.getDimSize(hAxis) * y.getDimSize(wAxis) >= c.getDimSize(hAxis) * c.getDimSize(wAxis))
      return rewriter.notifyMatchFailure(pool, "the pool does not shrink the map");
    SmallVector<int64_t> pooledShape(y.getShape());
    pooledShape[size_t(cAxis)] = x.getDimSize(cAxis);
    auto pooledType = RankedTensorType::get(pooledShape, x.getElementType());
    rewriter.setInsertionPoint(pool);
    auto pooled = AveragePool2dOp::create(rewriter, pool.getLoc(), pooledType, conv.getInput(),
                                          pool.getWindowDimensionsAttr(), pool.getPaddingAttr(),
                                          pool.getStridesAttr(), pool.getDilationsAttr(), pool.getLayoutAttr(),
                                          pool.getRoundingTypeAttr(), pool.getOutputSizesAttr());
    auto moved = Conv2dOp::create(rewriter, conv.getLoc(), y, pooled.getResult(), conv.getFilter(), conv.getBias(),
                                  conv.getPaddingAttr(), conv.getStridesAttr(), conv.getDilationsAttr(),
                                  conv.getGroupsAttr(), conv.getInputLayoutAttr(), conv.getFilterLayoutAttr());
    rewriter.replaceOp(pool, moved.getResult());
    rewriter.eraseOp(conv);
    ++counter;
    return success();
  }
  int64_t &counter;
};

struct PoolBeforePointwisePass : impl::WebNNPoolBeforePointwiseBase<PoolBeforePointwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t moved = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<MovePoolBeforePointwise>(ctx, moved);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numPoolsMoved += moved;
    recordRewrites(ctx, getArgument(), "pools-moved", moved);
  }
};

}  // namespace
}  // namespace mlir::webnn
