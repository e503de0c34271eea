// Expansion patterns for --webnn-decompose-fused that live apart from
// DecomposeFused.cpp, one file per op family.
#ifndef WEBNN_TRANSFORMS_DECOMPOSEPATTERNS_H
#define WEBNN_TRANSFORMS_DECOMPOSEPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::webnn {

// One expansion of `OpTy` into spec ops; `count` (the pass's report) counts
// the ops it replaced.
template <typename OpTy>
struct CountedExpansion : OpRewritePattern<OpTy> {
  CountedExpansion(MLIRContext *ctx, int64_t &count) : OpRewritePattern<OpTy>(ctx), count(count) {}
  // Replaces `op` by `values` and counts it.
  LogicalResult expandTo(PatternRewriter &rewriter, Operation *op, ValueRange values) const {
    rewriter.replaceOp(op, values);
    ++count;
    return success();
  }
  int64_t &count;
};

// matmulNBits, rmsNormalization, skipRmsNormalization, rotaryEmbedding and
// groupQueryAttention into spec ops (DecomposeLLM.cpp); `count` counts
// expansions.
void populateDecomposeLLMPatterns(RewritePatternSet &patterns, int64_t &count);

// Whether `op` is one of the ops above (left over: it had no expansion).
bool isLLMOp(Operation *op);

}  // namespace mlir::webnn

#endif
