// gather and gatherElements along one axis: shaders/gather.comp.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

Status makeGather(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects input, indices and one output");
  const OperandDesc &x = *node.inputs[0], &idx = *node.inputs[1], &y = *node.outputs[0];
  uint32_t bytes = elementBytes(x.dtype), dtIdx;
  if (bytes == 0 || !shaderDataType(idx.dtype, &dtIdx) || idx.dtype == DataType::kFloat32 ||
      idx.dtype == DataType::kFloat16)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[size_t(d)];
  int64_t count = elementsOf(y.shape);
  if (count == 0) return Status::ok();
  if (x.shape[size_t(axis)] == 0) return nodeUnsupported(node, "gather from an empty axis");
  Dispatch d;
  d.shader = &shaders::gather;
  bool elements = node.op == "gatherElements";
  if (elements && idx.shape != y.shape) return nodeUnsupported(node, "indices must have the output's shape");
  d.spec = {dtIdx, bytes, elements ? 1u : 0u};
  d.bindings = {in(0), in(1), out(0)};
  d.pushU(uint32_t(count)).pushU(uint32_t(x.shape[size_t(axis)]));
  // gatherElements: the output's extent along the axis.
  d.pushU(uint32_t(elements ? y.shape[size_t(axis)] : elementsOf(idx.shape))).pushU(uint32_t(inner));
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerGatherKernels(std::vector<KernelEntry> *out) {
  out->push_back({"gather", makeGather});
  out->push_back({"gatherElements", makeGather});
}

}  // namespace webnn::vk
