// fusedAttention (docs/FUSED_OPS.md: softmax(scale Q K^T) V per head, the
// heads read in place from [B, S, heads * Dh] projections):
// shaders/attention.comp without the causal range, one workgroup per
// (batch, head, query row).
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

// attention.comp: 64 invocations, each owning up to 4 output features.
constexpr uint32_t kRowInvocations = 64;
constexpr int64_t kMaxHeadSize = 256;

Status makeFusedAttention(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() != 3 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] || node.outputs.size() != 1 ||
      !node.outputs[0])
    return nodeUnsupported(node, "expects query, key and value and one output");
  const OperandDesc &q = *node.inputs[0], &k = *node.inputs[1], &v = *node.inputs[2];
  if (q.dtype != DataType::kFloat32 && q.dtype != DataType::kFloat16)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(q.dtype)) + " (float32 or float16 only)");
  if (k.dtype != q.dtype || v.dtype != q.dtype || node.outputs[0]->dtype != q.dtype)
    return nodeUnsupported(node, "query, key, value and output data types differ");
  if (!node.attributes.has("heads")) return nodeUnsupported(node, "missing required attribute 'heads'");
  int64_t heads = node.attributes.getInt("heads", 1);
  double scale = node.attributes.getFloat("scale", 1.0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (q.shape.size() != 3 || k.shape.size() != 3 || v.shape != k.shape)
    return nodeUnsupported(node, "expected query [B, S, D] and key, value [B, T, D], got " + shapeToString(q.shape) +
                                     ", " + shapeToString(k.shape) + ", " + shapeToString(v.shape));
  const int64_t B = q.shape[0], S = q.shape[1], D = q.shape[2], T = k.shape[1];
  if (k.shape[0] != B || k.shape[2] != D) return nodeUnsupported(node, "key's batch or width differs from query's");
  if (heads < 1 || D % heads != 0)
    return nodeUnsupported(node, "heads (" + std::to_string(heads) + ") must divide " + std::to_string(D));
  const int64_t Dh = D / heads;
  if (Dh > kMaxHeadSize) return nodeUnsupported(node, "head size " + std::to_string(Dh) + " above 256");
  if (node.outputs[0]->shape != q.shape) return nodeUnsupported(node, "output must have the query's shape");
  if (B * S * D == 0) return Status::ok();
  uint32_t dt = 0;
  shaderDataType(q.dtype, &dt);
  Dispatch d;
  d.shader = &shaders::attention;
  d.localSize = kRowInvocations;
  // DT, PACKED, ROTARY, INTERLEAVED, HAS_TOTAL, SOFTCAP, CAUSAL.
  d.spec = {dt, 0u, 0u, 0u, 0u, 0u, 0u};
  // The GQA-only bindings (seqlensK, totalSequenceLength, cos/sin) alias the
  // query; without CAUSAL and ROTARY the shader never reads them.
  d.bindings = {in(0), in(1), in(2), in(0), in(0), in(0), in(0), out(0)};
  // B, S, P, T, numHeads, kvHeads, D, rot, maxSeq.
  for (int64_t w : {B, S, int64_t(0), T, heads, heads, Dh, int64_t(0), int64_t(1)}) d.pushU(uint32_t(w));
  d.pushF(float(scale)).pushF(0.f).pushU(uint32_t(-1));
  d.pushU(uint32_t(T * D)).pushU(uint32_t(Dh)).pushU(uint32_t(D));
  d.coverElements(uint64_t(B * heads * S) * kRowInvocations);
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerFusedAttentionKernels(std::vector<KernelEntry> *out) {
  out->push_back({"fusedAttention", makeFusedAttention});
}

}  // namespace webnn::vk
