// rotaryEmbedding (docs/LLM.md, ONNX Runtime's RotaryEmbedding, half-split
// or interleaved pairs): shaders/rotary.comp, one invocation per element.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"
#include "core/RotaryGeometry.h"

namespace webnn::vk {
namespace {

bool floatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

Status makeRotary(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() != 4 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] || !node.inputs[3] ||
      node.outputs.size() != 1 || !node.outputs[0])
    return nodeUnsupported(node, "expects input, positionIds, cosCache and sinCache and one output");
  const OperandDesc &x = *node.inputs[0], &pos = *node.inputs[1], &cosC = *node.inputs[2], &sinC = *node.inputs[3];
  if (!floatType(x.dtype) || node.outputs[0]->dtype != x.dtype)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)) + " (float32 or float16 only)");
  if (!floatType(cosC.dtype) || sinC.dtype != cosC.dtype) return nodeUnsupported(node, "cosCache/sinCache must be float");
  bool interleaved = node.attributes.getBool("interleaved", false);
  int64_t numHeads = node.attributes.getInt("numHeads", 0);
  int64_t rot = node.attributes.getInt("rotaryEmbeddingDim", 0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (x.shape.size() != 3 && x.shape.size() != 4) return nodeUnsupported(node, "input must be 3-D or 4-D");
  if (pos.dtype != DataType::kInt64) return nodeUnsupported(node, "positionIds must be int64");
  if (cosC.shape.size() != 2 || cosC.shape != sinC.shape || cosC.shape[0] < 1)
    return nodeUnsupported(node, "cosCache/sinCache must be one non-empty 2-D shape");
  rt::RotaryGeometry g;
  if (std::string why = rt::rotaryGeometry(x.shape, cosC.shape[1], numHeads, rot, &g); !why.empty())
    return nodeUnsupported(node, why);
  const bool bnsh = g.bnsh;
  const int64_t B = g.B, S = g.S, H = g.H, D = g.D;
  rot = g.rot;
  const bool scalarPos = pos.shape == Shape{1};
  if (!scalarPos && pos.shape != Shape{B, S}) return nodeUnsupported(node, "positionIds must be [1] or [B, S]");
  if (node.outputs[0]->shape != x.shape) return nodeUnsupported(node, "output must have the input's shape");
  const uint64_t count = uint64_t(elementsOf(x.shape));
  if (count == 0) return Status::ok();
  if (count > UINT32_MAX) return nodeUnsupported(node, "more than 2^32 elements");
  uint32_t dt = 0, cacheDt = 0;
  shaderDataType(x.dtype, &dt);
  shaderDataType(cosC.dtype, &cacheDt);
  Dispatch d;
  d.shader = &shaders::rotary;
  d.spec = {dt, cacheDt, uint32_t(DataType::kInt64), bnsh ? 1u : 0u, interleaved ? 1u : 0u, scalarPos ? 1u : 0u};
  d.bindings = {in(0), in(1), in(2), in(3), out(0)};
  d.pushU(uint32_t(count)).pushU(uint32_t(S)).pushU(uint32_t(H)).pushU(uint32_t(D)).pushU(uint32_t(rot));
  d.pushU(uint32_t(cosC.shape[0]));
  d.coverElements(count);
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerRotaryEmbeddingKernels(std::vector<KernelEntry> *out) { out->push_back({"rotaryEmbedding", makeRotary}); }

}  // namespace webnn::vk
