// softmax and cumulativeSum along one axis: shaders/softmax.comp, cumsum.comp.
#include <cstdint>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"
#include "backends/vulkan/kernels/RowPlan.h"

namespace webnn::vk {
namespace {

Status makeSoftmax(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 1 || !node.inputs[0] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects one input and one output");
  const OperandDesc &x = *node.inputs[0];
  if (x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat16)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = node.attributes.getInt("axis", rank - 1);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[size_t(d)];
  if (elementsOf(x.shape) == 0) return Status::ok();
  Dispatch d;
  d.shader = &shaders::softmax;
  uint32_t dt;
  shaderDataType(x.dtype, &dt);
  int64_t length = x.shape[size_t(axis)];
  uint64_t rows = uint64_t(outer * inner);
  bool rowPerGroup = workgroupPerRow(device, rows, uint64_t(length));
  d.spec = {dt, rowPerGroup ? 1u : 0u};
  d.bindings = {in(0), out(0)};
  d.pushU(uint32_t(outer)).pushU(uint32_t(length)).pushU(uint32_t(inner));
  if (rowPerGroup) {
    d.localSize = kRowGroup;
    d.coverElements(rows * kRowGroup);
  } else {
    d.coverElements(rows);
  }
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

Status makeCumulativeSum(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 1 || !node.inputs[0] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects one input and one output");
  const OperandDesc &x = *node.inputs[0];
  uint32_t dt;
  const shaders::Spirv *shader = nullptr;
  WEBNN_RETURN_IF_ERROR(pickFloat64Variant(node, device, &shaders::cumsum, &shaders::cumsum_f64, x.dtype, &shader, &dt));
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = node.attributes.getInt("axis", 0);
  bool exclusive = node.attributes.getBool("exclusive", false), reversed = node.attributes.getBool("reversed", false);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[size_t(d)];
  if (elementsOf(x.shape) == 0) return Status::ok();
  Dispatch d;
  d.shader = shader;
  d.spec = {dt, exclusive ? 1u : 0u, reversed ? 1u : 0u};
  d.bindings = {in(0), out(0)};
  d.pushU(uint32_t(outer)).pushU(uint32_t(x.shape[size_t(axis)])).pushU(uint32_t(inner));
  d.coverElements(uint64_t(outer * inner));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerSoftmaxKernels(std::vector<KernelEntry> *out) {
  out->push_back({"softmax", makeSoftmax});
  out->push_back({"cumulativeSum", makeCumulativeSum});
}

}  // namespace webnn::vk
