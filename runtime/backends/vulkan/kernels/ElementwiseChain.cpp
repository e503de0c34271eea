// The fused elementwise chain's dispatch: shaders/chain.comp.
#include "backends/vulkan/kernels/ElementwiseChain.h"

#include "Shaders.h"

namespace webnn::vk {
namespace {

// What elementwise.glsl computes: unary.comp's float ops but logicalNot,
// isNaN and isInfinite; binary add..min and prelu.
bool isChainCode(int64_t c) {
  if (c >= 0 && c <= 27) return c != 19;
  int64_t b = c - int64_t(kChainBinary);
  return (b >= 0 && b <= 5) || b == 16;
}

}  // namespace

Status makeElementwiseChain(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  constexpr int kMaxRank = 6;
  std::vector<int64_t> codes = node.attributes.getInts("chainCodes", {});
  std::vector<int64_t> args = node.attributes.getInts("chainArgs", {});
  std::vector<int64_t> alphas = node.attributes.getInts("chainAlphaBits", {});
  std::vector<int64_t> betas = node.attributes.getInts("chainBetaBits", {});
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  size_t steps = codes.size();
  if (steps == 0 || steps > size_t(kChainMaxSteps) || args.size() != steps || alphas.size() != steps ||
      betas.size() != steps)
    return nodeUnsupported(node, "malformed chain (1 to 8 steps, each with a code, argument, alpha and beta)");
  size_t numInputs = node.inputs.size();
  if (numInputs == 0 || numInputs > size_t(kChainMaxInputs) || node.outputs.size() != 1 || !node.outputs[0])
    return nodeUnsupported(node, "expects 1 to 5 inputs and one output");
  const OperandDesc &y = *node.outputs[0];
  if (y.dtype != DataType::kFloat32) return nodeUnsupported(node, "chains are float32 only");
  std::vector<bool> used(numInputs, false);
  used[0] = true;
  for (size_t s = 0; s < steps; ++s) {
    if (!isChainCode(codes[s]))
      return nodeUnsupported(node, "chain step " + std::to_string(s) + ": op code " + std::to_string(codes[s]) +
                                       " is not a float arithmetic op");
    bool binary = codes[s] >= int64_t(kChainBinary);
    int64_t other = args[s] & 7;
    if (args[s] < 0 || args[s] > 15 || (binary && other >= int64_t(numInputs)) || (!binary && args[s] != 0))
      return nodeUnsupported(node, "chain step " + std::to_string(s) + ": bad argument " + std::to_string(args[s]));
    if (binary) used[size_t(other)] = true;
  }
  for (size_t k = 0; k < numInputs; ++k) {
    if (!node.inputs[k] || node.inputs[k]->dtype != DataType::kFloat32)
      return nodeUnsupported(node, "chain input " + std::to_string(k) + " is absent or not float32");
    if (!used[k]) return nodeUnsupported(node, "chain input " + std::to_string(k) + " is not used");
    if (node.inputs[k]->shape.size() > y.shape.size())
      return nodeUnsupported(node, "chain input " + std::to_string(k) + " has a rank above the output's");
  }
  int64_t count = elementsOf(y.shape);
  if (count <= 0) return nodeUnsupported(node, "empty output");
  // One binding per tensor: chains over tensors past maxStorageBufferRange
  // are left unfused (the single ops split them).
  if (uint64_t(count) * 4 > device.maxStorageBufferRange)
    return nodeUnsupported(node, "output larger than maxStorageBufferRange");

  Shape dims = y.shape;
  std::vector<std::vector<uint64_t>> strides(numInputs);
  std::vector<std::vector<uint64_t> *> ptrs;
  for (size_t k = 0; k < numInputs; ++k) {
    strides[k] = broadcastStrides(node.inputs[k]->shape, dims.size());
    ptrs.push_back(&strides[k]);
  }
  coalesceDims(&dims, ptrs);
  if (dims.size() > size_t(kMaxRank)) return nodeUnsupported(node, "rank above 6 after merging dims");
  // The shader rebuilds each input's strides from which dims it walks: true
  // for dense tensors broadcast by numpy rules, checked here.
  size_t off = kMaxRank - dims.size();
  uint32_t walks = 0;
  // chain.comp's KINDk: 0 unused, 1 one element, 2 the output's shape,
  // 3 broadcast (only these pay for decomposing the index).
  std::vector<uint32_t> kinds(kChainMaxInputs, 0);
  for (size_t k = 0; k < numInputs; ++k) {
    uint64_t expect = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      if (strides[k][d] == 0) continue;
      if (strides[k][d] != expect) return nodeUnsupported(node, "input strides the chain shader cannot rebuild");
      walks |= 1u << (6 * k + off + d);
      expect *= uint64_t(dims[d]);
    }
    kinds[k] = expect == 1 ? 1 : int64_t(expect) == count ? 2 : 3;
  }

  Dispatch d;
  d.shader = &shaders::chain;
  d.spec.assign(1 + 2 * kChainMaxSteps, 0);
  d.spec[0] = uint32_t(steps);
  for (size_t s = 0; s < steps; ++s) {
    d.spec[1 + s] = uint32_t(codes[s]);
    d.spec[1 + kChainMaxSteps + s] = uint32_t(args[s]);
  }
  d.spec.insert(d.spec.end(), kinds.begin(), kinds.end());
  for (int k = 0; k < kChainMaxInputs; ++k) d.bindings.push_back(in(uint32_t(k < int(numInputs) ? k : 0)));
  d.bindings.push_back(out(0));
  d.pushU(uint32_t(count));
  for (size_t i = 0; i < size_t(kMaxRank); ++i) d.pushU(i < off ? 1 : uint32_t(dims[i - off]));
  d.pushU(walks);
  for (int s = 0; s < kChainMaxSteps; ++s) d.pushU(size_t(s) < steps ? uint32_t(alphas[size_t(s)]) : 0);
  for (int s = 0; s < kChainMaxSteps; ++s) d.pushU(size_t(s) < steps ? uint32_t(betas[size_t(s)]) : 0);
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace webnn::vk
