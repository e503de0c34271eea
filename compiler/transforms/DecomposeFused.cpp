// --webnn-decompose-fused: fused macro ops back into WebNN spec ops, for
// targets that take pure WebNN graphs (docs/FUSED_OPS.md gives each
// expansion; the decoder-LLM ops' are in DecomposeLLM.cpp, docs/LLM.md).
#include "compiler/transforms/DecomposePatterns.h"
#include "compiler/transforms/MatchUtils.h"
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
struct DecomposeFusedConv2d : CountedExpansion<FusedConv2dOp> {
  using CountedExpansion::CountedExpansion;
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
    } else if (activation == "silu") {
      Value gate = SigmoidOp::create(rewriter, loc, type, result).getResult();
      result = MulOp::create(rewriter, loc, type, result, gate).getResult();
    } else if (activation == "hardSwish") {
      result = HardSwishOp::create(rewriter, loc, type, result).getResult();
    } else if (activation == "clamp") {
      result = ClampOp::create(rewriter, loc, type, result, op.getActivationMinValueAttr(),
                               op.getActivationMaxValueAttr())
                   .getResult();
    } else if (activation != "none") {
      return rewriter.notifyMatchFailure(op, "unknown activation");  // the verifier rejects these
    }
    return expandTo(rewriter, op, result);
  }
};

// fusedMatmul -> matmul -> [* alpha] -> [+ bias] -> [+ residual] -> [relu | gelu].
struct DecomposeFusedMatmul : CountedExpansion<FusedMatmulOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(FusedMatmulOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Value result = MatmulOp::create(rewriter, loc, type, op.getA(), op.getB()).getResult();
    if (double alpha = op.getAlpha() ? op.getAlpha()->convertToDouble() : 1.0; alpha != 1.0) {
      Type elem = cast<RankedTensorType>(type).getElementType();
      result = MulOp::create(rewriter, loc, type, result, scalarConstant(rewriter, loc, elem, alpha)).getResult();
    }
    if (Value bias = op.getBias()) result = AddOp::create(rewriter, loc, type, result, bias).getResult();
    if (Value residual = op.getResidual()) result = AddOp::create(rewriter, loc, type, result, residual).getResult();
    StringRef activation = op.getActivation().value_or("none");
    if (activation == "relu") result = ReluOp::create(rewriter, loc, type, result).getResult();
    else if (activation == "gelu") result = GeluOp::create(rewriter, loc, type, result).getResult();
    else if (activation != "none") return rewriter.notifyMatchFailure(op, "unknown activation");
    return expandTo(rewriter, op, result);
  }
};

// fusedAttention -> the head splits, softmax(scale * Q K^T) V per head, the
// head merge (FuseAttention.cpp's pattern, with K transposed to [B, H, Dh, T]
// in one transpose).
struct DecomposeFusedAttention : CountedExpansion<FusedAttentionOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(FusedAttentionOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto kType = cast<RankedTensorType>(op.getKey().getType());
    if (!qType.hasStaticShape() || !kType.hasStaticShape()) return rewriter.notifyMatchFailure(op, "dynamic shape");
    int64_t B = qType.getDimSize(0), S = qType.getDimSize(1), D = qType.getDimSize(2), T = kType.getDimSize(1);
    int64_t H = op.getHeads(), Dh = D / H;
    auto heads = [&](Value x, int64_t rows, ArrayRef<int64_t> perm) {
      Value r = reshapeTo(rewriter, loc, x, {B, rows, H, Dh});
      return TransposeOp::create(rewriter, loc, r, rewriter.getDenseI64ArrayAttr(perm)).getResult();
    };
    Value q4 = heads(op.getQuery(), S, {0, 2, 1, 3});
    Value kT = heads(op.getKey(), T, {0, 2, 3, 1});
    Value v4 = heads(op.getValue(), T, {0, 2, 1, 3});
    Value scores = MatmulOp::create(rewriter, loc, q4, kT).getResult();
    scores = MulOp::create(rewriter, loc, scores,
                           scalarConstant(rewriter, loc, qType.getElementType(), op.getScale().convertToDouble()))
                 .getResult();
    Value probs = SoftmaxOp::create(rewriter, loc, scores, rewriter.getI64IntegerAttr(3)).getResult();
    Value context = MatmulOp::create(rewriter, loc, probs, v4).getResult();
    Value merged = TransposeOp::create(rewriter, loc, context, rewriter.getDenseI64ArrayAttr({0, 2, 1, 3})).getResult();
    return expandTo(rewriter, op,
                    reshapeTo(rewriter, loc, merged, cast<RankedTensorType>(op.getType()).getShape()));
  }
};

