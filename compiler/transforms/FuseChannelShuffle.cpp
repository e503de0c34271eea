// --webnn-fuse-channel-shuffle: ShuffleNet's channel shuffle, the concat
// before it and the channel split after it, into one webnn.channelShuffle
// (docs/FUSED_OPS.md):
//
//   x = concat(a, b, ..., axis)?                   (absorbed when x has no other reader)
//   s = reshape(x, [..., g, C/g, ...])             (axis split into two factors)
//   t = transpose(s, the two factors swapped)
//   y = reshape(t, x's shape)
//   slice(y, [lo_k, hi_k) along axis) ...         (absorbed when they cut y into pieces)
//
// After --webnn-convert-layout the shuffle is channels-last, so unfused each
// ShuffleNetV2 unit copies its channels five times (concat, the two
// reshapes, the transpose, the slices); the kernel reads each input element
// once and writes it once, into its place in its piece.
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSECHANNELSHUFFLE
#include "compiler/transforms/Passes.h.inc"

namespace {

struct ShuffleCounters {
  int64_t shuffles = 0, opsReplaced = 0;
};

// The axis of x that `split` cuts into two factors and `perm` swaps back,
// or -1: perm is the identity but for positions a and a + 1, and split's
// shape is x's with dimension a replaced by two whose product it is.
int64_t shuffledAxis(ArrayRef<int64_t> x, ArrayRef<int64_t> split, ArrayRef<int64_t> perm) {
  const int64_t rank = int64_t(x.size());
  if (int64_t(split.size()) != rank + 1 || int64_t(perm.size()) != rank + 1) return -1;
  int64_t axis = -1;
  for (int64_t i = 0; i <= rank; ++i) {
    if (perm[i] == i) continue;
    if (axis < 0 && i < rank && perm[i] == i + 1 && perm[i + 1] == i) {
      axis = i;
      ++i;
      continue;
    }
    return -1;
  }
  if (axis < 0) return -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis && split[d] != x[d]) return -1;
    if (d > axis && split[d + 1] != x[d]) return -1;
  }
  return split[axis] * split[axis + 1] == x[axis] ? axis : -1;
}

// Rooted at the reshape that merges the swapped factors back.
struct ChannelShuffle : OpRewritePattern<ReshapeOp> {
  ChannelShuffle(MLIRContext *ctx, ShuffleCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(ReshapeOp merge, PatternRewriter &rewriter) const override {
    auto transpose = merge.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || !transpose->hasOneUse()) return rewriter.notifyMatchFailure(merge, "not after a transpose");
    auto split = transpose.getInput().getDefiningOp<ReshapeOp>();
    if (!split || !split->hasOneUse())
      return rewriter.notifyMatchFailure(merge, "the transpose is not after a reshape");
    Value x = split.getInput();
    auto xType = cast<RankedTensorType>(x.getType());
    auto splitType = cast<RankedTensorType>(split.getType());
    if (!xType.hasStaticShape() || xType != merge.getType())
      return rewriter.notifyMatchFailure(merge, "not back to the input's static shape");
    std::optional<ArrayRef<int64_t>> perm = transpose.getPermutation();
    if (!perm) return rewriter.notifyMatchFailure(merge, "the transpose reverses every dimension");
    const int64_t axis = shuffledAxis(xType.getShape(), splitType.getShape(), *perm);
    if (axis < 0) return rewriter.notifyMatchFailure(merge, "not a swap of two factors of one axis");
    const int64_t groups = splitType.getDimSize(axis), channels = xType.getDimSize(axis);
    if (groups < 2 || groups == channels) return rewriter.notifyMatchFailure(merge, "a factor of 1: no shuffle");

    SmallVector<Value> inputs{x};
    Operation *concat = nullptr;
    if (auto c = x.getDefiningOp<ConcatOp>(); c && c.getAxis() == axis && x.hasOneUse()) {
      inputs.assign(c.getInputs().begin(), c.getInputs().end());
      concat = c;
    }

    // The pieces: slices of y along the axis, unit strides, whole elsewhere,
    // covering it exactly once; otherwise y itself is the one result.
    SmallVector<SliceOp> slices;
    for (Operation *user : merge->getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      if (!slice) {
        slices.clear();
        break;
      }
      slices.push_back(slice);
    }
    auto wholeOffAxis = [&](SliceOp s) {
      if (std::optional<ArrayRef<int64_t>> strides = s.getStrides())
        for (int64_t st : *strides)
          if (st != 1) return false;
      for (int64_t d = 0; d < xType.getRank(); ++d)
        if (d != axis && (s.getStarts()[d] != 0 || s.getSizes()[d] != xType.getDimSize(d))) return false;
      return true;
    };
    llvm::sort(slices, [&](SliceOp a, SliceOp b) { return a.getStarts()[axis] < b.getStarts()[axis]; });
    SmallVector<int64_t> splits;
    int64_t next = 0;
    for (SliceOp s : slices) {
      if (!wholeOffAxis(s) || s.getStarts()[axis] != next) {
        splits.clear();
        break;
      }
      splits.push_back(s.getSizes()[axis]);
      next += s.getSizes()[axis];
    }
    if (splits.empty() || next != channels) {
      slices.clear();
      splits.assign(1, channels);
    }

    rewriter.setInsertionPoint(merge);
    auto fused = ChannelShuffleOp::create(rewriter, merge.getLoc(), inputs, axis, groups, splits);
    int64_t replaced = 3;
    if (slices.empty()) {
      rewriter.replaceOp(merge, fused.getOutputs()[0]);
    } else {
      for (auto [k, s] : llvm::enumerate(slices)) rewriter.replaceOp(s, fused.getOutputs()[k]);
      replaced += int64_t(slices.size());
      rewriter.eraseOp(merge);
    }
    rewriter.eraseOp(transpose);
    rewriter.eraseOp(split);
    if (concat) {
      rewriter.eraseOp(concat);
      ++replaced;
    }
    ++counters.shuffles;
    counters.opsReplaced += replaced;
    return success();
  }
  ShuffleCounters &counters;
};

struct FuseChannelShufflePass : impl::WebNNFuseChannelShuffleBase<FuseChannelShufflePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ShuffleCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<ChannelShuffle>(ctx, counters);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numShufflesFused += counters.shuffles;
    numOpsReplaced += counters.opsReplaced;
    StringRef pass = getArgument();
    recordRewrites(ctx, pass, "shuffles-fused", counters.shuffles);
    recordRewrites(ctx, pass, "ops-replaced", counters.opsReplaced);
  }
};

}  // namespace
}  // namespace mlir::webnn
