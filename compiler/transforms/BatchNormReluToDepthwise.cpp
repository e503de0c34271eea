// --webnn-batchnorm-relu-to-depthwise: relu(batchNormalization(x, mean,
// var, scale, bias)) with constant statistics, nhwc (axis 3), read only by
// a 1x1 stride-1 unpadded ungrouped convolution, becomes
//
//   fusedConv2d(x, m, bias = a, groups = C, activation = "relu")
//
// a depthwise 1x1 convolution with m[c] = scale[c] / sqrt(var[c] + eps) and
// a[c] = bias[c] - mean[c] * m[c]: the same per-channel multiply-add and
// relu, as one convolution node. The CPU runtime then runs it together with
// the 1x1 after it as one kernel pair (kernels/conv/AffinePointwisePair.cpp):
// the 1x1 reads x a block of pixels at a time, normalized in cache, instead
// of a pass that writes the whole normalized map and a convolution that
// reads it back. DenseNet's dense layers (concat -> batchNorm -> relu -> 1x1
// conv) have 58 of these over maps of up to 56x56x224 (docs/PERFORMANCE.md,
// issue 19). Values differ by the rounding of m and a only. Maps under
// min-pixels (56x56) keep batchNormalization + relu: there the normalized
// map stays in L2 for oneDNN's 1x1, which is faster than the pair's tiles.
#include <cmath>

#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNBATCHNORMRELUTODEPTHWISE
#include "compiler/transforms/Passes.h.inc"

namespace {

// Whether `op` is a 1x1, stride-1, undilated, unpadded, ungrouped nhwc
// convolution (conv2d or fusedConv2d) whose input is `v`.
template <typename ConvOp>
bool plainPointwiseOf(ConvOp conv, Value v) {
  if (!conv || conv.getInput() != v) return false;
  if (!allEqual(conv.getPadding(), 0) || !allEqual(conv.getStrides(), 1) || !allEqual(conv.getDilations(), 1))
    return false;
  if (conv.getGroups().value_or(1) != 1 || conv.getInputLayout().value_or("nchw") != "nhwc") return false;
  auto w = dyn_cast<RankedTensorType>(conv.getFilter().getType());
  if (!w || !w.hasStaticShape() || w.getRank() != 4) return false;
  StringRef layout = conv.getFilterLayout().value_or("oihw");
  for (size_t i = 0; i < 4 && i < layout.size(); ++i)
    if ((layout[i] == 'h' || layout[i] == 'w') && w.getDimSize(int64_t(i)) != 1) return false;
  return true;
}

struct BatchNormReluAsDepthwise : OpRewritePattern<ReluOp> {
  BatchNormReluAsDepthwise(MLIRContext *ctx, int64_t minPixels, int64_t &counter)
      : OpRewritePattern(ctx), minPixels(minPixels), counter(counter) {}
  LogicalResult matchAndRewrite(ReluOp relu, PatternRewriter &rewriter) const override {
    auto bn = relu.getInput().getDefiningOp<BatchNormalizationOp>();
    if (!bn || !bn->hasOneUse()) return rewriter.notifyMatchFailure(relu, "the input is not a single-use batchNormalization");
    if (!relu->hasOneUse()) return rewriter.notifyMatchFailure(relu, "the relu has more than one reader");
    Operation *user = *relu->getUsers().begin();
    if (!plainPointwiseOf(dyn_cast<Conv2dOp>(user), relu.getResult()) &&
        !plainPointwiseOf(dyn_cast<FusedConv2dOp>(user), relu.getResult()))
      return rewriter.notifyMatchFailure(relu, "the reader is not a plain nhwc 1x1 convolution of it");
    auto x = dyn_cast<RankedTensorType>(bn.getInput().getType());
    if (!x || !x.hasStaticShape() || x.getRank() != 4 || !x.getElementType().isF32())
      return rewriter.notifyMatchFailure(relu, "not a static 4-D float32 tensor");
    if (bn.getAxis().value_or(1) != 3) return rewriter.notifyMatchFailure(relu, "the channels are not the last axis");
    if (x.getDimSize(1) * x.getDimSize(2) < minPixels)
      return rewriter.notifyMatchFailure(relu, "the map is smaller than min-pixels");
    const int64_t C = x.getDimSize(3);
    std::optional<SmallVector<double>> mean = floatConstantValues(bn.getMean());
    std::optional<SmallVector<double>> var = floatConstantValues(bn.getVariance());
    std::optional<SmallVector<double>> scale, bias;
    if (bn.getScale()) scale = floatConstantValues(bn.getScale());
    if (bn.getBias()) bias = floatConstantValues(bn.getBias());
    auto sized = [&](const std::optional<SmallVector<double>> &v) { return v && int64_t(v->size()) == C; };
    if (!sized(mean) || !sized(var) || (bn.getScale() && !sized(scale)) || (bn.getBias() && !sized(bias)))
      return rewriter.notifyMatchFailure(relu, "the statistics, scale or bias are not constants of C values");
    const double eps = bn.getEpsilon() ? bn.getEpsilon()->convertToDouble() : 1e-5;
    SmallVector<double> m(static_cast<size_t>(C)), a(static_cast<size_t>(C));
    for (size_t c = 0; c < size_t(C); ++c) {
      // float32 steps, as the runtime's batchNormalization folds them.
      const float mul = float(scale ? (*scale)[c] : 1.0) / std::sqrt(float((*var)[c]) + float(eps));
      m[c] = mul;
      a[c] = float(bias ? (*bias)[c] : 0.0) - float((*mean)[c]) * mul;
    }
    Location loc = bn.getLoc();
    Type f32 = x.getElementType();
    Value filter = floatConstant(rewriter, loc, {C, 1, 1, 1}, f32, m);
    Value shift = floatConstant(rewriter, loc, {C}, f32, a);
    auto conv = FusedConv2dOp::create(
        rewriter, relu.getLoc(), relu.getType(), bn.getInput(), filter, shift, Value(),
        rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}), rewriter.getDenseI64ArrayAttr({1, 1}),
        rewriter.getDenseI64ArrayAttr({1, 1}), rewriter.getI64IntegerAttr(C), rewriter.getStringAttr("nhwc"),
        rewriter.getStringAttr("ohwi"), rewriter.getStringAttr("relu"), FloatAttr(), FloatAttr());
    rewriter.replaceOp(relu, conv.getResult());
    rewriter.eraseOp(bn);
    ++counter;
    return success();
  }
  int64_t minPixels;
  int64_t &counter;
};

struct BatchNormReluToDepthwisePass : impl::WebNNBatchNormReluToDepthwiseBase<BatchNormReluToDepthwisePass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t rewritten = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<BatchNormReluAsDepthwise>(ctx, int64_t(minPixels), rewritten);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numRewritten += rewritten;
    recordRewrites(ctx, getArgument(), "batchnorm-relus", rewritten);
  }
};

}  // namespace
}  // namespace mlir::webnn