// channelShuffle -> [concat] -> reshape -> transpose -> reshape -> [slice per result].
struct DecomposeChannelShuffle : CountedExpansion<ChannelShuffleOp> {
  using CountedExpansion::CountedExpansion;
  LogicalResult matchAndRewrite(ChannelShuffleOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const int64_t axis = op.getAxis(), groups = op.getGroups();
    Value x = op.getInputs()[0];
    if (op.getInputs().size() > 1) x = ConcatOp::create(rewriter, loc, op.getInputs(), axis).getResult();
    auto type = cast<RankedTensorType>(x.getType());
    const int64_t rank = type.getRank(), channels = type.getDimSize(axis);
    SmallVector<int64_t> factors(type.getShape());
    factors[axis] = channels / groups;
    factors.insert(factors.begin() + axis, groups);
    SmallVector<int64_t> swapped(factors), perm;
    std::swap(swapped[axis], swapped[axis + 1]);
    for (int64_t d = 0; d <= rank; ++d) perm.push_back(d == axis ? axis + 1 : d == axis + 1 ? axis : d);
    Type elem = type.getElementType();
    Value split = ReshapeOp::create(rewriter, loc, RankedTensorType::get(factors, elem), x,
                                    rewriter.getDenseI64ArrayAttr(factors)).getResult();
    Value moved = TransposeOp::create(rewriter, loc, RankedTensorType::get(swapped, elem), split,
                                      rewriter.getDenseI64ArrayAttr(perm)).getResult();
    Value y = ReshapeOp::create(rewriter, loc, type, moved, rewriter.getDenseI64ArrayAttr(type.getShape())).getResult();
    if (op.getSplits().size() == 1) return expandTo(rewriter, op, y);
    SmallVector<Value> pieces;
    SmallVector<int64_t> starts(rank, 0);
    for (auto [k, result] : llvm::enumerate(op.getOutputs())) {
      auto pieceType = cast<RankedTensorType>(result.getType());
      pieces.push_back(SliceOp::create(rewriter, loc, pieceType, y, rewriter.getDenseI64ArrayAttr(starts),
                                       rewriter.getDenseI64ArrayAttr(pieceType.getShape()), DenseI64ArrayAttr())
                           .getResult());
      starts[axis] += pieceType.getDimSize(axis);
    }
    return expandTo(rewriter, op, pieces);
  }
};

struct DecomposeFusedPass : impl::WebNNDecomposeFusedBase<DecomposeFusedPass> {
  void runOnOperation() override {
    int64_t count = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeFusedConv2d, DecomposeFusedMatmul, DecomposeFusedAttention, DecomposeChannelShuffle>(
        &getContext(), count);
    populateDecomposeLLMPatterns(patterns, count);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    // A target of pure WebNN graphs cannot run what is left.
    bool leftOver = false;
    getOperation().walk([&](Operation *op) {
      if (!isLLMOp(op) && !isa<FusedConv2dOp, FusedMatmulOp, FusedAttentionOp>(op)) return;
      op->emitOpError() << "has no expansion into WebNN spec ops here (it needs static shapes; "
                           "groupQueryAttention also a constant seqlensK (and totalSequenceLength, when given) "
                           "giving one past length for every batch entry, matmulNBits a constant weight and zero points)";
      leftOver = true;
    });
    if (leftOver) return signalPassFailure();
    numFusedOpsDecomposed += count;
    recordRewrites(&getContext(), getArgument(), "fused-ops-decomposed", count);
  }
};

}  // namespace
}  // namespace mlir::webnn
