// conv2d, fusedConv2d and convTranspose2d: shaders/conv2d_gemm.comp (groups =
// 1), shaders/depthwise_conv2d.comp (depthwise, windows up to 7x7) and
// shaders/conv2d.comp (the rest), any input and filter layout through
// per-dim strides.
#include <cmath>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

constexpr uint32_t kTile = 16;
constexpr int64_t kMaxDepthwiseWindow = 7;

Status makeConv(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan, bool transposed) {
  if (node.inputs.size() < 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects input, filter and one output");
  const OperandDesc &x = *node.inputs[0], &f = *node.inputs[1], &y = *node.outputs[0];
  const OperandDesc *bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  // A relaxed-precision node's constant filter may be stored as float16
  // under float32 data (VulkanProgram's relaxed weights; docs/GPU.md).
  bool halfFilter = node.relaxedPrecision && !transposed && x.dtype == DataType::kFloat32 &&
                    f.dtype == DataType::kFloat16;
  if ((x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat16) || (f.dtype != x.dtype && !halfFilter) ||
      (bias && bias->dtype != x.dtype))
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  if (x.shape.size() != 4 || f.shape.size() != 4 || y.shape.size() != 4)
    return nodeUnsupported(node, "conv needs 4-D input, filter and output");
  std::vector<int64_t> padding = node.attributes.getInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = node.attributes.getInts("strides", {1, 1});
  std::vector<int64_t> dil = node.attributes.getInts("dilations", {1, 1});
  int64_t groups = node.attributes.getInt("groups", 1);
  std::string layout = node.attributes.getString("inputLayout", "nchw");
  std::string fl = node.attributes.getString("filterLayout", transposed ? "iohw" : "oihw");
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (padding.size() != 4 || strides.size() != 2 || dil.size() != 2 || groups < 1 || fl.size() != 4 ||
      (layout != "nchw" && layout != "nhwc"))
    return nodeUnsupported(node, "bad options");
  bool nhwc = layout == "nhwc";
  std::vector<uint64_t> xs = contiguousStrides(x.shape), ys = contiguousStrides(y.shape),
                        fst = contiguousStrides(f.shape);
  // Logical (n, c, h, w) strides.
  uint64_t xn = xs[0], xc = nhwc ? xs[3] : xs[1], xh = nhwc ? xs[1] : xs[2], xw = nhwc ? xs[2] : xs[3];
  uint64_t yn = ys[0], yc = nhwc ? ys[3] : ys[1], yh = nhwc ? ys[1] : ys[2], yw = nhwc ? ys[2] : ys[3];
  int64_t C = nhwc ? x.shape[3] : x.shape[1], H = nhwc ? x.shape[1] : x.shape[2], W = nhwc ? x.shape[2] : x.shape[3];
  int64_t O = nhwc ? y.shape[3] : y.shape[1], OH = nhwc ? y.shape[1] : y.shape[2], OW = nhwc ? y.shape[2] : y.shape[3];
  uint64_t fo = 0, fi = 0, fh = 0, fw = 0;
  int64_t KH = 0, KW = 0;
  for (size_t d = 0; d < 4; ++d) {
    switch (fl[d]) {
      case 'o': fo = fst[d]; break;
      case 'i': fi = fst[d]; break;
      case 'h': fh = fst[d]; KH = f.shape[d]; break;
      case 'w': fw = fst[d]; KW = f.shape[d]; break;
      default: return nodeUnsupported(node, "unknown filterLayout '" + fl + "'");
    }
  }
  if (C % groups || O % groups) return nodeUnsupported(node, "channels not divisible by groups");
  // fusedConv2d: residual (operand 3) and activation (docs/FUSED_OPS.md).
  const OperandDesc *residual = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
  if (residual && (residual->shape != y.shape || residual->dtype != y.dtype))
    return nodeUnsupported(node, "residual differs from the output in shape or type");
  std::string activation = node.attributes.getString("activation", "none");
  float actMin = float(node.attributes.getFloat("activationMinValue", -INFINITY));
  float actMax = float(node.attributes.getFloat("activationMaxValue", INFINITY));
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  uint32_t act;
  if (activation == "none") act = 0;
  else if (activation == "relu") act = 1;
  else if (activation == "clamp") act = 2;
  else if (activation == "sigmoid") act = 3;
  else if (activation == "silu") act = 4;
  else if (activation == "hardSwish") act = 5;
  else return nodeUnsupported(node, "unknown activation '" + activation + "'");
  if (elementsOf(y.shape) == 0) return Status::ok();
  Dispatch d;
  uint32_t dt, fdt;
  shaderDataType(x.dtype, &dt);
  shaderDataType(f.dtype, &fdt);
  // Depthwise with a window of at most 7x7 (the unrolled shader's size):
  // shaders/depthwise_conv2d.comp.
  if (!transposed && groups > 1 && groups == C && O == C && KH <= kMaxDepthwiseWindow && KW <= kMaxDepthwiseWindow &&
      strides[1] <= 4 && dil[1] <= 4) {
    // nhwc: 4 channels x 2 columns per invocation (contiguous channel
    // loads); nchw: 1 channel x 4 columns (contiguous column loads).
    uint32_t cpi = nhwc && C % 4 == 0 ? 4 : 1, opi = nhwc && cpi == 4 ? 2 : 4;
    d.shader = &shaders::depthwise_conv2d;
    d.spec = {dt, bias ? 1u : 0u, residual ? 1u : 0u, act, uint32_t(KH), uint32_t(KW), uint32_t(strides[1]),
              uint32_t(dil[1]), cpi, opi, fdt};
    d.bindings = {in(0), in(1), out(0), bias ? in(2) : in(0), residual ? in(3) : in(0)};
    uint64_t channelGroups = uint64_t(C) / cpi, columnGroups = (uint64_t(OW) + opi - 1) / opi;
    for (int64_t v : {x.shape[0], C, H, W, OH, OW, strides[0], dil[0]}) d.pushU(uint32_t(v));
    d.pushU(uint32_t(int32_t(padding[0]))).pushU(uint32_t(int32_t(padding[2])));
    d.pushU(uint32_t(channelGroups)).pushU(uint32_t(columnGroups));
    for (uint64_t v : {xn, xc, xh, xw, yn, yc, yh, yw, fo, fh, fw}) d.pushU(uint32_t(v));
    d.pushF(actMin).pushF(actMax);
    d.coverElements(uint64_t(x.shape[0]) * uint64_t(OH) * columnGroups * channelGroups);
    plan->dispatches.push_back(std::move(d));
    return Status::ok();
  }
  // groups = 1: implicit GEMM with shared-memory tiles; grouped (depthwise)
  // and transposed convolutions: one invocation per output element.
  bool gemm = groups == 1 && !transposed;
  uint64_t M = uint64_t(x.shape[0]) * uint64_t(OH) * uint64_t(OW);
  uint32_t tm = 1, tn = 1;
  if (gemm) {
    // Register blocking: 4 x 4 outputs per invocation (64 x 64 blocks)
    // where both dimensions fill a block, fewer along a short one; the
    // blocks' shared memory must fit the device.
    tm = M >= 4 * kTile ? 4 : M >= 2 * kTile ? 2 : 1;
    tn = uint64_t(O) >= 4 * kTile ? 4 : uint64_t(O) >= 2 * kTile ? 2 : 1;
    while ((tm + tn) * kTile * kTile * 4 > device.maxSharedMemory && (tm > 1 || tn > 1)) {
      if (tm >= tn) tm /= 2;
      else tn /= 2;
    }
    d.shader = &shaders::conv2d_gemm;
    d.spec = {dt, kTile, bias ? 1u : 0u, residual ? 1u : 0u, act, tm, tn, fdt};
    d.localSize = kTile * kTile;
  } else {
    d.shader = &shaders::conv2d;
    d.spec = {dt, bias ? 1u : 0u, transposed ? 1u : 0u, residual ? 1u : 0u, act, fdt};
  }
  d.bindings = {in(0), in(1), out(0), bias ? in(2) : in(0), residual ? in(3) : in(0)};
  for (int64_t v : {x.shape[0], C, H, W, O, OH, OW, KH, KW, strides[0], strides[1], dil[0], dil[1]})
    d.pushU(uint32_t(v));
  d.pushU(uint32_t(int32_t(padding[0]))).pushU(uint32_t(int32_t(padding[2])));
  if (!gemm) d.pushU(uint32_t(groups));
  for (uint64_t v : {xn, xc, xh, xw, yn, yc, yh, yw, fo, fi, fh, fw}) d.pushU(uint32_t(v));
  d.pushF(actMin).pushF(actMax);
  if (gemm) {
    d.groups[0] = uint32_t((uint64_t(O) + kTile * tn - 1) / (kTile * tn));
    d.groups[1] = uint32_t((M + kTile * tm - 1) / (kTile * tm));
    if (d.groups[1] > device.maxWorkGroupCount[1]) return nodeUnsupported(node, "too many output pixels");
  } else {
    d.coverElements(uint64_t(elementsOf(y.shape)));
  }
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

Status makeConv2d(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) { return makeConv(node, device, plan, false); }
Status makeConvTranspose2d(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) { return makeConv(node, device, plan, true); }

}  // namespace

void registerConvolutionKernels(std::vector<KernelEntry> *out) {
  out->push_back({"conv2d", makeConv2d});
  out->push_back({"fusedConv2d", makeConv2d});
  out->push_back({"convTranspose2d", makeConvTranspose2d});
}

}  // namespace webnn::vk
