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
// BufferRequest::placedIn), by op: quantizedConv2d's and fusedConv2d's
// residual (docs/FUSED_OPS.md), whose every implementation reads each residual
// element before writing the same output element (or copies it aside
// first): the output then accumulates into the residual's buffer, as ORT's
// Conv + Sum does, instead of copying it. -1 for every other op.
int64_t accumulatesInto(const LoadedNode &n) {
  if (n.op == "quantizedConv2d" && n.outputs.size() == 1 && n.inputs.size() > 8 && n.inputs[8] >= 0) return 8;
  if (n.op == "fusedConv2d" && n.outputs.size() == 1 && n.inputs.size() > 3 && n.inputs[3] >= 0) return 3;
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

// ---- concat elimination (ConcatViewPlan)

// Whether a concat input's producer writes a strided slice: the CPU kernels
// of pools and concat in place; convolutions through the copy their kernel
// makes anyway (oneDNN's optimized convolutions take only a dense
// destination: the reorder out of Winograd's blocked layout writes the
// slice, an nhwc one reorders after), or, for kernels that write only dense
// rows, the CPU backend's dense copy after them, which then replaces the
// concat's copy of it (SqueezeNet's expand layers, each read by one concat).
bool writesSlice(const std::string &op) {
  return op == "maxPool2d" || op == "averagePool2d" || op == "concat" || op == "conv2d" || op == "fusedConv2d";
}

// Ops whose kernels read a strided input without a copy: the other readers
// a placed tensor may have (any other reader keeps it dense, copied into the
// concat as before). fusedConv2d: DenseNet's batchNormalization + relu as a
// depthwise 1x1 (--webnn-batchnorm-relu-to-depthwise), which the CPU runs
// with the 1x1 after it reading the slice in place; a convolution kernel
// that does not read a pitch gets a dense copy (CpuBackend::makeKernel).
bool readsRowPitch(const std::string &op) {
  return op == "concat" || op == "batchNormalization" || op == "fusedConv2d";
}

// Where a placed tensor lives: inside `root`'s bytes at `byteOffset`, its
// last-axis rows `pitch` elements apart (0: dense).
struct ViewSlot {
  int64_t root = -1;
  uint64_t byteOffset = 0;
  int64_t pitch = 0;
};

// The concats of the main graph, latest first (so a concat whose output
// another concat takes is placed after, inside that one), place their
// inputs: see ConcatViewPlan. Returns one slot per tensor.
std::vector<ViewSlot> placeConcatInputs(const LoadedGraph &g, const std::vector<BufferRequest> &requests,
                                        const std::vector<int64_t> &requestOf) {
  const size_t numTensors = g.tensors.size();
  std::vector<ViewSlot> slot(numTensors);
  std::vector<std::vector<int32_t>> readers(numTensors);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int32_t in : g.nodes[i].inputs)
      if (in >= 0) readers[size_t(in)].push_back(int32_t(i));
  std::vector<bool> isOutput(numTensors, false), inPlace(numTensors, false), hasMembers(numTensors, false);
  for (uint32_t o : g.outputs) isOutput[o] = true;
  std::vector<size_t> tensorOf(requests.size(), SIZE_MAX);
  for (size_t t = 0; t < numTensors; ++t)
    if (requestOf[t] >= 0) tensorOf[size_t(requestOf[t])] = t;
  for (size_t r = 0; r < requests.size(); ++r) {
    const int64_t k = requests[r].placedIn;
    if (k < 0 || size_t(k) >= requests.size()) continue;
    if (tensorOf[r] != SIZE_MAX) inPlace[tensorOf[r]] = true;
    if (tensorOf[size_t(k)] != SIZE_MAX) inPlace[tensorOf[size_t(k)]] = true;
  }
  // A tensor that may live inside another: planned here, not an output or
  // taken over in place, made by a node that writes its slice (above) and
  // read only by nodes that read one.
  auto placeable = [&](int32_t t) {
    const LoadedTensor &lt = g.tensors[size_t(t)];
    if (requestOf[size_t(t)] < 0 || isOutput[size_t(t)] || inPlace[size_t(t)] || lt.byteSize == 0 || lt.producer < 0)
      return false;
    const LoadedNode &p = g.nodes[size_t(lt.producer)];
    if (p.outputs.size() != 1 || !p.subgraphs.empty() || !writesSlice(p.op)) return false;
    for (int32_t r : readers[size_t(t)])
      if (!readsRowPitch(g.nodes[size_t(r)].op)) return false;
    return true;
  };
  auto aligned = [](uint64_t bytes) { return bytes % kArenaAlignment == 0; };
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const LoadedNode &n = g.nodes[i];
    if (n.op != "concat" || n.outputs.size() != 1 || n.inputs.empty() || !n.subgraphs.empty()) continue;
    const int32_t y = n.outputs[0];
    const LoadedTensor &yt = g.tensors[size_t(y)];
    const size_t rank = yt.shape.size();
    uint64_t col0 = 0;
    if (requestOf[size_t(y)] < 0 || rank == 0 || !yt.dims.empty()) continue;
    int64_t axis = n.attributes.getInt("axis", -1);
    if (axis < 0) axis += int64_t(rank);
    if (axis < 0 || axis >= int64_t(rank)) continue;
    // Whole bytes per element (int4 packs two a byte: not placed).
    uint64_t esize = 0;
    if (!tensorByteSize(yt.dtype, Shape{1}, &esize) || !tensorByteSize(yt.dtype, Shape{2}, &col0) ||
        col0 != 2 * esize || esize == 0)
      continue;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= yt.shape[size_t(d)];
    for (size_t d = size_t(axis) + 1; d < rank; ++d) inner *= yt.shape[d];
    const ViewSlot ys = slot[size_t(y)].root >= 0 ? slot[size_t(y)] : ViewSlot{y, 0, 0};
    // Rows: one (a contiguous block per input), or the last axis's (each
    // input a column slice, rows at the output's pitch); else not placed.
    const bool oneRow = outer == 1 && ys.pitch == 0;
    if (!oneRow && inner != 1) continue;
    const int64_t pitch = oneRow ? 0 : (ys.pitch ? ys.pitch : yt.shape[rank - 1]);
    if (!aligned(uint64_t(pitch) * esize)) continue;
    // Each input's byte offset in the output's first row.
    std::vector<uint64_t> at(n.inputs.size());
    uint64_t col = 0;
    bool sameType = true;
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      at[j] = ys.byteOffset + col;
      const int32_t x = n.inputs[j];
      if (x < 0 || g.tensors[size_t(x)].dtype != yt.dtype || g.tensors[size_t(x)].shape.size() != rank) {
        sameType = false;
        break;
      }
      col += uint64_t(g.tensors[size_t(x)].shape[size_t(axis)] * inner) * esize;
    }
    if (!sameType) continue;
    // An output not yet placed whose inputs all already lie, in order, in one
    // buffer (an earlier concat of a later one's first inputs): a view there.
    if (slot[size_t(y)].root < 0 && placeable(y)) {
      // Strided inputs: a last-axis concat (its rows theirs); dense ones: one row.
      const ViewSlot &first = slot[size_t(n.inputs[0])];
      bool prefix = first.root >= 0 && (first.pitch ? inner == 1 : outer == 1);
      for (size_t j = 0; prefix && j < n.inputs.size(); ++j) {
        const ViewSlot &xs = slot[size_t(n.inputs[j])];
        prefix = xs.root == first.root && xs.byteOffset == first.byteOffset + (at[j] - at[0]) &&
                 xs.pitch == first.pitch;
      }
      if (prefix) {
        slot[size_t(y)] = {first.root, first.byteOffset, first.pitch};
        hasMembers[size_t(first.root)] = true;
        continue;
      }
    }
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      const int32_t x = n.inputs[j];
      if (x == y || slot[size_t(x)].root >= 0 || !placeable(x) || !aligned(at[j]) ||
          std::count(n.inputs.begin(), n.inputs.end(), x) != 1)
        continue;
      if (hasMembers[size_t(x)]) continue;  // a buffer others were placed in already
      slot[size_t(x)] = {ys.root, at[j], oneRow ? 0 : pitch};
      hasMembers[size_t(ys.root)] = true;
    }
  }
  return slot;
}

