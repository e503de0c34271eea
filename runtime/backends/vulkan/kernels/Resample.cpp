// resample2d, nearest-neighbor and linear: shaders/resample2d.comp, one
// invocation per output element.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

Status makeResample2d(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  (void)device;
  if (node.inputs.size() != 1 || !node.inputs[0] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects one input and one output");
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  if (x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat16 && x.dtype != DataType::kInt8 &&
      x.dtype != DataType::kUint8)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  std::string mode = node.attributes.getString("mode", "nearest-neighbor");
  std::vector<int64_t> axes = node.attributes.getInts("axes", {2, 3});
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (mode != "nearest-neighbor" && mode != "linear") return nodeUnsupported(node, "unknown mode '" + mode + "'");
  if (x.shape.size() != 4 || y.shape.size() != 4 || y.dtype != x.dtype)
    return nodeUnsupported(node, "input and output must be 4-D of one type");
  if (axes.size() != 2 || axes[0] == axes[1] || axes[0] < 0 || axes[0] > 3 || axes[1] < 0 || axes[1] > 3)
    return nodeUnsupported(node, "axes must be two distinct values in [0, 4)");
  for (size_t d = 0; d < 4; ++d) {
    bool resampled = int64_t(d) == axes[0] || int64_t(d) == axes[1];
    if (!resampled && x.shape[d] != y.shape[d]) return nodeUnsupported(node, "output shape mismatch");
    if (resampled && (x.shape[d] <= 0 || y.shape[d] <= 0))
      return nodeUnsupported(node, "resampled dimensions must be non-empty");
    // The shader's exact source fraction (2o + 1) * in needs 2 * out * in < 2^31.
    if (resampled && 2 * x.shape[d] * y.shape[d] >= (int64_t(1) << 31))
      return nodeUnsupported(node, "resampled dimensions too large for 32-bit coordinates");
  }
  int64_t count = elementsOf(y.shape);
  if (count == 0) return Status::ok();
  uint32_t dt;
  shaderDataType(x.dtype, &dt);
  Dispatch d;
  d.shader = &shaders::resample2d;
  d.spec = {dt, mode == "linear" ? 1u : 0u};
  d.bindings = {in(0), out(0)};
  d.pushU(uint32_t(count));
  for (size_t i = 0; i < 4; ++i) d.pushU(uint32_t(x.shape[i]));
  for (size_t i = 0; i < 4; ++i) d.pushU(uint32_t(y.shape[i]));
  d.pushU(uint32_t(axes[0])).pushU(uint32_t(axes[1]));
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerResampleKernels(std::vector<KernelEntry> *out) { out->push_back({"resample2d", makeResample2d}); }

}  // namespace webnn::vk
