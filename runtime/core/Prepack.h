// Compile-time prepacking: what the CPU kernels of an artifact would repack
// at their first run (oneDNN's blocked and Winograd weight layouts), computed
// ahead of time so `webnnc compile --prepack` can store it in the artifact
// (schema PackedConstant). The runtime then maps those bytes instead of
// packing, which is most of a large model's first-run cost.
#ifndef WEBNN_RUNTIME_CORE_PREPACK_H
#define WEBNN_RUNTIME_CORE_PREPACK_H

#include <cstdint>
#include <string>
#include <vector>

#include "core/Kernel.h"
#include "webnn/status.h"

namespace webnn::rt {

struct NodePackedBytes {
  uint32_t node = 0;
  PackedBytes packed;
};

// Loads the artifact at `path` (embedded weights, static shapes) and asks
// each node's kernel, built once per entry of `threadCounts`, for its packed
// constants. A layout shared by several thread counts is listed once.
// kUnsupported (nothing to prepack, not an error) for dynamic graphs.
Status packArtifactConstants(const std::string &path, const std::vector<int> &threadCounts,
                             std::vector<NodePackedBytes> *out);

}  // namespace webnn::rt

#endif
