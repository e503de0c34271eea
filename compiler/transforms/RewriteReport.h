// How many times each rewrite of each pass fired, for `webnnc compile
// --report`.
//
// The passes also count into their MLIR Statistics (`--mlir-pass-statistics`
// in webnn-opt), but llvm::Statistic compiles to a no-op when NDEBUG is set
// and LLVM_FORCE_ENABLE_STATS is not (Debian's LLVM 22, and our Release
// builds), so a release webnnc would report zeros. This sink works in every
// build; it is keyed by context so concurrent compilations do not mix.
#ifndef WEBNN_TRANSFORMS_REWRITEREPORT_H
#define WEBNN_TRANSFORMS_REWRITEREPORT_H

#include <cstdint>
#include <string>
#include <vector>

#include "mlir/IR/MLIRContext.h"

namespace mlir::webnn {

struct RewriteCount {
  std::string pass;     // the pass's flag name, e.g. "webnn-fuse-conv"
  std::string rewrite;  // the statistic's name, e.g. "residual-adds-fused"
  int64_t count = 0;
};

// Adds `count` to (pass, rewrite) for `context`.
void recordRewrites(MLIRContext *context, StringRef pass, StringRef rewrite, int64_t count);

// The counts recorded for `context` in first-recorded order, then forgets them.
std::vector<RewriteCount> takeRewriteCounts(MLIRContext *context);

}  // namespace mlir::webnn

#endif
