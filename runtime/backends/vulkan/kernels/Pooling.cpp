// averagePool2d, maxPool2d, l2Pool2d: shaders/pool2d.comp (global pooling
// as a workgroup per output). The output size (floor/ceil rounding,
// outputSizes) is the node's output shape.
#include <cstdint>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"
#include "backends/vulkan/kernels/RowPlan.h"

namespace webnn::vk {
namespace {

template <uint32_t Kind>
Status makePool(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 1 || !node.inputs[0] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects one input and one output");
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  if (x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat16)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  if (x.shape.size() != 4 || y.shape.size() != 4) return nodeUnsupported(node, "pooling needs 4-D tensors");
  std::string layout = node.attributes.getString("layout", "nchw");
  bool nhwc = layout == "nhwc";
  int64_t H = nhwc ? x.shape[1] : x.shape[2], W = nhwc ? x.shape[2] : x.shape[3];
  std::vector<int64_t> window = node.attributes.getInts("windowDimensions", {H, W});
  std::vector<int64_t> padding = node.attributes.getInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = node.attributes.getInts("strides", {1, 1});
  std::vector<int64_t> dil = node.attributes.getInts("dilations", {1, 1});
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if ((layout != "nchw" && !nhwc) || window.size() != 2 || padding.size() != 4 || strides.size() != 2 ||
      dil.size() != 2)
    return nodeUnsupported(node, "bad options");
  std::vector<uint64_t> xs = contiguousStrides(x.shape), ys = contiguousStrides(y.shape);
  int64_t C = nhwc ? x.shape[3] : x.shape[1];
  int64_t OH = nhwc ? y.shape[1] : y.shape[2], OW = nhwc ? y.shape[2] : y.shape[3];
  if (elementsOf(y.shape) == 0) return Status::ok();
  Dispatch d;
  d.shader = &shaders::pool2d;
  uint32_t dt;
  shaderDataType(x.dtype, &dt);
  // A window over the whole unpadded input (global pooling): a workgroup
  // per output (pool2d.comp's GLOBAL).
  bool global = OH == 1 && OW == 1 && window[0] == H && window[1] == W && dil[0] == 1 && dil[1] == 1 &&
                padding == std::vector<int64_t>{0, 0, 0, 0} &&
                workgroupPerRow(device, uint64_t(x.shape[0] * C), uint64_t(H * W));
  d.spec = {dt, Kind, global ? 1u : 0u};
  d.bindings = {in(0), out(0)};
  for (int64_t v : {x.shape[0], C, H, W, OH, OW, window[0], window[1], strides[0], strides[1], dil[0], dil[1]})
    d.pushU(uint32_t(v));
  d.pushU(uint32_t(int32_t(padding[0]))).pushU(uint32_t(int32_t(padding[2])));
  auto pushStrides = [&](const std::vector<uint64_t> &s) {
    d.pushU(uint32_t(s[0])).pushU(uint32_t(nhwc ? s[3] : s[1]));
    d.pushU(uint32_t(nhwc ? s[1] : s[2])).pushU(uint32_t(nhwc ? s[2] : s[3]));
  };
  pushStrides(xs);
  pushStrides(ys);
  if (global) {
    d.localSize = kRowGroup;
    d.coverElements(uint64_t(elementsOf(y.shape)) * kRowGroup);
  } else {
    d.coverElements(uint64_t(elementsOf(y.shape)));
  }
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerPoolingKernels(std::vector<KernelEntry> *out) {
  out->push_back({"averagePool2d", makePool<0>});
  out->push_back({"maxPool2d", makePool<1>});
  out->push_back({"l2Pool2d", makePool<2>});
}

}  // namespace webnn::vk
