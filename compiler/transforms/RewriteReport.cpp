#include "compiler/transforms/RewriteReport.h"

#include <map>
#include <mutex>

namespace mlir::webnn {
namespace {

std::mutex &reportMutex() {
  static std::mutex m;
  return m;
}

std::map<MLIRContext *, std::vector<RewriteCount>> &reports() {
  static auto *r = new std::map<MLIRContext *, std::vector<RewriteCount>>();
  return *r;
}

}  // namespace

void recordRewrites(MLIRContext *context, StringRef pass, StringRef rewrite, int64_t count) {
  std::lock_guard<std::mutex> lock(reportMutex());
  std::vector<RewriteCount> &counts = reports()[context];
  for (RewriteCount &c : counts)
    if (c.pass == pass && c.rewrite == rewrite) {
      c.count += count;
      return;
    }
  counts.push_back({pass.str(), rewrite.str(), count});
}

std::vector<RewriteCount> takeRewriteCounts(MLIRContext *context) {
  std::lock_guard<std::mutex> lock(reportMutex());
  std::vector<RewriteCount> counts = std::move(reports()[context]);
  reports().erase(context);
  return counts;
}

}  // namespace mlir::webnn
