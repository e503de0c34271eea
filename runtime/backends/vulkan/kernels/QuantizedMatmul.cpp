// quantizedMatmul (docs/FUSED_OPS.md: int8 QDQ matmul, formed by webnnc's
// --webnn-fuse-qdq): shaders/quantized_matmul.comp, one workgroup per output
// element. Scales and zero points are read from their tensors on the device
// (the CPU kernel folds constant ones at load).
#include <algorithm>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

// The partial sums meet in a power-of-two tree over the workgroup.
constexpr uint32_t kOutputInvocations = 64;

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }
bool isInt8(DataType t) { return t == DataType::kInt8 || t == DataType::kUint8; }

// One quantized operand (x, scale, zero point at inputs x, s, z); `perColumn`
// > 0 allows that many scales / zero points. Their counts in *scales, *zeros.
Status checkParams(const NodeDesc &node, size_t x, size_t s, size_t z, int64_t perColumn, const char *what,
                   uint32_t *scales, uint32_t *zeros) {
  const OperandDesc &xd = *node.inputs[x], &sd = *node.inputs[s], &zd = *node.inputs[z];
  if (!isInt8(zd.dtype)) return nodeUnsupported(node, std::string(what) + "ZeroPoint must be int8 or uint8");
  if (xd.dtype != DataType::kFloat32 && xd.dtype != zd.dtype)
    return nodeUnsupported(node, std::string(what) + " must be float32 or its zero point's type");
  if (sd.dtype != DataType::kFloat32) return nodeUnsupported(node, std::string(what) + "Scale must be float32");
  int64_t ns = elementsOf(sd.shape), nz = elementsOf(zd.shape);
  auto okCount = [&](int64_t n) { return n == 1 || (perColumn > 0 && n == perColumn); };
  if (!okCount(ns) || !okCount(nz) || (nz != 1 && nz != ns))
    return nodeUnsupported(node, std::string(what) + "'s scale and zero point have the wrong number of elements");
  *scales = uint32_t(ns);
  *zeros = uint32_t(nz);
  return Status::ok();
}

Status makeQuantizedMatmul(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() < 6 || node.inputs.size() > 9 || node.outputs.size() != 1 || !node.outputs[0])
    return nodeUnsupported(node, "expects a, aScale, aZeroPoint, b, bScale, bZeroPoint (outputScale, "
                                 "outputZeroPoint, bias) and one output");
  for (size_t i = 0; i < 6; ++i)
    if (!present(node, i)) return nodeUnsupported(node, "operand " + std::to_string(i) + " is required");
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[3];
  if (a.shape.size() < 2 || b.shape.size() < 2) return nodeUnsupported(node, "a and b must have rank >= 2");
  const int64_t K = a.shape.back(), N = b.shape.back(), M = a.shape[a.shape.size() - 2];
  if (b.shape[b.shape.size() - 2] != K) return nodeUnsupported(node, "b must have K = " + std::to_string(K) + " rows");
  // Every partial product fits 2^16, so K terms stay inside int32.
  if (K > 32768) return nodeUnsupported(node, "K must be <= 32768");
  const bool bBatched = b.shape.size() != 2;
  if (bBatched && (b.shape.size() != a.shape.size() || !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin())))
    return nodeUnsupported(node, "b must have rank 2 or a's batch dimensions");
  uint32_t aScales, aZeros, bScales, bZeros;
  WEBNN_RETURN_IF_ERROR(checkParams(node, 0, 1, 2, 0, "a", &aScales, &aZeros));
  WEBNN_RETURN_IF_ERROR(
      checkParams(node, 3, 4, 5, (!bBatched && b.dtype != DataType::kFloat32) ? N : 0, "b", &bScales, &bZeros));
  if (present(node, 6) != present(node, 7)) return nodeUnsupported(node, "outputScale and outputZeroPoint go together");
  const bool roundTrip = present(node, 6);
  if (roundTrip) {
    const OperandDesc &s = *node.inputs[6], &z = *node.inputs[7];
    if (s.dtype != DataType::kFloat32 || !isInt8(z.dtype) || elementsOf(s.shape) != 1 || elementsOf(z.shape) != 1)
      return nodeUnsupported(node, "outputScale / outputZeroPoint must be one float32 / int8 or uint8 element each");
  }
  const bool hasBias = present(node, 8);
  if (hasBias && (node.inputs[8]->dtype != DataType::kFloat32 || node.inputs[8]->shape != Shape{N}))
    return nodeUnsupported(node, "bias must be float32 [" + std::to_string(N) + "]");
  Shape outShape = a.shape;
  outShape.back() = N;
  if (node.outputs[0]->dtype != DataType::kFloat32 || node.outputs[0]->shape != outShape)
    return nodeUnsupported(node, "output must be float32 " + shapeToString(outShape));
  const uint64_t outputs = uint64_t(elementsOf(outShape));
  if (outputs == 0) return Status::ok();
  if (outputs > UINT32_MAX) return nodeUnsupported(node, "more than 2^32 outputs");
  auto dt = [&](size_t i) {
    uint32_t code = 0;
    shaderDataType(node.inputs[i]->dtype, &code);
    return code;
  };
  Dispatch d;
  d.shader = &shaders::quantized_matmul;
  d.localSize = kOutputInvocations;
  d.spec = {dt(0), dt(2), dt(3), dt(5), roundTrip ? dt(7) : uint32_t(DataType::kUint8), roundTrip ? 1u : 0u,
            hasBias ? 1u : 0u, bBatched ? 1u : 0u};
  // Absent operands alias aScale (float32): never read.
  d.bindings = {in(0), in(1), in(2), in(3), in(4), in(5), in(roundTrip ? 6 : 1), in(roundTrip ? 7 : 2),
                in(hasBias ? 8 : 1), out(0)};
  d.pushU(uint32_t(outputs / uint64_t(M * N))).pushU(uint32_t(M)).pushU(uint32_t(N)).pushU(uint32_t(K));
  d.pushU(bScales).pushU(bZeros);
  d.coverElements(outputs * kOutputInvocations);
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerQuantizedMatmulKernels(std::vector<KernelEntry> *out) {
  out->push_back({"quantizedMatmul", makeQuantizedMatmul});
}

}  // namespace webnn::vk
