// --webnn-fuse-rms-norm: the RMSNorm that PyTorch exports for Llama-style
// models, and the residual add before it, into webnn.rmsNormalization and
// webnn.skipRmsNormalization (docs/LLM.md):
//
//   xf = cast(x, f32)?                                    (fp16 models)
//   r  = sqrt(reduceMean(pow(xf, 2) | xf * xf, [last], keepDims) + eps)
//   n  = xf / r | xf * reciprocal(r) | xf * (1 / r)   (the last: torch.rsqrt)
//   y  = weight * cast(n, x's type)?                      -> rmsNormalization(x, weight)
//
//   rmsNormalization(a + b, w)                            -> skipRmsNormalization(a, b, w),
//                                                            its sum replacing a + b's other uses
//
// Unfused, an RMSNorm is six passes over the hidden state (two more with the
// casts); the kernel makes two, and the skip form writes the residual sum in
// the first.
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSERMSNORM
#include "compiler/transforms/Passes.h.inc"

namespace {

struct RmsCounters {
  int64_t rms = 0, skip = 0, opsReplaced = 0;
};

Value castSource(Value v) {
  if (auto cast = v.getDefiningOp<CastOp>()) return cast.getInput();
  return Value();
}

bool singleUse(Value v) { return v.hasOneUse(); }

// Rooted at the weight multiply: weight * n or n * weight, n possibly cast back.
struct RmsNorm : OpRewritePattern<MulOp> {
  RmsNorm(MLIRContext *ctx, RmsCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  // sqrt(reduceMean(x^2, last, keepDims) + eps) -> x, *eps; *ops collects the chain.
  static Value rmsOf(Value r, double *eps, SmallVectorImpl<Operation *> &ops) {
    auto sqrt = r.getDefiningOp<SqrtOp>();
    if (!sqrt || !singleUse(sqrt)) return Value();
    auto add = sqrt.getInput().getDefiningOp<AddOp>();
    if (!add || !singleUse(add)) return Value();
    for (Value side : {add.getA(), add.getB()}) {
      std::optional<double> e = uniformFloatConstant(otherOperand(add, side));
      auto mean = side.getDefiningOp<ReduceMeanOp>();
      if (!e || *e < 0 || !mean || !singleUse(mean) || !mean.getKeepDimensions().value_or(false)) continue;
      auto inType = cast<RankedTensorType>(mean.getInput().getType());
      std::optional<ArrayRef<int64_t>> axes = mean.getAxes();
      int64_t rank = inType.getRank();
      if (rank < 1 || !axes || axes->size() != 1 || ((*axes)[0] != rank - 1 && (*axes)[0] != -1)) continue;
      if (add.getType() != mean.getType()) continue;  // eps must not broadcast the statistic
      Operation *sq = mean.getInput().getDefiningOp();
      if (!sq || !sq->hasOneUse()) continue;
      Value x;
      if (auto pow = dyn_cast<PowOp>(sq)) {
        std::optional<double> two = uniformFloatConstant(pow.getB());
        if (two && *two == 2.0) x = pow.getA();
      } else if (auto mul = dyn_cast<MulOp>(sq)) {
        if (mul.getA() == mul.getB()) x = mul.getA();
      }
      if (!x || x.getType() != sq->getResult(0).getType()) continue;
      *eps = *e;
      ops.append({sqrt, add, mean, sq});
      return x;
    }
    return Value();
  }

  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    auto rootType = cast<RankedTensorType>(root.getType());
    if (!rootType.hasStaticShape() || rootType.getRank() < 1)
      return rewriter.notifyMatchFailure(root, "not a static shape of rank >= 1");
    int64_t hidden = rootType.getShape().back();
    for (Value side : {root.getA(), root.getB()}) {
      Value weight = otherOperand(root, side);
      SmallVector<Operation *> ops{root};
      Value n = side, castBack;
      if (auto back = n.getDefiningOp<CastOp>()) {
        if (!singleUse(back)) continue;
        castBack = back;
        ops.push_back(back);
        n = back.getInput();
      }
      if (!singleUse(n)) continue;
      // n = x / r or x * reciprocal(r)
      Value x, r;
      if (auto div = n.getDefiningOp<DivOp>()) {
        x = div.getA();
        r = div.getB();
        ops.push_back(div);
      } else if (auto mul = n.getDefiningOp<MulOp>()) {
        for (Value f : {mul.getA(), mul.getB()}) {
          if (auto recip = f.getDefiningOp<ReciprocalOp>(); recip && singleUse(recip)) {
            x = otherOperand(mul, f);
            r = recip.getInput();
            ops.append({mul, recip});
            break;
          }
          // torch.rsqrt exports as Div(1, Sqrt(.)).
          if (auto inv = f.getDefiningOp<DivOp>(); inv && singleUse(inv) && uniformFloatConstant(inv.getA()) == 1.0) {
            x = otherOperand(mul, f);
            r = inv.getB();
            ops.append({mul, inv});
            break;
          }
        }
      }
      if (!x) continue;
      double eps = 0;
      Value squared = rmsOf(r, &eps, ops);
      if (!squared || squared != x || x.getType() != n.getType()) continue;
      // The fused op computes in float32 and returns the input's type: with a
      // cast back, x must be cast(x0) with x0 of that type.
      Value input = x;
      if (castBack) {
        Value x0 = castSource(x);
        if (!x0 || x0.getType() != castBack.getType() ||
            !cast<RankedTensorType>(x.getType()).getElementType().isF32())
          continue;
        input = x0;
      }
      if (input.getType() != root.getType()) continue;  // the weight must not broadcast the result
      auto weightType = cast<RankedTensorType>(weight.getType());
      if (weightType.getElementType() != rootType.getElementType() || !weightType.hasStaticShape() ||
          weightType.getNumElements() != hidden || (weightType.getRank() > 0 && weightType.getShape().back() != hidden))
        continue;  // one weight per feature of the last axis
      rewriter.setInsertionPoint(root);
      Value scale = reshapeTo(rewriter, root.getLoc(), weight, {hidden});
      auto fused = RmsNormalizationOp::create(rewriter, root.getLoc(), input, scale,
                                              rewriter.getI64IntegerAttr(rootType.getRank() - 1),
                                              rewriter.getF64FloatAttr(eps));
      rewriter.replaceOp(root, fused.getOutput());
      // Erase the chain (users first); the cast of x stays if others read it.
      for (Operation *op : ops)
        if (op != root.getOperation() && op->use_empty()) rewriter.eraseOp(op);
      counters.opsReplaced += ops.size();
      if (Operation *xCast = x.getDefiningOp(); castBack && xCast && xCast->use_empty()) {
        rewriter.eraseOp(xCast);
        ++counters.opsReplaced;
      }
      ++counters.rms;
      return success();
    }
    return rewriter.notifyMatchFailure(root, "not weight * (x / sqrt(mean(x^2, last axis) + eps))");
  }
  RmsCounters &counters;
};

// rmsNormalization(a + b, w) over the last axis -> skipRmsNormalization(a, b, w).
struct SkipRmsNorm : OpRewritePattern<RmsNormalizationOp> {
  SkipRmsNorm(MLIRContext *ctx, RmsCounters &counters) : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(RmsNormalizationOp rms, PatternRewriter &rewriter) const override {
    auto add = rms.getInput().getDefiningOp<AddOp>();
    if (!add) return rewriter.notifyMatchFailure(rms, "the input is not an add");
    auto type = cast<RankedTensorType>(add.getType());
    if (rms.getAxis().value_or(type.getRank() - 1) != type.getRank() - 1)
      return rewriter.notifyMatchFailure(rms, "not normalized over the last axis only");
    if (add.getA().getType() != type || add.getB().getType() != type)
      return rewriter.notifyMatchFailure(rms, "the add broadcasts");
    if (!rms.getInvStdDev().use_empty()) return rewriter.notifyMatchFailure(rms, "invStdDev is used");
    if (add->getBlock() != rms->getBlock()) return rewriter.notifyMatchFailure(rms, "not in one block");
    // The sum replaces the add's other uses, so the fused op goes where the
    // add is (the gamma may be defined later: then every other use of the
    // add must follow the norm, which takes the add's place).
    Operation *at = add;
    if (Operation *g = rms.getScale().getDefiningOp(); g && g->getBlock() == add->getBlock() &&
                                                       add->isBeforeInBlock(g)) {
      at = rms;
      for (Operation *user : add->getUsers())
        if (user != rms.getOperation() && (user->getBlock() != rms->getBlock() || user->isBeforeInBlock(rms)))
          return rewriter.notifyMatchFailure(rms, "the sum is read before the gamma is defined");
    }
    rewriter.setInsertionPoint(at);
    auto fused = SkipRmsNormalizationOp::create(rewriter, rms.getLoc(), add.getA(), add.getB(), rms.getScale(),
                                                Value(), rms.getEpsilonAttr());
    rewriter.replaceAllUsesWith(rms.getOutput(), fused.getOutput());
    rewriter.eraseOp(rms);
    rewriter.replaceOp(add, fused.getInputSkipBiasSum());
    ++counters.skip;
    ++counters.opsReplaced;  // the add (the norm's own chain is counted as an RMSNorm)
    return success();
  }
  RmsCounters &counters;
};

struct FuseRmsNormPass : impl::WebNNFuseRmsNormBase<FuseRmsNormPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RmsCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<RmsNorm, SkipRmsNorm>(ctx, counters);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numRmsNormsFused += counters.rms;
    numSkipRmsNormsFused += counters.skip;
    numOpsReplaced += counters.opsReplaced;
    StringRef pass = getArgument();
    recordRewrites(ctx, pass, "rms-norms-fused", counters.rms);
    recordRewrites(ctx, pass, "skip-adds-fused", counters.skip);
    recordRewrites(ctx, pass, "ops-replaced", counters.opsReplaced);
  }
};

}  // namespace
}  // namespace mlir::webnn
