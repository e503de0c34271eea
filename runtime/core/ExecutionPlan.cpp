// The execution plan (core/ExecutionPlan.h): operand and node descriptions
// and the arena plan, once per model.
#include "core/ExecutionPlan.h"

#include <algorithm>
#include <sstream>

#include "core/MemoryPlanner.h"

namespace webnn::rt {

std::string nodeLabel(size_t index, const NodeDesc &n) {
  std::string s = "node " + std::to_string(index);
  if (!n.name.empty()) s += " '" + n.name + "'";
  return s + " (" + n.op + ")";
}

void collectSubgraphReads(const LoadedGraph &g, uint32_t s, std::vector<int32_t> *out) {
  const LoadedSubgraph &sub = g.subgraphs[s];
  for (const LoadedNode &n : sub.nodes) {
    out->insert(out->end(), n.inputs.begin(), n.inputs.end());
    for (uint32_t nested : n.subgraphs) collectSubgraphReads(g, nested, out);
  }
  out->insert(out->end(), sub.outputs.begin(), sub.outputs.end());
}

std::vector<int64_t> countReads(const LoadedGraph &g) {
  std::vector<int64_t> reads(g.tensors.size(), 0);
  for (const LoadedNode &n : g.nodes) {
    std::vector<int32_t> r(n.inputs);
    for (uint32_t s : n.subgraphs) collectSubgraphReads(g, s, &r);
    for (int32_t in : r)
      if (in >= 0) ++reads[size_t(in)];
  }
  for (uint32_t o : g.outputs) ++reads[o];
  return reads;
}

namespace {

// Liveness of one graph's nodes (the main graph or a subgraph): last reading
// position per tensor, a node with subgraphs reading all they read.
void computeLastUse(const LoadedGraph &g, const std::vector<LoadedNode> &nodes, std::vector<int64_t> *lastUse) {
  for (int64_t i = 0; i < static_cast<int64_t>(nodes.size()); ++i) {
    std::vector<int32_t> reads(nodes[i].inputs);
    for (uint32_t s : nodes[i].subgraphs) collectSubgraphReads(g, s, &reads);
    for (int32_t in : reads)
      if (in >= 0) (*lastUse)[in] = std::max((*lastUse)[in], i);
  }
}

// The input whose bytes a node's output 0 may take over (the contract of
// BufferRequest::placedIn), by op: quantizedConv2d's residual
// (docs/FUSED_OPS.md), whose every implementation reads each residual element
// just before writing the same output element. -1 for every other op.
int64_t accumulatesInto(const LoadedNode &n) {
  if (n.op == "quantizedConv2d" && n.outputs.size() == 1 && n.inputs.size() > 8 && n.inputs[8] >= 0) return 8;
  // reshape's output is its input's bytes in the same order: over a dying
  // input there is nothing left to copy (the CPU kernel copies only when the
  // two differ).
  if (n.op == "reshape" && n.outputs.size() == 1 && n.inputs.size() == 1) return 0;
  return -1;
}

// Asks the planner to write each such output over its input: both planned
// here (`requestOf`: tensor -> request, -1 for inputs, constants and other
// scopes), of one type and size, the input read by no other operand of the
// node. The planner keeps the input's later readers safe (it refuses unless
// the input dies at this node).
void proposeInPlace(const LoadedGraph &g, const std::vector<LoadedNode> &nodes, const std::vector<int64_t> &requestOf,
                    std::vector<BufferRequest> *requests) {
  for (const LoadedNode &n : nodes) {
    const int64_t k = accumulatesInto(n);
    if (k < 0) continue;
    const int32_t in = n.inputs[size_t(k)], out = n.outputs[0];
    if (in < 0 || out < 0 || requestOf[size_t(in)] < 0 || requestOf[size_t(out)] < 0) continue;
    const LoadedTensor &a = g.tensors[size_t(in)], &b = g.tensors[size_t(out)];
    if (a.dtype != b.dtype || a.byteSize != b.byteSize || !n.subgraphs.empty() ||
        std::count(n.inputs.begin(), n.inputs.end(), in) != 1)
      continue;
    (*requests)[size_t(requestOf[size_t(out)])].placedIn = requestOf[size_t(in)];
  }
}

NodeDesc describeNode(const LoadedNode &ln, bool relaxed, std::vector<OperandDesc> &operands) {
  NodeDesc d;
  d.op = ln.op;
  d.name = ln.name;
  d.attributes = ln.attributes;
  d.relaxedPrecision = relaxed;
  d.packed = ln.packed;
  for (int32_t in : ln.inputs) d.inputs.push_back(in < 0 ? nullptr : &operands[in]);
  for (int32_t o : ln.outputs) d.outputs.push_back(&operands[o]);
  return d;
}

// " over 'x'" where request r took over x's bytes (planArena honoured its
// placedIn), else "".
std::string inPlaceText(const std::vector<BufferRequest> &requests, const std::vector<size_t> &tensorOf,
                        const ArenaPlan &plan, size_t r, const LoadedGraph &g) {
  const int64_t k = requests[r].placedIn;
  if (k < 0 || requests[r].bytes == 0 || plan.offsets[size_t(k)] != plan.offsets[r]) return "";
  return " over '" + g.tensors[tensorOf[size_t(k)]].name + "'";
}

}  // namespace

Status prepareGraph(LoadedGraph &&loaded, std::shared_ptr<PreparedGraph> *out) {
  auto p = std::make_shared<PreparedGraph>();
  p->graph = std::move(loaded);
  const LoadedGraph &g = p->graph;
  const size_t numTensors = g.tensors.size();
  const int64_t numNodes = static_cast<int64_t>(g.nodes.size());

  p->operands.resize(numTensors);
  for (size_t t = 0; t < numTensors; ++t) {
    p->operands[t].dtype = g.tensors[t].dtype;
    p->operands[t].shape = g.tensors[t].shape;
    p->operands[t].constantData = g.tensors[t].constantData;
  }
  for (const LoadedNode &ln : g.nodes) p->nodes.push_back(describeNode(ln, g.relaxedPrecision, p->operands));
  p->subgraphs.resize(g.subgraphs.size());
  for (size_t s = 0; s < g.subgraphs.size(); ++s)
    for (const LoadedNode &ln : g.subgraphs[s].nodes)
      p->subgraphs[s].nodes.push_back(describeNode(ln, g.relaxedPrecision, p->operands));

  // Liveness over the topological order. Graph outputs stay live past the
  // last node (position numNodes) so run() leaves them readable; a value a
  // subgraph captures stays live until its owning node has run.
  std::vector<int64_t> lastUse(numTensors, -1);
  computeLastUse(g, g.nodes, &lastUse);
  for (uint32_t o : g.outputs) lastUse[o] = numNodes;

  std::vector<BufferRequest> requests;
  std::vector<size_t> requestTensor;  // tensor index, or numTensors + k for output copy k
  std::vector<int64_t> requestOf(numTensors, -1);
  for (size_t t = 0; t < numTensors; ++t) {
    const LoadedTensor &lt = g.tensors[t];
    if (lt.role != TensorRole::kIntermediate || lt.producer < 0 || lt.scope >= 0) continue;
    requestOf[t] = int64_t(requests.size());
    requests.push_back({lt.byteSize, lt.producer, std::max<int64_t>(lastUse[t], lt.producer)});
    requestTensor.push_back(t);
  }
  proposeInPlace(g, g.nodes, requestOf, &requests);
  // An output that is a graph input or a constant is copied into the arena at
  // the end of a run, so every output is session-owned memory.
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const LoadedTensor &lt = g.tensors[g.outputs[k]];
    if (lt.role == TensorRole::kIntermediate) continue;
    requests.push_back({lt.byteSize, numNodes, numNodes});
    requestTensor.push_back(numTensors + k);
  }

