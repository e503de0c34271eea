// Partition: which backend runs each main-graph node (the artifact's
// placement or the caller's device, the default backend where a backend is
// missing or will not start), which adjacent nodes may be offered to their
// backend as one kernel, which runs of consecutive nodes a placed backend
// takes as one kernel (a partition), and the copies between host memory and
// a device backend's memory that the placement needs.
#include <algorithm>
#include <chrono>

#include "core/Executor.h"
#include "core/Log.h"
#include "core/MemoryPlanner.h"
#include "core/PlacementPlan.h"

namespace webnn::rt {

Status Executor::placeNodes(std::string_view device) {
  const LoadedGraph &g = graph_->graph;
  nodeSlot_.assign(g.nodes.size(), 0);
  bool any = false;
  std::vector<Backend *> unavailable;  // placed on, but its session would not start
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const std::string &want = device.empty() ? g.nodes[i].backend : std::string(device);
    if (want.empty() || isControlFlowOp(g.nodes[i].op)) continue;
    Backend *b = findBackend(want);
    for (Backend *c : backends())
      if (!b && c->deviceType() == want) b = c;
    if (!b) {
      placementNotes_.push_back(nodeLabel(i, graph_->nodes[i]) + ": placed on '" + want + "', runs on '" +
                                std::string(backend_->name()) + "': this runtime has no backend or device '" + want +
                                "' (" + backendsText() + ")");
      if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
      continue;
    }
    if (b == backend_) continue;
    if (std::find(unavailable.begin(), unavailable.end(), b) != unavailable.end()) {
      placementNotes_.push_back(nodeLabel(i, graph_->nodes[i]) + ": placed on '" + want + "', runs on '" +
                                std::string(backend_->name()) + "': the backend could not start");
      continue;
    }
    size_t k = 0;
    while (k < placed_.size() && placed_[k].backend != b) ++k;
    if (k == placed_.size()) {
      if (placed_.size() == 255) return unsupported("more than 255 backends placed");
      Placed pl;
      pl.backend = b;
      Status started = b->createSession(session_->numThreads(), &pl.session);
      if (!started.isOk()) {
        // A device the caller asked for is an error; a placement the
        // artifact carries (compiled for a machine with that device) falls
        // back to the default backend, as a node the backend refuses does.
        if (!device.empty()) return started;
        unavailable.push_back(b);
        placementNotes_.push_back(nodeLabel(i, graph_->nodes[i]) + ": placed on '" + want + "', runs on '" +
                                  std::string(backend_->name()) + "': " + started.message());
        if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
        continue;
      }
      pl.state = pl.session->kernelState();
      placed_.push_back(std::move(pl));
    }
    // A graph with dynamic dimensions lays out its device memory and copies
    // once, before any signature's kernels: a node the backend refuses at
    // its largest shapes stays on the default backend from the start (a
    // refusal for a later signature is an error, makeNodeKernel).
    std::string why;
    if (!g.dynamicDims.empty() && !b->supports(graph_->nodes[i], &why)) {
      placementNotes_.push_back(nodeLabel(i, graph_->nodes[i]) + ": placed on '" + want + "', runs on '" +
                                std::string(backend_->name()) + "': " + why);
      if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
      continue;
    }
    nodeSlot_[i] = uint8_t(k + 1);
    any = true;
  }
  if (!any) nodeSlot_.clear();  // every node on the default backend: no per-node lookups at run
  return Status::ok();
}

