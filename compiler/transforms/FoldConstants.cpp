#include "compiler/transforms/Passes.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFOLDCONSTANTS
#include "compiler/transforms/Passes.h.inc"

namespace {
struct FoldConstantsPass : impl::WebNNFoldConstantsBase<FoldConstantsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    for (RegisteredOperationName name : getContext().getRegisteredOperations())
      if (name.getDialectNamespace() == WebNNDialect::getDialectNamespace())
        name.getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
}  // namespace
}  // namespace mlir::webnn
