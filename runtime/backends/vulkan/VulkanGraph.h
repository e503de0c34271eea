// A whole loaded graph as one GPU program: every node on the GPU, one
// command buffer recorded at creation, one submit per run. Inputs and
// outputs are exchanged in their interface types (bool, float64, ...:
// converted on the host, as the CPU session does). Graphs with dynamic
// dimensions or control flow, graph outputs that are inputs or constants, or
// a node without a GPU kernel are refused at creation with a message naming
// what is missing.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANGRAPH_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANGRAPH_H

#include <memory>

#include "backends/vulkan/ChainFusion.h"
#include "backends/vulkan/VulkanProgram.h"
#include "core/Executor.h"

namespace webnn::vk {

class GraphProgram {
 public:
  static Status create(std::shared_ptr<Device> device, std::shared_ptr<const rt::PreparedGraph> graph,
                       std::unique_ptr<GraphProgram> *out);
  // Graph input `index` (position in graph.inputs): exactly its byte size
  // in its interface type.
  Status setInput(size_t index, const void *data, uint64_t bytes);
  Status run();
  // Graph output `index`'s bytes after run(), in its interface type.
  const void *outputData(size_t index) const;
  const Program &program() const { return *program_; }

 private:
  std::shared_ptr<const rt::PreparedGraph> graph_;
  FusedChains fused_;  // fused nodes' descriptions, used by program_'s creation
  std::unique_ptr<Program> program_;
  std::vector<std::vector<uint8_t>> converted_;  // per output in an interface type, else empty
};

}  // namespace webnn::vk

#endif