void Executor::chooseConstantStorage() {
  if (nodeSlot_.empty()) return;
  const LoadedGraph &g = graph_->graph;
  for (size_t k = 0; k < placed_.size(); ++k) {
    Placed &pl = placed_[k];
    if (pl.backend->hostAddressable()) continue;
    const uint8_t slot = uint8_t(k + 1);
    const std::vector<std::optional<DataType>> narrowed =
        narrowedConstants(g, nodes_, *pl.backend, [&](size_t i) { return nodeSlot_[i] == slot; });
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      if (!narrowed[t]) continue;
      if (pl.storedAs.empty()) pl.storedAs.resize(g.tensors.size());
      pl.storedAs[t] = std::make_unique<OperandDesc>(operands_[t]);
      pl.storedAs[t]->dtype = *narrowed[t];
      pl.storedAs[t]->constantData = nullptr;  // the host bytes are the artifact's type
    }
    if (pl.storedAs.empty()) continue;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (nodeSlot_[i] != slot) continue;
      const std::vector<int32_t> &ins = g.nodes[i].inputs;
      for (size_t j = 0; j < ins.size(); ++j) {
        if (ins[j] < 0 || !pl.storedAs[size_t(ins[j])]) continue;
        if (placedDescs_.empty()) placedDescs_.resize(g.nodes.size());
        if (!placedDescs_[i]) placedDescs_[i] = std::make_unique<NodeDesc>(nodes_[i]);
        placedDescs_[i]->inputs[j] = pl.storedAs[size_t(ins[j])].get();
      }
    }
  }
}

Status planDeviceArena(const LoadedGraph &g, const std::vector<bool> &touched, const std::vector<int64_t> &position,
                       const std::vector<bool> &inside, std::vector<uint64_t> *offsets, uint64_t *bytes) {
  const size_t numTensors = g.tensors.size(), numNodes = g.nodes.size();
  std::vector<int64_t> lastUse(numTensors, -1);
  for (size_t i = 0; i < numNodes; ++i) {
    std::vector<int32_t> reads(g.nodes[i].inputs);
    for (uint32_t s : g.nodes[i].subgraphs) collectSubgraphReads(g, s, &reads);
    for (int32_t t : reads)
      if (t >= 0) lastUse[size_t(t)] = std::max(lastUse[size_t(t)], position[i]);
  }
  for (uint32_t o : g.outputs) lastUse[o] = int64_t(numNodes);
  std::vector<BufferRequest> requests;
  std::vector<size_t> requestTensor;
  for (size_t t = 0; t < numTensors; ++t) {
    const LoadedTensor &lt = g.tensors[t];
    if (!touched[t] || (!inside.empty() && inside[t]) || lt.role != TensorRole::kIntermediate || lt.producer < 0 ||
        lt.scope >= 0)
      continue;
    const int64_t first = position[size_t(lt.producer)];
    requests.push_back({lt.byteSize, first, std::max(lastUse[t], first)});
    requestTensor.push_back(t);
  }
  ArenaPlan plan;
  WEBNN_RETURN_IF_ERROR(planArena(requests, kArenaAlignment, &plan));
  offsets->assign(numTensors, kNotInArena);
  for (size_t r = 0; r < requests.size(); ++r) (*offsets)[requestTensor[r]] = plan.offsets[r];
  *bytes = plan.arenaBytes;
  return Status::ok();
}

// Nodes inside a partition's group run at the group's last node; the values
// made and read inside a group get no memory.
Status Executor::planBackendArena(uint8_t slot, const std::vector<std::vector<int32_t>> &ins,
                                  const std::vector<std::vector<int32_t>> &outs, std::vector<uint64_t> *offsets,
                                  uint64_t *bytes) const {
  const LoadedGraph &g = graph_->graph;
  const size_t numTensors = g.tensors.size(), numNodes = g.nodes.size();
  std::vector<int64_t> position(numNodes);
  for (size_t i = 0; i < numNodes; ++i) position[i] = int64_t(i);
  std::vector<bool> inside(numTensors, false);
  if (partitions_)
    for (const Partition &part : partitions_->partitions)
      for (const std::vector<uint32_t> &group : part.groups) {
        const size_t last = part.first + group.back();
        for (uint32_t k : group) {
          position[part.first + k] = int64_t(last);
          if (part.first + k != last)
            for (int32_t t : g.nodes[part.first + k].outputs) inside[size_t(t)] = true;
        }
      }
  std::vector<bool> touched(numTensors, false);
  for (size_t i = 0; i < numNodes; ++i) {
    if (nodeSlot_[i] != slot) continue;
    for (int32_t t : ins[i])
      if (t >= 0) touched[size_t(t)] = true;
    for (int32_t t : outs[i]) touched[size_t(t)] = true;
  }
  return planDeviceArena(g, touched, position, inside, offsets, bytes);
}