// The plan with each placed tensor's bytes inside its root's: the root
// live over all of its members' lifetimes, the members planned no bytes of
// their own. Null where nothing was placed.
Status planConcatViews(const LoadedGraph &g, const std::vector<BufferRequest> &requests,
                       const std::vector<size_t> &requestTensor, const std::vector<int64_t> &requestOf,
                       std::shared_ptr<const ConcatViewPlan> *out) {
  out->reset();
  if (!g.dynamicDims.empty() || !g.subgraphs.empty()) return Status::ok();
  const std::vector<ViewSlot> slot = placeConcatInputs(g, requests, requestOf);
  size_t views = 0;
  for (const ViewSlot &v : slot) views += v.root >= 0;
  if (views == 0) return Status::ok();
  std::vector<BufferRequest> viewRequests(requests);
  for (size_t t = 0; t < slot.size(); ++t) {
    if (slot[t].root < 0) continue;
    BufferRequest &member = viewRequests[size_t(requestOf[t])];
    BufferRequest &root = viewRequests[size_t(requestOf[size_t(slot[t].root)])];
    root.firstUse = std::min(root.firstUse, member.firstUse);
    root.lastUse = std::max(root.lastUse, member.lastUse);
    member.bytes = 0;
    root.placedIn = -1;
  }
  // Members are never in place (placeable refuses them); nor is a root: its
  // bytes hold its members' while a node that takes it over would run.
  std::vector<bool> isRoot(slot.size(), false);
  for (const ViewSlot &v : slot)
    if (v.root >= 0) isRoot[size_t(v.root)] = true;
  for (BufferRequest &r : viewRequests)
    if (r.placedIn >= 0 && size_t(r.placedIn) < requests.size() && requestTensor[size_t(r.placedIn)] < slot.size() &&
        isRoot[requestTensor[size_t(r.placedIn)]])
      r.placedIn = -1;
  auto plan = std::make_shared<ConcatViewPlan>();
  ArenaPlan arena;
  WEBNN_RETURN_IF_ERROR(planArena(viewRequests, kArenaAlignment, &arena));
  const size_t numTensors = g.tensors.size();
  plan->arenaOffset.assign(numTensors, kNotInArena);
  plan->outputCopyOffset.assign(g.outputs.size(), kNotInArena);
  plan->rowPitch.assign(numTensors, 0);
  plan->arenaBytes = arena.arenaBytes;
  plan->views = views;
  for (size_t r = 0; r < viewRequests.size(); ++r) {
    const size_t t = requestTensor[r];
    if (t >= numTensors) plan->outputCopyOffset[t - numTensors] = arena.offsets[r];
    else plan->arenaOffset[t] = arena.offsets[r];
  }
  std::ostringstream text;
  text << "concat views (sessions running every node on the CPU): arena " << plan->arenaBytes << " bytes, " << views
       << " tensors inside another\n";
  for (size_t t = 0; t < numTensors; ++t) {
    if (slot[t].root < 0) continue;
    plan->arenaOffset[t] = plan->arenaOffset[size_t(slot[t].root)] + slot[t].byteOffset;
    plan->rowPitch[t] = slot[t].pitch;
    text << "  '" << g.tensors[t].name << "' " << shapeToString(g.tensors[t].shape) << " in '"
         << g.tensors[size_t(slot[t].root)].name << "' at byte " << slot[t].byteOffset;
    if (slot[t].pitch) text << ", rows " << slot[t].pitch << " elements apart";
    text << "\n";
  }
  plan->planText = text.str();
  *out = std::move(plan);
  return Status::ok();
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
  WEBNN_RETURN_IF_ERROR(planConcatViews(g, requests, requestTensor, requestOf, &p->concatViews));
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
    // (An absent operand, -1, where the op needs one: the loader leaves that
    // to the kernel factory, which refuses the node.)
    if (k < 0 || n.outputs[0] < 0 || n.inputs[size_t(k)] < 0) continue;
    const size_t in = size_t(n.inputs[size_t(k)]), out = size_t(n.outputs[0]);
    if (p->arenaOffset[in] != kNotInArena && p->arenaOffset[in] == p->arenaOffset[out] && g.tensors[out].byteSize)
      p->nodes[i].outputOverInput = p->outputOverInput[i] = int32_t(k);
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
                " tensors (" + std::to_string(naive) + " bytes without reuse, 64-byte aligned)\n" + text.str() +
                (p->concatViews ? p->concatViews->planText : "");
  *out = std::move(p);
  return Status::ok();
}

}  // namespace webnn::rt
