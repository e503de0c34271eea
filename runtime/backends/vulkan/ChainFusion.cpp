#include "backends/vulkan/ChainFusion.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/vulkan/kernels/ElementwiseChain.h"

namespace webnn::vk {
namespace {

struct ChainNode {
  size_t node;
  int valuePos;  // the input holding the running value (-1: the chain's first node)
};

rt::AttributeValue intsValue(std::vector<int64_t> v) {
  rt::AttributeValue a;
  a.kind = rt::AttributeValue::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

int64_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return int64_t(u);
}

// The chain node for `chain` (with its tensor operands in *inputs), or null
// when chain.comp cannot run it.
std::unique_ptr<NodeDesc> buildChain(const DeviceInfo &device, const std::vector<ProgramNode> &nodes,
                                     const std::vector<ChainStep> &steps, const std::vector<ChainNode> &chain,
                                     std::vector<int32_t> *inputs) {
  auto desc = std::make_unique<NodeDesc>();
  const ProgramNode &head = nodes[chain.front().node];
  inputs->assign(1, head.inputs[0]);
  desc->inputs.assign(1, head.desc->inputs[0]);
  std::vector<int64_t> codes, args, alphas, betas;
  for (size_t c = 0; c < chain.size(); ++c) {
    const ProgramNode &pn = nodes[chain[c].node];
    const ChainStep &s = steps[chain[c].node];
    int64_t arg = 0;
    if (pn.inputs.size() == 2) {
      // The head's running value is its first input; later nodes' is the
      // input the previous node feeds.
      int valuePos = c == 0 ? 0 : chain[c].valuePos;
      int otherPos = 1 - valuePos;
      int32_t t = pn.inputs[size_t(otherPos)];
      size_t k = 0;
      while (k < inputs->size() && (*inputs)[k] != t) ++k;
      if (k == inputs->size()) {
        if (k == size_t(kChainMaxInputs)) return nullptr;
        inputs->push_back(t);
        desc->inputs.push_back(pn.desc->inputs[size_t(otherPos)]);
      }
      arg = int64_t(k) + (valuePos == 1 ? 8 : 0);
    }
    codes.push_back(int64_t(s.code));
    args.push_back(arg);
    alphas.push_back(floatBits(s.alpha));
    betas.push_back(floatBits(s.beta));
  }
  const ProgramNode &last = nodes[chain.back().node];
  desc->op = kElementwiseChainOp;
  desc->name = last.desc->name + " (with " + std::to_string(chain.size() - 1) + " elementwise ops before it)";
  desc->outputs = last.desc->outputs;
  desc->attributes.set("chainCodes", intsValue(codes));
  desc->attributes.set("chainArgs", intsValue(args));
  desc->attributes.set("chainAlphaBits", intsValue(alphas));
  desc->attributes.set("chainBetaBits", intsValue(betas));
  KernelPlan plan;
  if (!makeElementwiseChain(*desc, device, &plan).isOk()) return nullptr;
  return desc;
}

}  // namespace

std::vector<ElementwiseChain> findElementwiseChains(const DeviceInfo &device, const std::vector<ProgramTensor> &tensors,
                                                    const std::vector<ProgramNode> &nodes) {
  std::vector<ElementwiseChain> found;
  const char *env = std::getenv("WEBNN_VULKAN_CHAIN_FUSION");
  if (env && std::string(env) == "0") return found;
  const size_t n = nodes.size();
  std::vector<ChainStep> steps(n);
  std::vector<bool> chainable(n, false);
  std::vector<int> uses(tensors.size(), 0), producer(tensors.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    const ProgramNode &pn = nodes[i];
    for (int32_t t : pn.inputs)
      if (t >= 0) ++uses[size_t(t)];
    for (int32_t t : pn.outputs)
      if (t >= 0) producer[size_t(t)] = int(i);
    bool operandsPresent = pn.outputs.size() == 1 && pn.outputs[0] >= 0 && !pn.inputs.empty();
    for (int32_t t : pn.inputs) operandsPresent = operandsPresent && t >= 0;
    chainable[i] = operandsPresent && chainStepOf(*pn.desc, &steps[i]);
  }
  // Links: node j continues the chain of the node producing one of its
  // inputs when that result is used by j alone and only inside the program;
  // of two such inputs, the one with j's output shape (the wider operand).
  std::vector<int> next(n, -1), prev(n, -1), valuePos(n, -1);
  for (size_t j = 0; j < n; ++j) {
    if (!chainable[j]) continue;
    const ProgramNode &pn = nodes[j];
    int best = -1;
    for (size_t p = 0; p < pn.inputs.size(); ++p) {
      size_t t = size_t(pn.inputs[p]);
      int i = producer[t];
      if (i < 0 || !chainable[size_t(i)] || uses[t] != 1 || tensors[t].role != ProgramTensor::Role::kIntermediate)
        continue;
      if (best < 0 || tensors[t].shape == tensors[size_t(pn.outputs[0])].shape) best = int(p);
    }
    if (best < 0) continue;
    int i = producer[size_t(pn.inputs[size_t(best)])];
    next[size_t(i)] = int(j);
    prev[j] = i;
    valuePos[j] = best;
  }

  for (size_t i = 0; i < n; ++i) {
    if (prev[i] >= 0 || next[i] < 0) continue;
    std::vector<ChainNode> whole;
    for (int j = int(i); j >= 0; j = next[size_t(j)]) whole.push_back({size_t(j), valuePos[size_t(j)]});
    // Greedy segments: each grows while chain.comp can still run it.
    size_t s = 0;
    while (s < whole.size()) {
      std::vector<ChainNode> seg = {whole[s]};
      std::unique_ptr<NodeDesc> desc;
      std::vector<int32_t> inputs;
      size_t e = s + 1;
      for (; e < whole.size() && seg.size() < size_t(kChainMaxSteps); ++e) {
        std::vector<ChainNode> grown = seg;
        grown.push_back(whole[e]);
        std::vector<int32_t> grownInputs;
        std::unique_ptr<NodeDesc> d = buildChain(device, nodes, steps, grown, &grownInputs);
        if (!d) break;
        seg = std::move(grown);
        desc = std::move(d);
        inputs = std::move(grownInputs);
      }
      if (desc) {
        ElementwiseChain c;
        for (const ChainNode &cn : seg) c.nodes.push_back(cn.node);
        c.desc = std::move(desc);
        c.inputs = std::move(inputs);
        found.push_back(std::move(c));
      }
      s = e;
    }
  }
  return found;
}

Status elementwiseChainOf(const DeviceInfo &device, const std::vector<ProgramNode> &nodes,
                          const std::vector<size_t> &chain, ElementwiseChain *out) {
  if (chain.size() < 2 || chain.size() > size_t(kChainMaxSteps))
    return invalidArgument("an elementwise chain of " + std::to_string(chain.size()) + " nodes");
  std::vector<ChainStep> steps(nodes.size());
  std::vector<ChainNode> links;
  std::vector<int32_t> made;  // values made inside the chain
  for (size_t c = 0; c < chain.size(); ++c) {
    if (chain[c] >= nodes.size()) return invalidArgument("an elementwise chain past the node list");
    const ProgramNode &pn = nodes[chain[c]];
    const std::string label = pn.desc->op + " '" + pn.desc->name + "'";
    bool present = pn.outputs.size() == 1 && pn.outputs[0] >= 0 && !pn.inputs.empty();
    for (int32_t t : pn.inputs) present = present && t >= 0;
    if (!present || !chainStepOf(*pn.desc, &steps[chain[c]]))
      return unsupported(label + " is not a float32 elementwise op the chain shader runs");
    int valuePos = -1;
    if (c > 0) {
      for (size_t p = 0; p < pn.inputs.size(); ++p) {
        if (pn.inputs[p] != made.back()) continue;
        if (valuePos >= 0) return unsupported(label + " reads the previous op's value twice");
        valuePos = int(p);
      }
      if (valuePos < 0) return unsupported(label + " does not read the previous op's value");
    }
    links.push_back({chain[c], valuePos});
    made.push_back(pn.outputs[0]);
  }
  std::vector<int32_t> inputs;
  std::unique_ptr<NodeDesc> desc = buildChain(device, nodes, steps, links, &inputs);
  if (!desc) return unsupported("the chain shader cannot run these " + std::to_string(chain.size()) + " ops as one");
  for (int32_t t : inputs)
    for (size_t c = 0; c < made.size(); ++c)
      if (t == made[c]) {
        const NodeDesc &d = *nodes[chain[c]].desc;
        return unsupported(d.op + " '" + d.name + "': its value is read again further down the chain");
      }
  out->nodes = chain;
  out->desc = std::move(desc);
  out->inputs = std::move(inputs);
  return Status::ok();
}

void fuseElementwiseChains(const DeviceInfo &device, const std::vector<ProgramTensor> &tensors,
                           std::vector<ProgramNode> *nodes, FusedChains *fused) {
  std::vector<ElementwiseChain> chains = findElementwiseChains(device, tensors, *nodes);
  if (chains.empty()) return;
  const size_t n = nodes->size();
  std::vector<bool> removed(n, false);
  std::vector<std::unique_ptr<ProgramNode>> replacement(n);
  for (ElementwiseChain &c : chains) {
    auto pn = std::make_unique<ProgramNode>();
    pn->desc = c.desc.get();
    pn->inputs = c.inputs;
    pn->outputs = (*nodes)[c.nodes.back()].outputs;
    for (size_t k : c.nodes) removed[k] = true;
    replacement[c.nodes.back()] = std::move(pn);
    fused->nodesFused += c.nodes.size();
    fused->descs.push_back(std::move(c.desc));
  }
  std::vector<ProgramNode> out;
  for (size_t i = 0; i < n; ++i) {
    if (replacement[i]) out.push_back(*replacement[i]);
    else if (!removed[i]) out.push_back((*nodes)[i]);
  }
  *nodes = std::move(out);
}

}  // namespace webnn::vk
