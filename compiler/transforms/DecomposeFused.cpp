// --webnn-decompose-fused: fused macro ops back into WebNN spec ops, for
// targets that take pure WebNN graphs (docs/FUSED_OPS.md gives each
// expansion).
#include "compiler/transforms/DecomposePatterns.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNDECOMPOSEFUSED
#include "compiler/transforms/Passes.h.inc"

namespace {

// fusedConv2d -> conv2d (with its bias) -> add(residual) -> activation.
struct DecomposeFusedConv2d : OpRewritePattern<FusedConv2dOp> {
  DecomposeFusedConv2d(MLIRContext *ctx, int64_t &count) : OpRewritePattern(ctx), count(count) {}
  LogicalResult matchAndRewrite(FusedConv2dOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Value result = Conv2dOp::create(rewriter, loc, type, op.getInput(), op.getFilter(), op.getBias(),
                                    op.getPaddingAttr(), op.getStridesAttr(), op.getDilationsAttr(),
                                    op.getGroupsAttr(), op.getInputLayoutAttr(), op.getFilterLayoutAttr())
                       .getResult();
    if (Value residual = op.getResidual()) result = AddOp::create(rewriter, loc, type, result, residual).getResult();
    StringRef activation = op.getActivation().value_or("none");
    if (activation == "relu") {
      result = ReluOp::create(rewriter, loc, type, result).getResult();
    } else if (activation == "sigmoid") {
      result = SigmoidOp::create(rewriter, loc, type, result).getResult();
    } else if (activation == "clamp") {
      result = ClampOp::create(rewriter, loc, type, result, op.getActivationMinValueAttr(),
                               op.getActivationMaxValueAttr())
                   .getResult();
    } else if (activation != "none") {
      return rewriter.notifyMatchFailure(op, "unknown activation");  // the verifier rejects these
    }
    rewriter.replaceOp(op, result);
    ++count;
    return success();
  }
  int64_t &count;
};

struct DecomposeFusedPass : impl::WebNNDecomposeFusedBase<DecomposeFusedPass> {
  void runOnOperation() override {
    int64_t count = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeFusedConv2d>(&getContext(), count);
    populateDecomposeLLMPatterns(patterns, count);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    // A target of pure WebNN graphs cannot run what is left.
    bool leftOver = false;
    getOperation().walk([&](Operation *op) {
      if (!isLLMOp(op)) return;
      op->emitOpError() << "has no expansion into WebNN spec ops here (groupQueryAttention needs constant "
                           "seqlensK and totalSequenceLength, one past length for every batch entry and "
                           "static shapes; matmulNBits a constant weight and zero points)";
      leftOver = true;
    });
    if (leftOver) return signalPassFailure();
    numFusedOpsDecomposed += count;
    recordRewrites(&getContext(), getArgument(), "fused-ops-decomposed", count);
  }
};

}  // namespace
}  // namespace mlir::webnn
