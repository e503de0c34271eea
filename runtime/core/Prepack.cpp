#include "core/Prepack.h"

#include <set>
#include <tuple>

#include "core/ArtifactLoader.h"
#include "core/Executor.h"

namespace webnn::rt {

Status packArtifactConstants(const std::string &path, const std::vector<int> &threadCounts,
                             std::vector<NodePackedBytes> *out) {
  LoaderOptions lo;
  lo.hasKernel = [](std::string_view op) { return findBackendForOp(op) != nullptr; };
  lo.backends = backendsText();
  LoadedGraph g;
  WEBNN_RETURN_IF_ERROR(loadArtifact(path, lo, &g));
  if (g.weightless) return invalidArgument(path + ": prepacking needs the weights embedded, not a weightless artifact");
  if (!g.dynamicDims.empty())
    return unsupported("the graph has dynamic dimensions, whose kernels are built per shape at run time");
  std::shared_ptr<PreparedGraph> prepared;
  WEBNN_RETURN_IF_ERROR(prepareGraph(std::move(g), &prepared));
  std::set<std::tuple<uint32_t, int, std::string>> seen;
  for (int threads : threadCounts) {
    std::unique_ptr<Executor> executor;
    // Packing needs each primitive's layout, not its JIT code.
    WEBNN_RETURN_IF_ERROR(Executor::create(prepared, threads, &executor, /*warmUp=*/false));
    std::vector<NodePackedBytes> packed;
    WEBNN_RETURN_IF_ERROR(executor->packConstants(&packed));
    for (NodePackedBytes &p : packed)
      if (seen.insert({p.node, p.packed.input, p.packed.layout}).second) out->push_back(std::move(p));
  }
  return Status::ok();
}

}  // namespace webnn::rt
