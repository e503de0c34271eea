// layerNormalization, instanceNormalization, batchNormalization:
// shaders/normalization.comp.
#include <cstdint>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"
#include "backends/vulkan/kernels/RowPlan.h"

namespace webnn::vk {
namespace {

struct Groups {
  std::vector<uint32_t> outerDims, outerStride, innerDims, innerStride, paramOuter, paramInner;
};

Status emit(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan, uint32_t mode, const Groups &g, int scaleInput,
            int biasInput, int meanInput, int varInput) {
  const OperandDesc &x = *node.inputs[0];
  if (g.outerDims.size() > 4 || g.innerDims.size() > 4) return nodeUnsupported(node, "rank above 4");
  float eps = float(node.attributes.getFloat("epsilon", 1e-5));
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  auto present = [&](int i) { return i >= 0 && size_t(i) < node.inputs.size() && node.inputs[size_t(i)]; };
  uint64_t outerCount = 1, innerCount = 1;
  for (uint32_t v : g.outerDims) outerCount *= v;
  for (uint32_t v : g.innerDims) innerCount *= v;
  if (elementsOf(x.shape) == 0) return Status::ok();
  Dispatch d;
  d.shader = &shaders::normalization;
  uint32_t dt;
  shaderDataType(x.dtype, &dt);
  // normalization.comp's GROUP_PER_ROW: a workgroup per normalized group.
  bool groupPerRow = mode == 0 && workgroupPerRow(device, outerCount, innerCount);
  d.spec = {dt, mode, present(scaleInput) ? 1u : 0u, present(biasInput) ? 1u : 0u, groupPerRow ? 1u : 0u};
  auto bind = [&](int i) { return present(i) ? in(uint32_t(i)) : in(0); };
  d.bindings = {in(0), bind(scaleInput), bind(biasInput), bind(meanInput), bind(varInput), out(0)};
  d.pushU(uint32_t(outerCount)).pushU(uint32_t(innerCount));
  auto pad = [&](const std::vector<uint32_t> &v, uint32_t fill) {
    for (size_t i = v.size(); i < 4; ++i) d.pushU(fill);
    for (uint32_t e : v) d.pushU(e);
  };
  pad(g.outerDims, 1);
  pad(g.outerStride, 0);
  pad(g.innerDims, 1);
  pad(g.innerStride, 0);
  pad(g.paramOuter, 0);
  pad(g.paramInner, 0);
  d.pushF(eps);
  if (groupPerRow) {
    d.localSize = kRowGroup;
    d.coverElements(outerCount * kRowGroup);
  } else {
    d.coverElements(outerCount);
  }
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

bool floatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

Status makeLayerNorm(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.empty() || !node.inputs[0] || node.outputs.size() != 1) return nodeUnsupported(node, "no input");
  const OperandDesc &x = *node.inputs[0];
  if (!floatType(x.dtype)) return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  size_t rank = x.shape.size();
  std::vector<int64_t> def;
  for (size_t i = 1; i < rank; ++i) def.push_back(int64_t(i));
  std::vector<int64_t> axes = node.attributes.getInts("axes", def);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  std::vector<bool> normalized(rank, false);
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  Groups g;
  // Scale and bias have the normalized dims, in the order `axes` lists them.
  Shape paramShape;
  for (int64_t a : axes) {
    if (a < 0 || a >= int64_t(rank) || normalized[size_t(a)]) return nodeUnsupported(node, "bad axes");
    normalized[size_t(a)] = true;
    paramShape.push_back(x.shape[size_t(a)]);
  }
  std::vector<uint64_t> ps = contiguousStrides(paramShape);
  for (size_t i = 0; i < axes.size(); ++i) {
    g.innerDims.push_back(uint32_t(x.shape[size_t(axes[i])]));
    g.innerStride.push_back(uint32_t(xs[size_t(axes[i])]));
    g.paramInner.push_back(uint32_t(ps[i]));
  }
  for (size_t d = 0; d < rank; ++d)
    if (!normalized[d]) {
      g.outerDims.push_back(uint32_t(x.shape[d]));
      g.outerStride.push_back(uint32_t(xs[d]));
      g.paramOuter.push_back(0);
    }
  return emit(node, device, plan, 0, g, 1, 2, -1, -1);
}

Status makeInstanceNorm(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.empty() || !node.inputs[0] || node.outputs.size() != 1) return nodeUnsupported(node, "no input");
  const OperandDesc &x = *node.inputs[0];
  if (!floatType(x.dtype) || x.shape.size() != 4) return nodeUnsupported(node, "needs a 4-D float input");
  std::string layout = node.attributes.getString("layout", "nchw");
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  bool nhwc = layout == "nhwc";
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  size_t c = nhwc ? 3 : 1, h = nhwc ? 1 : 2, w = nhwc ? 2 : 3;
  Groups g;
  g.outerDims = {uint32_t(x.shape[0]), uint32_t(x.shape[c])};
  g.outerStride = {uint32_t(xs[0]), uint32_t(xs[c])};
  g.paramOuter = {0, 1};
  g.innerDims = {uint32_t(x.shape[h]), uint32_t(x.shape[w])};
  g.innerStride = {uint32_t(xs[h]), uint32_t(xs[w])};
  g.paramInner = {0, 0};
  return emit(node, device, plan, 0, g, 1, 2, -1, -1);
}

Status makeBatchNorm(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() < 3 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects input, mean and variance");
  const OperandDesc &x = *node.inputs[0];
  if (!floatType(x.dtype)) return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = node.attributes.getInt("axis", 1);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  // Every element is its own group; the parameters are per channel. Any
  // rank folds to [before the axis, channel, after it].
  int64_t before = 1, after = 1, C = x.shape[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) before *= x.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) after *= x.shape[size_t(d)];
  Groups g;
  g.outerDims = {uint32_t(before), uint32_t(C), uint32_t(after)};
  g.outerStride = {uint32_t(C * after), uint32_t(after), 1};
  g.paramOuter = {0, 1, 0};
  return emit(node, device, plan, 1, g, 3, 4, 1, 2);
}

}  // namespace

void registerNormalizationKernels(std::vector<KernelEntry> *out) {
  out->push_back({"layerNormalization", makeLayerNorm});
  out->push_back({"instanceNormalization", makeInstanceNorm});
  out->push_back({"batchNormalization", makeBatchNorm});
}

}  // namespace webnn::vk
