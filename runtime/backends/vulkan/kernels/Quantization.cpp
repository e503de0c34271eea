// quantizeLinear and dequantizeLinear, per-tensor, per-axis and block-wise
// (shaders/quantize.comp): scale and zeroPoint of one shape, at most the
// input's rank, aligned to its trailing dims, each dim dividing the input's.
// The integer side is int4/uint4 (packed two per byte), int8/uint8 or
// int32/uint32.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

constexpr size_t kMaxRank = 6;

bool isQuantizedType(DataType t) {
  return t == DataType::kInt4 || t == DataType::kUint4 || t == DataType::kInt8 || t == DataType::kUint8 ||
         t == DataType::kInt32 || t == DataType::kUint32;
}
// The shader's type code: common.glsl's, and WebNN's 8/9 for the 4-bit types
// quantize.comp unpacks itself.
uint32_t quantizeShaderType(DataType t) {
  uint32_t code = uint32_t(t);
  if (t != DataType::kInt4 && t != DataType::kUint4) shaderDataType(t, &code);
  return code;
}
bool isFloatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

Status makeQuantization(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  (void)device;
  if (node.inputs.size() != 3 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects input, scale, zeroPoint and one output");
  const OperandDesc &x = *node.inputs[0], &scale = *node.inputs[1], &zp = *node.inputs[2], &y = *node.outputs[0];
  bool quantize = node.op == "quantizeLinear";
  bool typesOk = quantize ? isFloatType(x.dtype) && scale.dtype == x.dtype && isQuantizedType(zp.dtype) &&
                                y.dtype == zp.dtype
                          : isQuantizedType(x.dtype) && zp.dtype == x.dtype && isFloatType(scale.dtype) &&
                                y.dtype == scale.dtype;
  if (!typesOk)
    return nodeUnsupported(node, "data types " + std::string(dataTypeName(x.dtype)) + ", " +
                                     std::string(dataTypeName(scale.dtype)) + ", " +
                                     std::string(dataTypeName(zp.dtype)));
  if (zp.shape != scale.shape) return nodeUnsupported(node, "zeroPoint and scale shapes differ");
  if (scale.shape.size() > x.shape.size() || x.shape.size() > kMaxRank || y.shape != x.shape)
    return nodeUnsupported(node, "scale rank above the input's, input rank above 6, or output shape mismatch");
  size_t rank = x.shape.size(), off = kMaxRank - rank;
  // Everything padded to rank 6 at the front; the scale's missing leading
  // dims are 1.
  Shape dims(kMaxRank, 1), sdims(kMaxRank, 1);
  for (size_t d = 0; d < rank; ++d) dims[off + d] = x.shape[d];
  for (size_t d = 0; d < scale.shape.size(); ++d) sdims[kMaxRank - scale.shape.size() + d] = scale.shape[d];
  for (size_t d = 0; d < kMaxRank; ++d)
    if (sdims[d] <= 0 || dims[d] % sdims[d] != 0)
      return nodeUnsupported(node, "scale is not block-wise broadcastable to the input");
  int64_t count = elementsOf(x.shape);
  if (count == 0) return Status::ok();
  std::vector<uint64_t> sstride = contiguousStrides(sdims);
  Dispatch d;
  d.shader = &shaders::quantize;
  d.spec = {quantize ? 1u : 0u, quantizeShaderType(x.dtype), quantizeShaderType(scale.dtype),
            quantizeShaderType(zp.dtype), quantizeShaderType(y.dtype)};
  d.bindings = {in(0), in(1), in(2), out(0)};
  d.pushU(uint32_t(count));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(uint32_t(dims[i]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(uint32_t(dims[i] / sdims[i]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(uint32_t(sstride[i]));
  // A 4-bit output is written a byte (two elements) per invocation.
  bool packedOut = y.dtype == DataType::kInt4 || y.dtype == DataType::kUint4;
  d.coverElements(packedOut ? (uint64_t(count) + 1) / 2 : uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerQuantizationKernels(std::vector<KernelEntry> *out) {
  out->push_back({"quantizeLinear", makeQuantization});
  out->push_back({"dequantizeLinear", makeQuantization});
}

}  // namespace webnn::vk