  ArenaPlan plan;
  WEBNN_RETURN_IF_ERROR(planArena(requests, kArenaAlignment, &plan));
  p->arenaBytes = plan.arenaBytes;
  p->arenaOffset.assign(numTensors, kNotInArena);
  p->outputCopyOffset.assign(g.outputs.size(), kNotInArena);
  uint64_t naive = 0;
  std::ostringstream text;
  for (size_t r = 0; r < requests.size(); ++r) {
    size_t t = requestTensor[r];
    bool copy = t >= numTensors;
    if (copy) p->outputCopyOffset[t - numTensors] = plan.offsets[r];
    else p->arenaOffset[t] = plan.offsets[r];
    naive += (requests[r].bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
    const LoadedTensor &lt = g.tensors[copy ? g.outputs[t - numTensors] : t];
    text << "  offset " << plan.offsets[r] << " bytes " << requests[r].bytes << " live [" << requests[r].firstUse
         << ", " << requests[r].lastUse << "] " << (copy ? "output copy of " : "") << "'" << lt.name << "' "
         << dataTypeName(lt.dtype) << " " << shapeToString(lt.shape) << inPlaceText(requests, requestTensor, plan, r, g)
         << "\n";
  }
  size_t planned = requests.size();
  p->outputOverInput.assign(g.nodes.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const LoadedNode &n = g.nodes[i];
    const int64_t k = accumulatesInto(n);
    if (k < 0 || n.outputs[0] < 0) continue;
    const size_t in = size_t(n.inputs[size_t(k)]), out = size_t(n.outputs[0]);
    if (p->arenaOffset[in] != kNotInArena && p->arenaOffset[in] == p->arenaOffset[out] && g.tensors[out].byteSize)
      p->outputOverInput[i] = int32_t(k);
  }

  // Each subgraph's intermediates: planned over its own node order, in a
  // region of their own after the main graph's (a subgraph runs while its
  // owner's inputs and captured values are live, so it cannot share theirs).
  for (size_t s = 0; s < g.subgraphs.size(); ++s) {
    const LoadedSubgraph &sub = g.subgraphs[s];
    const int64_t subNodes = static_cast<int64_t>(sub.nodes.size());
    std::vector<int64_t> subLastUse(numTensors, -1);
    computeLastUse(g, sub.nodes, &subLastUse);
    for (uint32_t o : sub.outputs) subLastUse[o] = subNodes;  // copied out after the last node
    std::vector<BufferRequest> subRequests;
    std::vector<size_t> subTensor;
    std::vector<int64_t> subRequestOf(numTensors, -1);
    for (size_t t = 0; t < numTensors; ++t) {
      const LoadedTensor &lt = g.tensors[t];
      if (lt.role != TensorRole::kIntermediate || lt.scope != static_cast<int32_t>(s)) continue;
      subRequestOf[t] = int64_t(subRequests.size());
      subRequests.push_back({lt.byteSize, lt.producer, std::max<int64_t>(subLastUse[t], lt.producer)});
      subTensor.push_back(t);
    }
    proposeInPlace(g, sub.nodes, subRequestOf, &subRequests);
    ArenaPlan subPlan;
    WEBNN_RETURN_IF_ERROR(planArena(subRequests, kArenaAlignment, &subPlan));
    const uint64_t base = p->arenaBytes;
    if (subPlan.arenaBytes > UINT64_MAX / 2 - base) return invalidArtifact("subgraph arenas overflow");
    p->arenaBytes += subPlan.arenaBytes;
    text << "  subgraph " << s << ": " << subPlan.arenaBytes << " bytes at offset " << base << "\n";
    for (size_t r = 0; r < subRequests.size(); ++r) {
      size_t t = subTensor[r];
      p->arenaOffset[t] = base + subPlan.offsets[r];
      naive += (subRequests[r].bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
      text << "    offset " << p->arenaOffset[t] << " bytes " << subRequests[r].bytes << " live ["
           << subRequests[r].firstUse << ", " << subRequests[r].lastUse << "] '" << g.tensors[t].name << "' "
           << dataTypeName(g.tensors[t].dtype) << " " << shapeToString(g.tensors[t].shape)
           << inPlaceText(subRequests, subTensor, subPlan, r, g) << "\n";
    }
    planned += subRequests.size();
  }
  p->planText = "arena " + std::to_string(p->arenaBytes) + " bytes for " + std::to_string(planned) +
                " tensors (" + std::to_string(naive) + " bytes without reuse, 64-byte aligned)\n" + text.str();
  *out = std::move(p);
  return Status::ok();
}

}  // namespace webnn::rt
