// Elementwise chains fused into one dispatch: in a GPU program's node list,
// each run of float32 unary/binary nodes where every intermediate result has
// that one consumer (and is not a graph output) becomes one chain node
// (kernels/ElementwiseChain.h), so x * sigmoid(x), add + relu or a
// decomposed gelu read their operands once and write only the last value.
// The nodes are rewritten before the program plans its memory, so fused
// intermediates get none; in the executor's partitions the same chains are
// node groups (VulkanBackend.cpp, Backend::groupPartitionNodes), proposed
// before the core plans the device arena.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_CHAINFUSION_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_CHAINFUSION_H

#include <memory>
#include <vector>

#include "backends/vulkan/VulkanProgram.h"

namespace webnn::vk {

// The chain nodes' descriptions (their operands point into the original
// nodes' descriptions, which must outlive them).
struct FusedChains {
  std::vector<std::unique_ptr<NodeDesc>> descs;
  size_t nodesFused = 0;  // original nodes now inside a chain
};

// Rewrites `nodes` (execution order, tensors indexing `tensors`) in place;
// a chain is cut where chain.comp's limits (8 steps, 5 inputs, rank 6 after
// merging dims) would be passed. WEBNN_VULKAN_CHAIN_FUSION=0 turns it off.
void fuseElementwiseChains(const DeviceInfo &device, const std::vector<ProgramTensor> &tensors,
                           std::vector<ProgramNode> *nodes, FusedChains *fused);

// One chain in a node list: the nodes it runs (indices, execution order),
// the chain node, and that node's inputs as tensor indices.
struct ElementwiseChain {
  std::vector<size_t> nodes;
  std::unique_ptr<NodeDesc> desc;
  std::vector<int32_t> inputs;
};

// The chains fuseElementwiseChains would make of `nodes` (none under
// WEBNN_VULKAN_CHAIN_FUSION=0): how the executor's partitions group their
// nodes before their memory is planned (VulkanBackend.cpp).
std::vector<ElementwiseChain> findElementwiseChains(const DeviceInfo &device, const std::vector<ProgramTensor> &tensors,
                                                    const std::vector<ProgramNode> &nodes);

// The chain node of nodes[chain[0]], nodes[chain[1]], ... given again (a
// chain findElementwiseChains found): each node after the first reads the
// previous one's output through exactly one input, and no chain operand is
// a value made inside the chain; else an error saying which node breaks it.
Status elementwiseChainOf(const DeviceInfo &device, const std::vector<ProgramNode> &nodes,
                          const std::vector<size_t> &chain, ElementwiseChain *out);

}  // namespace webnn::vk

#endif