// For each node on a backend whose memory is not the host's: its arena
// (planBackendArena), the constants and graph inputs its nodes read, and the
// copies: host -> backend before the first of its nodes that reads a tensor
// made elsewhere (once per run), backend -> host after a node whose output
// is read elsewhere or is a graph output.
Status Executor::prepareTransfers() {
  const LoadedGraph &g = graph_->graph;
  auto isDevice = [&](uint8_t slot) { return slot != 0 && !placed_[slot - 1].backend->hostAddressable(); };
  bool anyDevice = false;
  for (uint8_t s : nodeSlot_) anyDevice |= isDevice(s);
  if (!anyDevice) return Status::ok();
  const size_t numTensors = g.tensors.size(), numNodes = g.nodes.size();
  // What each kernel reads and writes (a pair: both nodes' inputs but the
  // intermediate, the second node's outputs).
  std::vector<std::vector<int32_t>> ins(numNodes), outs(numNodes);
  for (size_t i = 0; i < numNodes; ++i) {
    if (pairedAway(i)) continue;
    ins[i] = g.nodes[i].inputs;
    outs[i] = g.nodes[i].outputs;
    if (pairedAway(i + 1)) {
      for (int32_t t : g.nodes[i + 1].inputs)
        if (t != g.nodes[i].outputs[0]) ins[i].push_back(t);
      outs[i] = g.nodes[i + 1].outputs;
    }
  }
  // Slots that read each tensor; 0 stands for the host (also subgraphs and
  // graph outputs).
  std::vector<std::vector<uint8_t>> readers(numTensors);
  auto addReader = [&](int32_t t, uint8_t slot) {
    if (t < 0) return;
    uint8_t host = isDevice(slot) ? slot : 0;
    auto &r = readers[size_t(t)];
    if (std::find(r.begin(), r.end(), host) == r.end()) r.push_back(host);
  };
  for (size_t i = 0; i < numNodes; ++i) {
    for (int32_t t : ins[i]) addReader(t, nodeSlot_[i]);
    std::vector<int32_t> sub;
    for (uint32_t s : g.nodes[i].subgraphs) collectSubgraphReads(g, s, &sub);
    for (int32_t t : sub) addReader(t, 0);
  }
  for (uint32_t o : g.outputs) addReader(int32_t(o), 0);

  for (size_t k = 0; k < placed_.size(); ++k) {
    Placed &pl = placed_[k];
    if (pl.backend->hostAddressable()) continue;
    std::vector<uint64_t> offsets;
    uint64_t arenaBytes = 0;
    WEBNN_RETURN_IF_ERROR(planBackendArena(uint8_t(k + 1), ins, outs, &offsets, &arenaBytes));
    Status s = pl.backend->allocate(arenaBytes, &pl.arena);
    if (!s.isOk())
      return Status(s.code(), "backend '" + std::string(pl.backend->name()) + "': cannot allocate its " +
                                  std::to_string(arenaBytes) + "-byte arena: " + s.message());
    pl.tensors = tensors_;
    for (size_t t = 0; t < numTensors; ++t) {
      TensorBuffer &v = pl.tensors[t];
      v.data = nullptr, v.buffer = nullptr, v.offset = 0;
      if (offsets[t] != kNotInArena) v.buffer = pl.arena.get(), v.offset = offsets[t];
    }
  }
  before_.assign(numNodes, {});
  after_.assign(numNodes, {});
  std::vector<uint8_t> home(numTensors, 0);  // where each tensor is made: a device slot or 0
  std::vector<std::vector<bool>> sent(placed_.size() + 1, std::vector<bool>(numTensors, false));
  for (size_t i = 0; i < numNodes; ++i) {
    const uint8_t slot = nodeSlot_[i];
    if (!isDevice(slot)) {
      for (int32_t t : outs[i]) home[size_t(t)] = 0;
      continue;
    }
    Placed &pl = placed_[slot - 1];
    for (int32_t t : ins[i]) {
      if (t < 0) continue;
      const LoadedTensor &lt = g.tensors[size_t(t)];
      TensorBuffer &v = pl.tensors[size_t(t)];
      if (lt.role == TensorRole::kConstant) {
        if (!v.buffer) {  // uploaded once per session
          pl.owned.emplace_back();
          const OperandDesc *stored = pl.storedAs.empty() ? nullptr : pl.storedAs[size_t(t)].get();
          Status s = stored ? pl.backend->mapConstantAs(operands_[size_t(t)], stored->dtype, &pl.owned.back())
                            : pl.backend->mapConstants(lt.constantData, lt.byteSize, &pl.owned.back());
          if (stored) v.dtype = stored->dtype;
          if (!s.isOk())
            return Status(s.code(), "backend '" + std::string(pl.backend->name()) + "': constant '" + lt.name +
                                        "': " + s.message());
          v.buffer = pl.owned.back().get();
        }
        continue;
      }
      if (home[size_t(t)] == slot || sent[slot][size_t(t)]) continue;
      if (!v.buffer) {  // a graph input: a buffer of its own there
        pl.owned.emplace_back();
        Status s = pl.backend->allocate(lt.byteSize, &pl.owned.back());
        if (!s.isOk())
          return Status(s.code(), "backend '" + std::string(pl.backend->name()) + "': input '" + lt.name + "': " +
                                      s.message());
        v.buffer = pl.owned.back().get();
      }
      before_[i].push_back({uint32_t(t), slot, true});
      sent[slot][size_t(t)] = true;
    }
    for (int32_t t : outs[i]) {
      home[size_t(t)] = slot;
      const auto &r = readers[size_t(t)];
      if (std::any_of(r.begin(), r.end(), [&](uint8_t s) { return s != slot; }))
        after_[i].push_back({uint32_t(t), slot, false});
    }
  }
  for (size_t i = 0; i < numNodes; ++i) transfersPerRun_ += before_[i].size() + after_[i].size();
  placementFixed_ = true;
  return Status::ok();
}

