// groupQueryAttention (docs/LLM.md, ONNX Runtime's GroupQueryAttention with
// the KV cache in BNSH and optional rotary): two dispatches, the present
// cache (shaders/gqa_present.comp) and then attention over it
// (shaders/attention.comp, one workgroup per query row). The past
// length per batch entry comes from seqlensK (and totalSequenceLength) on
// the device, so one recorded command buffer serves every step of a fixed
// shape.
#include <cmath>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

// attention.comp: 64 invocations, each owning up to 4 output features.
constexpr uint32_t kRowInvocations = 64;
constexpr int64_t kMaxHeadSize = 256;

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }

Status makeGqa(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() < 6 || node.inputs.size() > 9 || !present(node, 0) || !present(node, 3) ||
      !present(node, 4) || !present(node, 5) || node.outputs.size() != 3 || !node.outputs[0] || !node.outputs[1] ||
      !node.outputs[2])
    return nodeUnsupported(node, "expects query, pastKey, pastValue and seqlensK, and output, presentKey and presentValue");
  const OperandDesc &q = *node.inputs[0];
  const DataType dtype = q.dtype;
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat16)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(dtype)) + " (float32 or float16 only)");
  for (size_t i : {size_t(1), size_t(2), size_t(3), size_t(4), size_t(7), size_t(8)})
    if (present(node, i) && node.inputs[i]->dtype != dtype)
      return nodeUnsupported(node, "every float operand must have the query's type (" +
                                       std::string(dataTypeName(dtype)) + ")");
  for (const OperandDesc *o : node.outputs)
    if (o->dtype != dtype) return nodeUnsupported(node, "outputs must have the query's type");
  int64_t numHeads = node.attributes.getInt("numHeads", 0), kvHeads = node.attributes.getInt("kvNumHeads", 0);
  double scale = node.attributes.getFloat("scale", 0.0);
  double softcap = node.attributes.getFloat("softcap", 0.0);
  int64_t window = node.attributes.getInt("localWindowSize", -1);
  bool rotary = node.attributes.getBool("doRotary", false);
  bool interleaved = node.attributes.getBool("rotaryInterleaved", false);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (numHeads < 1 || kvHeads < 1 || numHeads % kvHeads)
    return nodeUnsupported(node, "numHeads must be a positive multiple of kvNumHeads");
  if (q.shape.size() != 3) return nodeUnsupported(node, "query must be [B, S, hidden]");
  const int64_t B = q.shape[0], S = q.shape[1];
  const bool packed = !present(node, 1);
  if (packed != !present(node, 2)) return nodeUnsupported(node, "key and value must both be present or absent");
  int64_t parts = packed ? numHeads + 2 * kvHeads : numHeads;
  if (q.shape[2] % parts) return nodeUnsupported(node, "query hidden size does not split into heads");
  const int64_t D = q.shape[2] / parts;
  if (D > kMaxHeadSize) return nodeUnsupported(node, "head size " + std::to_string(D) + " above 256");
  Shape kvShape{B, S, kvHeads * D};
  for (size_t i : {size_t(1), size_t(2)})
    if (present(node, i) && node.inputs[i]->shape != kvShape) return nodeUnsupported(node, "key/value must be " + shapeToString(kvShape));
  const OperandDesc &pk = *node.inputs[3], &pv = *node.inputs[4];
  if (pk.shape.size() != 4 || pk.shape != pv.shape || pk.shape[0] != B || pk.shape[1] != kvHeads || pk.shape[3] != D)
    return nodeUnsupported(node, "pastKey/pastValue must be [B, kvNumHeads, P, D]");
  const int64_t P = pk.shape[2];
  // A present as long as a past that holds the new rows: the shared layout.
  int64_t T = P + S;
  if (node.outputs[1]->shape.size() == 4 && node.outputs[1]->shape[2] == P && P >= S) T = P;
  if (node.inputs[5]->dtype != DataType::kInt32 || node.inputs[5]->shape != Shape{B})
    return nodeUnsupported(node, "seqlensK must be int32 [B]");
  const bool hasTotal = present(node, 6);
  if (hasTotal && (node.inputs[6]->dtype != DataType::kInt32 || elementsOf(node.inputs[6]->shape) != 1))
    return nodeUnsupported(node, "totalSequenceLength must be one int32");
  if (present(node, 7) != present(node, 8)) return nodeUnsupported(node, "cosCache and sinCache go together");
  if (rotary && !present(node, 7)) return nodeUnsupported(node, "doRotary needs cosCache and sinCache");
  int64_t rot = 0, maxSeq = 1;
  if (rotary) {
    const OperandDesc &cc = *node.inputs[7];
    if (cc.shape.size() != 2 || cc.shape != node.inputs[8]->shape || cc.shape[0] < 1 || 2 * cc.shape[1] > D)
      return nodeUnsupported(node, "cosCache/sinCache must be [maxSeq, rotaryDim / 2], rotaryDim <= head size");
    maxSeq = cc.shape[0];
    rot = 2 * cc.shape[1];
  }
  if (node.outputs[0]->shape != Shape{B, S, numHeads * D}) return nodeUnsupported(node, "output must be [B, S, numHeads * D]");
  Shape presentShape{B, kvHeads, T, D};
  if (node.outputs[1]->shape != presentShape || node.outputs[2]->shape != presentShape)
    return nodeUnsupported(node, "presentKey/presentValue must be " + shapeToString(presentShape));
  if (B * S == 0) return Status::ok();
  uint32_t dt = 0;
  shaderDataType(dtype, &dt);
  const uint32_t common[] = {uint32_t(B), uint32_t(S), uint32_t(P), uint32_t(T), uint32_t(numHeads),
                             uint32_t(kvHeads), uint32_t(D), uint32_t(rot), uint32_t(maxSeq)};
  // Absent operands (and an empty past) alias the query; the shaders never
  // read them.
  BindingRef cosRef = rotary ? in(7) : in(0), sinRef = rotary ? in(8) : in(0);
  BindingRef totalRef = hasTotal ? in(6) : in(5);

  Dispatch cache;
  cache.shader = &shaders::gqa_present;
  cache.spec = {dt, packed ? 1u : 0u, rotary ? 1u : 0u, interleaved ? 1u : 0u, hasTotal ? 1u : 0u};
  cache.bindings = {in(0), packed ? in(0) : in(1), packed ? in(0) : in(2), P ? in(3) : in(0), P ? in(4) : in(0),
                    in(5), totalRef, cosRef, sinRef, out(1), out(2)};
  for (uint32_t v : common) cache.pushU(v);
  cache.coverElements(uint64_t(elementsOf(presentShape)));
  plan->dispatches.push_back(std::move(cache));

  Dispatch attend;
  attend.shader = &shaders::attention;
  attend.localSize = kRowInvocations;
  attend.spec = {dt, packed ? 1u : 0u, rotary ? 1u : 0u, interleaved ? 1u : 0u, hasTotal ? 1u : 0u,
                 softcap > 0.0 ? 1u : 0u, /*CAUSAL=*/1u};
  attend.bindings = {in(0), out(1), out(2), in(5), totalRef, cosRef, sinRef, out(0)};
  for (uint32_t v : common) attend.pushU(v);
  attend.pushF(float(scale != 0.0 ? scale : 1.0 / std::sqrt(double(D)))).pushF(float(softcap));
  attend.pushU(uint32_t(int32_t(window < 0 ? -1 : window)));
  attend.pushU(uint32_t(kvHeads * T * D)).pushU(uint32_t(T * D)).pushU(uint32_t(D));
  attend.coverElements(uint64_t(B * numHeads * S) * kRowInvocations);
  plan->dispatches.push_back(std::move(attend));
  return Status::ok();
}

}  // namespace

void registerGroupQueryAttentionKernels(std::vector<KernelEntry> *out) {
  out->push_back({"groupQueryAttention", makeGqa});
}

}  // namespace webnn::vk
