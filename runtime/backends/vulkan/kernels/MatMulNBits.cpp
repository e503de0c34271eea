// matmulNBits (docs/LLM.md, ONNX Runtime's MatMulNBits: block-quantized
// 2/4/8-bit weights): shaders/matmul_nbits.comp, one workgroup per output
// element. Activations stay float whatever accuracyLevel says (the CPU's
// int8-activation path at level 4 is a CPU speed choice, not the op's
// meaning).
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

// The partial sums meet in a power-of-two tree over the workgroup.
constexpr uint32_t kOutputInvocations = 64;

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }
bool floatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

Status makeMatMulNBits(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() < 3 || node.inputs.size() > 5 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] ||
      node.outputs.size() != 1 || !node.outputs[0])
    return nodeUnsupported(node, "expects input, weight and scales (zeroPoints, bias) and one output");
  const OperandDesc &a = *node.inputs[0], &w = *node.inputs[1], &scales = *node.inputs[2];
  const OperandDesc &y = *node.outputs[0];
  if (!floatType(a.dtype) || !floatType(y.dtype))
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(a.dtype)) + " (float32 or float16 only)");
  int64_t K = node.attributes.getInt("K", 0), N = node.attributes.getInt("N", 0);
  int64_t blockSize = node.attributes.getInt("blockSize", 0), bits = node.attributes.getInt("bits", 4);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (K < 1 || N < 1) return nodeUnsupported(node, "K and N must be >= 1");
  if (bits != 2 && bits != 4 && bits != 8) return nodeUnsupported(node, "bits must be 2, 4 or 8");
  if (blockSize < 16 || (blockSize & (blockSize - 1))) return nodeUnsupported(node, "blockSize must be a power of 2 >= 16");
  if (a.shape.empty() || a.shape.back() != K)
    return nodeUnsupported(node, "input's last dimension must be K = " + std::to_string(K));
  int64_t kBlocks = (K + blockSize - 1) / blockSize, blob = blockSize * bits / 8;
  if (w.dtype != DataType::kUint8 || w.shape != Shape{N, kBlocks, blob})
    return nodeUnsupported(node, "weight must be uint8 [" + std::to_string(N) + "," + std::to_string(kBlocks) + "," +
                                     std::to_string(blob) + "]");
  if (!floatType(scales.dtype) || elementsOf(scales.shape) != N * kBlocks)
    return nodeUnsupported(node, "scales must be float with N * kBlocks elements");
  uint32_t zpMode = 0;
  int64_t zpRowBytes = (kBlocks * bits + 7) / 8;
  if (present(node, 3)) {
    const OperandDesc &zp = *node.inputs[3];
    if (zp.dtype == DataType::kUint8) {
      zpMode = 1;
      if (elementsOf(zp.shape) != N * zpRowBytes)
        return nodeUnsupported(node, "packed zeroPoints must have " + std::to_string(N * zpRowBytes) + " elements");
    } else if (floatType(zp.dtype)) {
      zpMode = 2;
      if (elementsOf(zp.shape) != N * kBlocks) return nodeUnsupported(node, "float zeroPoints must have N * kBlocks elements");
    } else {
      return nodeUnsupported(node, "zeroPoints must be uint8 or float");
    }
  }
  bool hasBias = present(node, 4);
  if (hasBias && (!floatType(node.inputs[4]->dtype) || node.inputs[4]->shape != Shape{N}))
    return nodeUnsupported(node, "bias must be float [N]");
  Shape outShape = a.shape;
  outShape.back() = N;
  if (y.shape != outShape) return nodeUnsupported(node, "output must be the input's shape with N last");
  uint64_t M = uint64_t(elementsOf(a.shape) / K);
  if (M == 0) return Status::ok();
  if (M * uint64_t(N) > UINT32_MAX) return nodeUnsupported(node, "more than 2^32 outputs");
  auto dt = [](const OperandDesc &o) {
    uint32_t code = 0;
    shaderDataType(o.dtype, &code);
    return code;
  };
  Dispatch d;
  d.shader = &shaders::matmul_nbits;
  d.localSize = kOutputInvocations;
  d.spec = {dt(a), dt(scales), zpMode ? dt(*node.inputs[3]) : uint32_t(DataType::kUint8),
            hasBias ? dt(*node.inputs[4]) : dt(a), dt(y), uint32_t(bits), zpMode, hasBias ? 1u : 0u};
  d.bindings = {in(0), in(1), in(2), in(zpMode ? 3 : 1), in(hasBias ? 4 : 0), out(0)};
  d.pushU(uint32_t(M)).pushU(uint32_t(N)).pushU(uint32_t(K)).pushU(uint32_t(blockSize)).pushU(uint32_t(kBlocks));
  d.pushU(uint32_t(blob)).pushU(uint32_t(zpRowBytes));
  d.coverElements(M * uint64_t(N) * kOutputInvocations);
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerMatMulNBitsKernels(std::vector<KernelEntry> *out) { out->push_back({"matmulNBits", makeMatMulNBits}); }

}  // namespace webnn::vk