Status Executor::runTransfer(const Transfer &x) {
  Placed &pl = placed_[x.slot - 1];
  const TensorBuffer &host = tensors_[x.tensor];
  const TensorBuffer &there = pl.tensors[x.tensor];
  const LoadedTensor &lt = graph_->graph.tensors[x.tensor];
  // This signature's bytes (a tensor with dynamic dimensions is planned at
  // its largest).
  uint64_t bytes = lt.byteSize;
  if (!lt.dims.empty()) tensorByteSize(lt.dtype, operands_[x.tensor].shape, &bytes);
  Status s = x.toBackend ? pl.backend->copyToBackend(host.data, there.buffer, there.offset, bytes)
                         : pl.backend->copyToHost(there.buffer, there.offset, host.data, bytes);
  if (s.isOk()) return s;
  return Status(s.code(), "copying tensor '" + lt.name + "' " + (x.toBackend ? "to" : "from") + " backend '" +
                              std::string(pl.backend->name()) + "': " + s.message());
}

void Executor::makePartitions() {
  const LoadedGraph &g = graph_->graph;
  if (nodeSlot_.empty()) return;
  for (auto &set : partitionSets_)
    if (set->sizes == sizes_) {
      partitions_ = set.get();
      return;
    }
  if (partitionSets_.size() == 2)
    partitionSets_.erase(partitionSets_.begin() + (partitionSets_[0].get() == partitions_ ? 1 : 0));
  partitionSets_.push_back(std::make_unique<PartitionSet>());
  PartitionSet &set = *partitionSets_.back();
  set.sizes = sizes_;
  set.at.assign(g.nodes.size(), -1);
  partitions_ = &set;
  auto eligible = [&](size_t i) {
    return nodeSlot_[i] != 0 && !isControlFlowOp(g.nodes[i].op) && !pairedAway(i) && !pairedAway(i + 1);
  };
  std::vector<int64_t> reads;  // countReads, once a backend is asked for groups
  for (size_t i = 0; i < g.nodes.size();) {
    size_t last = i;
    if (eligible(i))
      while (last + 1 < g.nodes.size() && eligible(last + 1) && nodeSlot_[last + 1] == nodeSlot_[i]) ++last;
    if (last == i) {
      ++i;
      continue;
    }
    Backend *b = placed_[nodeSlot_[i] - 1].backend;
    std::vector<const NodeDesc *> nodes;
    for (size_t k = i; k <= last; ++k) nodes.push_back(&placedDesc(k));
    Partition part;
    part.first = i, part.last = last;
    // Groups only while the device memory can still be planned for them.
    if (!placementFixed_ && !b->hostAddressable()) {
      if (reads.empty()) reads = countReads(g);
      part.groups = nodeGroups(*b, i, last, reads);
    }
    Status s = b->makePartitionKernel(nodes, part.groups, &part.kernel);
    if (!s.isOk() && !part.groups.empty()) {
      placementNotes_.push_back("nodes " + std::to_string(i) + " to " + std::to_string(last) + " on '" +
                                std::string(b->name()) + "' without grouped steps: " + s.message());
      if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
      part.groups.clear();
      s = b->makePartitionKernel(nodes, part.groups, &part.kernel);
    }
    if (!s.isOk()) {
      placementNotes_.push_back("nodes " + std::to_string(i) + " to " + std::to_string(last) + " on '" +
                                std::string(b->name()) + "' run one by one: " + s.message());
      if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
    } else if (part.kernel) {
      set.at[i] = int32_t(set.partitions.size());
      set.partitions.push_back(std::move(part));
    }
    i = last + 1;
  }
}

