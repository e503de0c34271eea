// What one GPU dispatch costs: its kernel family, the family's parameters,
// arithmetic and bytes moved, from the dispatch a kernel factory planned
// (VulkanKernel.h) and the node it came from. Every shader has a cost
// function (keyed by the shader, the kernel family), so a kernel that
// dispatches a new shader cannot fall outside the cost model unnoticed:
// costing a dispatch of a shader without one fails, and
// VulkanCost.EveryShaderHasOne checks the generated shader list.
// The GPU estimate (estimate/GpuEstimate.h) prices each family's work with
// the efficiency `webnn-run calibrate --device gpu` measured.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANCOST_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANCOST_H

#include <string>
#include <string_view>
#include <vector>

#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {

struct DispatchWork {
  std::string shader;  // the shader's name (shaders/NAME.comp)
  std::string family;  // the grid calibration keeps for it
  // The family's parameters: (M, K, N) for matmuls, (outputs, K, N) for
  // the implicit-GEMM convolution, (rows, row length) for row kernels,
  // (outputs, work per output) for direct convolutions and pools,
  // (elements) for elementwise and copies, (rows, keys, head size) for
  // attention.
  std::vector<double> params;
  double flops = 0, bytes = 0;
};

// The work of dispatch `d` of `node`'s plan alone; an error for a shader
// without a cost function.
Status dispatchWork(const NodeDesc &node, const Dispatch &d, DispatchWork *out);
// The work of every dispatch of `node`'s plan: a shader whose cost function
// prices the node's whole work (a convolution from its operands) shares it
// among the plan's dispatches of that shader.
Status planWork(const NodeDesc &node, const KernelPlan &plan, std::vector<DispatchWork> *out);
// The name of a shader (null when it is not one of Shaders.h's).
const char *shaderName(const shaders::Spirv *shader);
// Every family a cost function can name.
std::vector<std::string> costFamilies();
// Whether shader `name` (Shaders.h's symbol) has a cost function.
bool shaderHasCost(std::string_view name);

}  // namespace webnn::vk

#endif
