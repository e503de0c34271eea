// A chain of float32 elementwise ops as one dispatch (shaders/chain.comp):
// the node ChainFusion.cpp puts in place of unary/binary nodes whose
// intermediate results each have a single consumer. Its inputs are the
// chain's operands (input 0 starts the chain), its output the last op's.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_KERNELS_ELEMENTWISECHAIN_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_KERNELS_ELEMENTWISECHAIN_H

#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {

// The op name of a fused chain node (never an artifact's op: the factory is
// reached through findVulkanKernel but not listed by vulkanKernelNames).
inline constexpr const char *kElementwiseChainOp = "webnn.vulkan.elementwiseChain";
// chain.comp's limits: steps, and distinct inputs (bindings).
inline constexpr int kChainMaxSteps = 8;
inline constexpr int kChainMaxInputs = 5;
// Op codes: unary ops below kChainBinary (unary.comp's numbering), binary
// ops from it (binary.comp's).
inline constexpr uint32_t kChainBinary = 32;

// One op of a chain.
struct ChainStep {
  uint32_t code = 0;
  float alpha = 0, beta = 0;  // unary ops' parameters
};

// `node`'s chain step when chain.comp computes it: a float32 unary op with
// a float32 output, or float32 add/sub/mul/div/max/min/prelu
// (kernels/Elementwise.cpp, where the ops' codes and defaults live).
bool chainStepOf(const NodeDesc &node, ChainStep *out);

// The chain node's attributes: per step "chainCodes", "chainArgs" (the
// other input's index, plus 8 when the running value is the right-hand
// operand; unary steps 0), "chainAlphaBits"/"chainBetaBits" (float bits).
Status makeElementwiseChain(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan);

}  // namespace webnn::vk

#endif
