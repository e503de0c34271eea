// scatterND (shaders/scatter_nd.comp) and scatterElements
// (shaders/scatter_elements.comp): the input copied to the output
// (shaders/copy.comp), then the updates written over it in index order.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

Status checkScatterOperands(const NodeDesc &node, uint32_t *bytes, uint32_t *dtIdx) {
  if (node.inputs.size() != 3 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects input, indices, updates and one output");
  const OperandDesc &x = *node.inputs[0], &idx = *node.inputs[1], &upd = *node.inputs[2], &y = *node.outputs[0];
  *bytes = elementBytes(x.dtype);
  if (*bytes == 0) return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  if (!shaderDataType(idx.dtype, dtIdx) || idx.dtype == DataType::kFloat32 || idx.dtype == DataType::kFloat16)
    return nodeUnsupported(node, "indices data type " + std::string(dataTypeName(idx.dtype)));
  if (upd.dtype != x.dtype || y.dtype != x.dtype || y.shape != x.shape)
    return nodeUnsupported(node, "updates and output must have the input's type (and the output its shape)");
  if (x.shape.empty()) return nodeUnsupported(node, "input must have rank >= 1");
  return Status::ok();
}

Status copyInputToOutput(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  const OperandDesc &x = *node.inputs[0];
  int64_t n = elementsOf(x.shape);
  return addCopy(node, device, plan, in(0), out(0), x.dtype, {n}, {1}, {1}, 0, 0);
}

// scatterND: updates [indices.shape[:-1], input.shape[K:]], K = indices.shape[-1].
Status makeScatterND(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  uint32_t bytes, dtIdx;
  WEBNN_RETURN_IF_ERROR(checkScatterOperands(node, &bytes, &dtIdx));
  const OperandDesc &x = *node.inputs[0], &idx = *node.inputs[1], &upd = *node.inputs[2];
  if (idx.shape.empty()) return nodeUnsupported(node, "indices must have rank >= 1");
  int64_t k = idx.shape.back();
  if (k > int64_t(x.shape.size()) || k > 6) return nodeUnsupported(node, "indices.shape[-1] above the input rank or 6");
  int64_t tuples = elementsOf(Shape(idx.shape.begin(), idx.shape.end() - 1));
  Shape slice(x.shape.begin() + k, x.shape.end());
  int64_t sliceElems = elementsOf(slice);
  Shape expected(idx.shape.begin(), idx.shape.end() - 1);
  expected.insert(expected.end(), slice.begin(), slice.end());
  if (upd.shape != expected) return nodeUnsupported(node, "updates shape mismatch");
  WEBNN_RETURN_IF_ERROR(copyInputToOutput(node, device, plan));
  if (tuples == 0 || sliceElems == 0) return Status::ok();
  for (int64_t d = 0; d < k; ++d)
    if (x.shape[size_t(d)] == 0) return nodeUnsupported(node, "scatter into an empty dimension");
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  Dispatch d;
  d.shader = &shaders::scatter_nd;
  d.spec = {dtIdx, bytes};
  d.bindings = {in(1), in(2), out(0)};
  d.pushU(uint32_t(tuples)).pushU(uint32_t(sliceElems)).pushU(uint32_t(k));
  for (int64_t i = 0; i < 6; ++i) d.pushU(i < k ? uint32_t(x.shape[size_t(i)]) : 1u);
  for (int64_t i = 0; i < 6; ++i) d.pushU(i < k ? uint32_t(xs[size_t(i)]) : 0u);
  d.coverElements(uint64_t(sliceElems));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

// scatterElements: indices and updates have the input's shape except along axis.
Status makeScatterElements(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  uint32_t bytes, dtIdx;
  WEBNN_RETURN_IF_ERROR(checkScatterOperands(node, &bytes, &dtIdx));
  const OperandDesc &x = *node.inputs[0], &idx = *node.inputs[1], &upd = *node.inputs[2];
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  Shape expected = x.shape;
  if (idx.shape.size() == x.shape.size()) expected[size_t(axis)] = idx.shape[size_t(axis)];
  if (idx.shape != expected || upd.shape != idx.shape)
    return nodeUnsupported(node, "indices and updates must have the input's shape except along axis");
  WEBNN_RETURN_IF_ERROR(copyInputToOutput(node, device, plan));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[size_t(d)];
  int64_t numIndices = idx.shape[size_t(axis)];
  if (elementsOf(idx.shape) == 0) return Status::ok();
  if (x.shape[size_t(axis)] == 0) return nodeUnsupported(node, "scatter into an empty axis");
  Dispatch d;
  d.shader = &shaders::scatter_elements;
  d.spec = {dtIdx, bytes};
  d.bindings = {in(1), in(2), out(0)};
  d.pushU(uint32_t(outer)).pushU(uint32_t(x.shape[size_t(axis)])).pushU(uint32_t(numIndices)).pushU(uint32_t(inner));
  d.coverElements(uint64_t(outer * inner));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerScatterKernels(std::vector<KernelEntry> *out) {
  out->push_back({"scatterND", makeScatterND});
  out->push_back({"scatterElements", makeScatterElements});
}

}  // namespace webnn::vk
