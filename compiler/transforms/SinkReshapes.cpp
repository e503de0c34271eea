// --webnn-sink-reshapes: gelu(reshape(x)) -> reshape(gelu(x)), the gelu
// placed right after the op that makes x. gelu is element-wise, so the
// order does not change a value; what changes is that the gelu then
// directly follows that op, where the CPU runtime may run the two as one
// kernel (an adjacent pair, Backend::makeKernelPair): an nhwc
// instanceNormalization applies the gelu in its output sweep instead of a
// pass over the map after it (Normalization.cpp). PyTorch puts a reshape
// between GroupNorm's normalization and its GELU in wav2vec2's feature
// extractor, and between each conv1d and its GELU. The reshapes left in a
// row around the gelu then fold into one (--webnn-fold-constants).
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNSINKRESHAPES
#include "compiler/transforms/Passes.h.inc"

namespace {

struct SinkReshapeBelowGelu : OpRewritePattern<GeluOp> {
  SinkReshapeBelowGelu(MLIRContext *ctx, int64_t &counter) : OpRewritePattern(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(GeluOp gelu, PatternRewriter &rewriter) const override {
    auto reshape = gelu.getInput().getDefiningOp<ReshapeOp>();
    if (!reshape || !reshape->hasOneUse()) return rewriter.notifyMatchFailure(gelu, "the input is not a single-use reshape");
    auto inType = dyn_cast<RankedTensorType>(reshape.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(gelu.getType());
    if (!inType || !outType || !inType.hasStaticShape() || !outType.hasStaticShape() ||
        outType != reshape.getType())
      return rewriter.notifyMatchFailure(gelu, "dynamic or mismatched shapes");
    Value x = reshape.getInput();
    if (Operation *producer = x.getDefiningOp()) rewriter.setInsertionPointAfter(producer);
    else rewriter.setInsertionPoint(reshape);
    auto moved = GeluOp::create(rewriter, gelu.getLoc(), inType, x);
    auto after = ReshapeOp::create(rewriter, reshape.getLoc(), outType, moved.getResult(), reshape.getNewShapeAttr());
    rewriter.replaceOp(gelu, after.getResult());
    rewriter.eraseOp(reshape);
    ++counter;
    return success();
  }
  int64_t &counter;
};

struct SinkReshapesPass : impl::WebNNSinkReshapesBase<SinkReshapesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t sunk = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<SinkReshapeBelowGelu>(ctx, sunk);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numReshapesSunk += sunk;
    recordRewrites(ctx, getArgument(), "reshapes-sunk", sunk);
  }
};

}  // namespace
}  // namespace mlir::webnn