// The backend's groups for nodes first..last that keep the contract
// (Backend::groupPartitionNodes); a group that does not is dropped with a
// note, the partition's other groups kept.
std::vector<std::vector<uint32_t>> Executor::nodeGroups(const Backend &b, size_t first, size_t last,
                                                        const std::vector<int64_t> &reads) {
  const LoadedGraph &g = graph_->graph;
  const size_t n = last - first + 1;
  std::vector<const NodeDesc *> nodes;
  std::vector<int64_t> readsInside(g.tensors.size(), 0);
  for (size_t k = first; k <= last; ++k) {
    nodes.push_back(&placedDesc(k));
    for (int32_t t : g.nodes[k].inputs)
      if (t >= 0) ++readsInside[size_t(t)];
  }
  std::vector<bool> readOutside(n, false);
  for (size_t k = 0; k < n; ++k)
    for (int32_t t : g.nodes[first + k].outputs)
      if (reads[size_t(t)] > readsInside[size_t(t)]) readOutside[k] = true;
  std::vector<std::vector<uint32_t>> proposed, kept;
  b.groupPartitionNodes(nodes, readOutside, &proposed);
  std::vector<bool> taken(n, false);
  std::vector<int64_t> readsInGroup(g.tensors.size(), 0);
  for (std::vector<uint32_t> &group : proposed) {
    std::string why;
    bool ordered = group.size() >= 2;
    for (size_t j = 0; j < group.size() && ordered; ++j)
      ordered = group[j] < n && !taken[group[j]] && (j == 0 || group[j] > group[j - 1]);
    if (!ordered) why = "not two or more ascending indices of the partition's free nodes";
    if (why.empty()) {
      for (uint32_t k : group)
        for (int32_t t : g.nodes[first + k].inputs)
          if (t >= 0) ++readsInGroup[size_t(t)];
      for (size_t j = 0; j + 1 < group.size() && why.empty(); ++j)
        for (int32_t t : g.nodes[first + group[j]].outputs)
          if (reads[size_t(t)] != readsInGroup[size_t(t)]) {
            why = "tensor '" + g.tensors[size_t(t)].name + "' is read outside the group";
            break;
          }
      for (uint32_t k : group)
        for (int32_t t : g.nodes[first + k].inputs)
          if (t >= 0) readsInGroup[size_t(t)] = 0;
    }
    if (!why.empty()) {
      placementNotes_.push_back("nodes " + std::to_string(first) + " to " + std::to_string(last) + " on '" +
                                std::string(b.name()) + "': a proposed group of " + std::to_string(group.size()) +
                                " nodes is not run as one step: " + why);
      if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
      continue;
    }
    for (uint32_t k : group) taken[k] = true;
    kept.push_back(std::move(group));
  }
  return kept;
}

