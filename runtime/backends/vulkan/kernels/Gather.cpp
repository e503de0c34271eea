// gather and gatherElements along one axis (shaders/gather.comp), gatherND
// (shaders/gather_nd.comp).
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

// gatherND: output [indices.shape[:-1], input.shape[K:]], K = indices.shape[-1].
Status makeGatherND(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  (void)device;
  if (node.inputs.size() != 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects input, indices and one output");
  const OperandDesc &x = *node.inputs[0], &idx = *node.inputs[1], &y = *node.outputs[0];
  uint32_t bytes = elementBytes(x.dtype), dtIdx;
  if (bytes == 0) return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  if (!shaderDataType(idx.dtype, &dtIdx) || idx.dtype == DataType::kFloat32 || idx.dtype == DataType::kFloat16)
    return nodeUnsupported(node, "indices data type " + std::string(dataTypeName(idx.dtype)));
  if (x.shape.empty() || idx.shape.empty()) return nodeUnsupported(node, "input and indices must have rank >= 1");
  int64_t k = idx.shape.back();
  if (k > int64_t(x.shape.size()) || k > 6) return nodeUnsupported(node, "indices.shape[-1] above the input rank or 6");
  int64_t tuples = elementsOf(Shape(idx.shape.begin(), idx.shape.end() - 1));
  Shape slice(x.shape.begin() + k, x.shape.end());
  int64_t sliceElems = elementsOf(slice);
  Shape expected(idx.shape.begin(), idx.shape.end() - 1);
  expected.insert(expected.end(), slice.begin(), slice.end());
  if (y.shape != expected || y.dtype != x.dtype) return nodeUnsupported(node, "output shape or type mismatch");
  int64_t count = tuples * sliceElems;
  if (count == 0) return Status::ok();
  for (int64_t d = 0; d < k; ++d)
    if (x.shape[size_t(d)] == 0) return nodeUnsupported(node, "gather from an empty dimension");
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  Dispatch d;
  d.shader = &shaders::gather_nd;
  d.spec = {dtIdx, bytes};
  d.bindings = {in(0), in(1), out(0)};
  d.pushU(uint32_t(count)).pushU(uint32_t(sliceElems)).pushU(uint32_t(k));
  for (int64_t i = 0; i < 6; ++i) d.pushU(i < k ? uint32_t(x.shape[size_t(i)]) : 1u);
  for (int64_t i = 0; i < 6; ++i) d.pushU(i < k ? uint32_t(xs[size_t(i)]) : 0u);
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerGatherKernels(std::vector<KernelEntry> *out) {
  out->push_back({"gather", makeGather});
  out->push_back({"gatherElements", makeGather});
  out->push_back({"gatherND", makeGatherND});
}

}  // namespace webnn::vk
