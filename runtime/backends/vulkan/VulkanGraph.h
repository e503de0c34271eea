// A whole loaded graph as one GPU program: every node on the GPU, one
// command buffer recorded at creation, one submit per run. Graphs with
// dynamic dimensions or control flow, graph outputs that are inputs or
// constants, interface-typed inputs/outputs, or a node without a GPU kernel
// are refused at creation with a message naming what is missing.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANGRAPH_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANGRAPH_H

#include <memory>

#include "backends/vulkan/VulkanProgram.h"
#include "core/Executor.h"

namespace webnn::vk {

class GraphProgram {
 public:
  static Status create(std::shared_ptr<Device> device, std::shared_ptr<const rt::PreparedGraph> graph,
                       std::unique_ptr<GraphProgram> *out);
  // Graph input `index` (position in graph.inputs): exactly its byte size.
  Status setInput(size_t index, const void *data, uint64_t bytes);
  Status run() { return program_->run(); }
  // Graph output `index`'s bytes after run().
  const void *outputData(size_t index) const;
  const Program &program() const { return *program_; }

 private:
  std::shared_ptr<const rt::PreparedGraph> graph_;
  std::unique_ptr<Program> program_;
};

}  // namespace webnn::vk

#endif