Status Executor::runPartition(Partition &p) {
  auto failed = [&](const Status &s) {
    return Status(s.code(), "partition of nodes " + std::to_string(p.first) + " to " + std::to_string(p.last) + " (" +
                                nodeLabel(p.first, nodes_[p.first]) + " ...): " + s.message());
  };
  if (!before_.empty())
    for (size_t i = p.first; i <= p.last; ++i)
      for (const Transfer &x : before_[i]) {
        Status s = runTransfer(x);
        if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
      }
  // The nodes' views, bound anew at every run (bindNodeIo may have changed
  // them); the vectors keep their capacity.
  p.inputs.clear();
  p.outputs.clear();
  for (size_t i = p.first; i <= p.last; ++i) {
    p.inputs.insert(p.inputs.end(), nodeInputs_[i].begin(), nodeInputs_[i].end());
    p.outputs.insert(p.outputs.end(), nodeOutputs_[i].begin(), nodeOutputs_[i].end());
  }
  KernelContext ctx{p.inputs.data(), p.inputs.size(), p.outputs.data(), p.outputs.size(),
                    placed_[nodeSlot_[p.first] - 1].state};
  Status s;
  if (!profiling_) {
    s = p.kernel->run(ctx);
  } else {  // the partition's time is its first node's
    auto t0 = std::chrono::steady_clock::now();
    s = p.kernel->run(ctx);
    nodeMs_[p.first] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  if (!s.isOk()) return failed(s);
  if (!after_.empty())
    for (size_t i = p.first; i <= p.last; ++i)
      for (const Transfer &x : after_[i]) {
        s = runTransfer(x);
        if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
      }
  return Status::ok();
}

const Backend &Executor::nodeBackend(size_t i) const {
  if (nodeSlot_.empty() || nodeSlot_[i] == 0) return *backend_;
  return *placed_[nodeSlot_[i] - 1].backend;
}


// A node whose only output only the next node reads, as its first input, on
// the same backend: the backend may run the two as one kernel (Kernel.h),
// for whichever shapes it accepts (KernelResolution.cpp asks per signature).
// Whether the two share a backend is checked then: a refused placement may
// still move a node to the default backend.
void Executor::findPairCandidates() {
  const LoadedGraph &g = graph_->graph;
  if (g.nodes.size() < 2) return;
  const std::vector<int64_t> reads = countReads(g);
  for (size_t i = 0; i + 1 < g.nodes.size(); ++i) {
    const LoadedNode &a = g.nodes[i], &b = g.nodes[i + 1];
    if (a.subgraphs.empty() && a.outputs.size() == 1 && reads[a.outputs[0]] == 1 && !b.inputs.empty() &&
        b.inputs[0] == int32_t(a.outputs[0])) {
      pairCandidate_.resize(g.nodes.size(), false);
      pairCache_.resize(g.nodes.size());
      pairCandidate_[i] = true;
    }
  }
}

}  // namespace webnn::rt
