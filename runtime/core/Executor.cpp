#include "core/Executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <sys/resource.h>
#include <system_error>
#include <thread>

#include "core/Log.h"
#include "core/MemoryPlanner.h"
#include "core/Limits.h"
#include "core/Prepack.h"

namespace webnn::rt {
namespace {

std::string nodeLabel(size_t index, const NodeDesc &n) {
  std::string s = "node " + std::to_string(index);
  if (!n.name.empty()) s += " '" + n.name + "'";
  return s + " (" + n.op + ")";
}

// Every tensor subgraph `s` (and the subgraphs nested in it) reads, plus what
// it yields: what must stay live until its owning node has run.
void collectSubgraphReads(const LoadedGraph &g, uint32_t s, std::vector<int32_t> *out) {
  const LoadedSubgraph &sub = g.subgraphs[s];
  for (const LoadedNode &n : sub.nodes) {
    out->insert(out->end(), n.inputs.begin(), n.inputs.end());
    for (uint32_t nested : n.subgraphs) collectSubgraphReads(g, nested, out);
  }
  out->insert(out->end(), sub.outputs.begin(), sub.outputs.end());
}

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

// Per tensor, how many reads the main graph's nodes (and their subgraphs)
// make of it, graph outputs counting as one more.
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

// Stands for the second node of a pair the first node's kernel runs (run()
// skips it; warm-up and prepacking see a kernel with nothing to do).
class PairedAwayKernel final : public Kernel {
 public:
  Status run(const KernelContext &) override { return Status::ok(); }
};

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

}  // namespace

namespace {

// The error for a node no backend of this runtime can run.
Status noKernel(const std::string &label, const NodeDesc &d, const Backend *asked) {
  if (!asked) return unsupported(label + ": this runtime was built without backends");
  std::string why;
  if (asked->supports(d, &why)) why = "no kernel for op '" + d.op + "'";
  return unsupported(label + ": backend '" + std::string(asked->name()) + "': " + why);
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
  for (size_t t = 0; t < numTensors; ++t) {
    const LoadedTensor &lt = g.tensors[t];
    if (lt.role != TensorRole::kIntermediate || lt.producer < 0 || lt.scope >= 0) continue;
    requests.push_back({lt.byteSize, lt.producer, std::max<int64_t>(lastUse[t], lt.producer)});
    requestTensor.push_back(t);
  }
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
         << dataTypeName(lt.dtype) << " " << shapeToString(lt.shape) << "\n";
  }
  size_t planned = requests.size();

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
    for (size_t t = 0; t < numTensors; ++t) {
      const LoadedTensor &lt = g.tensors[t];
      if (lt.role != TensorRole::kIntermediate || lt.scope != static_cast<int32_t>(s)) continue;
      subRequests.push_back({lt.byteSize, lt.producer, std::max<int64_t>(subLastUse[t], lt.producer)});
      subTensor.push_back(t);
    }
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
           << dataTypeName(g.tensors[t].dtype) << " " << shapeToString(g.tensors[t].shape) << "\n";
    }
    planned += subRequests.size();
  }
  p->planText = "arena " + std::to_string(p->arenaBytes) + " bytes for " + std::to_string(planned) +
                " tensors (" + std::to_string(naive) + " bytes without reuse, 64-byte aligned)\n" + text.str();
  *out = std::move(p);
  return Status::ok();
}

Executor::~Executor() {
  stopWarmUp_.store(true, std::memory_order_relaxed);
  finishWarmUp();
}

// One thread builds everything before returning. With more, the OpenMP team
// starts now and a low-priority helper claims kernels in node order while the
// caller goes on to the first run, which claims the next ones too whenever
// the node it is at is not built yet (a kernel claimed by the other is waited
// for at its lock). A helper the system refuses leaves it all to the run.
void Executor::startWarmUp(std::vector<Kernel *> kernels) {
  const int threads = session_->numThreads();
  if (threads == 1) {
    for (Kernel *k : kernels) k->warmUp(threads);
    return;
  }
  session_->startWorkers();
  warmUpKernels_ = std::move(kernels);
  warmedUp_.reset(new std::atomic<bool>[warmUpKernels_.size()]());
  warmUpPending_ = true;
  try {
    warmUpThread_ = std::thread([this] {
      // Below the run's own threads: a core is lent to JIT only while they
      // leave it idle (at 2 threads, MobileNetV2's slowest start-ups of 25
      // went 22-48 ms -> 14-18, docs/PERFORMANCE.md).
      setpriority(PRIO_PROCESS, 0, 19);  // this thread only (Linux)
      while (!stopWarmUp_.load(std::memory_order_relaxed) && warmUpNext()) {
      }
    });
  } catch (const std::system_error &) {
  }
}

bool Executor::warmUpNext() {
  size_t j = nextWarmUp_.fetch_add(1, std::memory_order_relaxed);
  if (j >= warmUpKernels_.size()) return false;
  warmUpKernels_[j]->warmUp(session_->numThreads());
  warmedUp_[j].store(true, std::memory_order_release);
  return true;
}

void Executor::finishWarmUp() {
  if (warmUpThread_.joinable()) warmUpThread_.join();
  warmUpPending_ = false;
}

Status Executor::create(std::shared_ptr<const PreparedGraph> graph, int numThreads, std::unique_ptr<Executor> *out,
                        bool warmUp, std::string_view device) {
  std::unique_ptr<Executor> e(new Executor());
  e->graph_ = std::move(graph);
  const PreparedGraph &p = *e->graph_;
  const LoadedGraph &g = p.graph;

  // The default backend runs what no placement moves elsewhere, control flow
  // and dynamic graphs (docs/BACKENDS.md).
  e->backend_ = defaultBackend();
  if (!e->backend_) {
    for (size_t i = 0; i < p.nodes.size(); ++i)
      if (!isControlFlowOp(p.nodes[i].op)) return noKernel(nodeLabel(i, p.nodes[i]), p.nodes[i], nullptr);
    return unsupported("this runtime was built without backends");
  }
  Status s = e->backend_->allocate(p.arenaBytes, &e->arenaBuffer_);
  if (!s.isOk())
    return Status(s.code(), "cannot allocate the " + std::to_string(p.arenaBytes) +
                                "-byte arena for intermediate tensors: " + s.message());
  e->arena_ = static_cast<uint8_t *>(e->arenaBuffer_->hostPointer());
  // The executor binds, copies and runs control flow through host addresses.
  if (!e->arena_)
    return unsupported("backend '" + std::string(e->backend_->name()) + "': its memory is not host-addressable");
  WEBNN_RETURN_IF_ERROR(e->backend_->createSession(numThreads, &e->session_));
  e->backendState_ = e->session_->kernelState();
  const MappedFile *mappings[2] = {&g.artifact, &g.weights};
  for (int m = 0; m < 2; ++m)
    if (mappings[m]->data())
      WEBNN_RETURN_IF_ERROR(e->backend_->mapConstants(mappings[m]->data(), mappings[m]->size(), &e->constantBuffers_[m]));

  e->active_.assign(p.nodes.size(), nullptr);
  if (e->dynamic()) {
    // Kernels are built at the first run, for the shapes it binds.
    e->operands_ = p.operands;
    e->nodes_ = p.nodes;
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      for (auto &in : e->nodes_[i].inputs)
        if (in) in = &e->operands_[size_t(in - p.operands.data())];
      for (auto &o : e->nodes_[i].outputs) o = &e->operands_[size_t(o - p.operands.data())];
      if (!e->backend_->hasOp(p.nodes[i].op)) return noKernel(nodeLabel(i, p.nodes[i]), p.nodes[i], e->backend_);
    }
    e->kernelCache_.resize(p.nodes.size());
    e->inputShapes_.resize(g.inputs.size());
  } else {
    WEBNN_RETURN_IF_ERROR(e->placeNodes(device));
    // Control-flow nodes get the executor's own kernels (they run subgraphs).
    // A node placed on another backend that refuses it runs on the default
    // one, the reason noted (and logged at info level).
    auto build = [&](const NodeDesc &d, const LoadedNode &ln, const std::string &label, std::unique_ptr<Kernel> *kernel,
                     uint8_t *slot) -> Status {
      if (isControlFlowOp(d.op)) {
        Status s = makeControlFlowKernel(g, ln, e.get(), kernel);
        return s.isOk() ? s : Status(s.code(), label + ": " + s.message());
      }
      if (slot && *slot != 0) {
        Backend *b = e->placed_[*slot - 1].backend;
        std::string why;
        if (b->supports(d, &why)) {
          Status s = b->makeKernel(d, kernel);
          if (s.isOk() && *kernel) return s;
          why = s.isOk() ? "it made no kernel" : s.message();
          kernel->reset();
        }
        e->placementNotes_.push_back(label + ": placed on '" + std::string(b->name()) + "', runs on '" +
                                     std::string(e->backend_->name()) + "': " + why);
        if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, e->placementNotes_.back());
        *slot = 0;
      }
      if (!e->backend_->hasOp(d.op)) return noKernel(label, d, e->backend_);
      Status s = e->backend_->makeKernel(d, kernel);
      if (!s.isOk()) return Status(s.code(), label + ": " + s.message());
      if (!*kernel) return Status(StatusCode::kInternal, label + ": kernel factory returned no kernel");
      return Status::ok();
    };
    e->kernels_.resize(p.nodes.size());
    const std::vector<int64_t> reads = countReads(g);
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      // A node whose only output only the next node reads, as its first
      // input: the backend may run the two as one kernel (Kernel.h).
      const LoadedNode &a = g.nodes[i];
      const uint8_t slot = e->nodeSlot_.empty() ? 0 : e->nodeSlot_[i];
      if (i + 1 < p.nodes.size() && a.subgraphs.empty() && a.outputs.size() == 1 && reads[a.outputs[0]] == 1 &&
          !g.nodes[i + 1].inputs.empty() && g.nodes[i + 1].inputs[0] == int32_t(a.outputs[0]) &&
          (e->nodeSlot_.empty() || e->nodeSlot_[i + 1] == slot)) {
        std::unique_ptr<Kernel> pair;
        Backend *b = slot == 0 ? e->backend_ : e->placed_[slot - 1].backend;
        Status s = b->makeKernelPair(p.nodes[i], p.nodes[i + 1], &pair);
        if (!s.isOk()) return Status(s.code(), nodeLabel(i, p.nodes[i]) + ": " + s.message());
        if (pair) {
          e->kernels_[i] = std::move(pair);
          e->kernels_[i + 1] = std::make_unique<PairedAwayKernel>();
          e->active_[i] = e->kernels_[i].get();
          e->active_[i + 1] = e->kernels_[i + 1].get();
          e->pairedAway_.resize(p.nodes.size(), false);
          e->pairedAway_[i + 1] = true;
          ++i;
          continue;
        }
      }
      WEBNN_RETURN_IF_ERROR(build(p.nodes[i], g.nodes[i], nodeLabel(i, p.nodes[i]), &e->kernels_[i],
                                  e->nodeSlot_.empty() ? nullptr : &e->nodeSlot_[i]));
      e->active_[i] = e->kernels_[i].get();
    }
    e->subKernels_.resize(p.subgraphs.size());
    for (size_t s = 0; s < p.subgraphs.size(); ++s) {
      const std::vector<NodeDesc> &nodes = p.subgraphs[s].nodes;
      e->subKernels_[s].resize(nodes.size());
      for (size_t i = 0; i < nodes.size(); ++i)
        WEBNN_RETURN_IF_ERROR(build(nodes[i], g.subgraphs[s].nodes[i],
                                    nodeLabel(i, nodes[i]) + " of subgraph " + std::to_string(s), &e->subKernels_[s][i],
                                    nullptr));
    }
    if (warmUp) {
      std::vector<Kernel *> all(e->active_);
      for (const auto &sub : e->subKernels_)
        for (const auto &k : sub) all.push_back(k.get());
      e->startWarmUp(std::move(all));
    }
  }

  const std::vector<OperandDesc> &operands = e->dynamic() ? e->operands_ : p.operands;
  e->tensors_.resize(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    TensorBuffer &b = e->tensors_[t];
    b.dtype = g.tensors[t].dtype;
    b.shape = &operands[t].shape;
    if (g.tensors[t].role == TensorRole::kConstant) {
      b.data = const_cast<uint8_t *>(g.tensors[t].constantData);  // kernels only read inputs
      for (int m = 0; m < 2; ++m) {
        const uint8_t *base = mappings[m]->data();
        if (base && b.data >= base && static_cast<uint8_t *>(b.data) < base + mappings[m]->size())
          b.buffer = e->constantBuffers_[m].get(), b.offset = uint64_t(static_cast<uint8_t *>(b.data) - base);
      }
    }
    else if (p.arenaOffset[t] != kNotInArena)
      b.data = e->arena_ + p.arenaOffset[t], b.buffer = e->arenaBuffer_.get(), b.offset = p.arenaOffset[t];
    else
      b.data = nullptr;  // graph input, bound by setInput
  }
  WEBNN_RETURN_IF_ERROR(e->prepareTransfers());
  // Each node sees its tensors in its backend's memory.
  e->nodeInputs_.resize(g.nodes.size());
  e->nodeOutputs_.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const uint8_t slot = e->nodeSlot_.empty() ? 0 : e->nodeSlot_[i];
    std::vector<TensorBuffer> &view =
        slot == 0 || e->placed_[slot - 1].tensors.empty() ? e->tensors_ : e->placed_[slot - 1].tensors;
    for (int32_t in : g.nodes[i].inputs) e->nodeInputs_[i].push_back(in < 0 ? nullptr : &view[in]);
    for (int32_t o : g.nodes[i].outputs) e->nodeOutputs_[i].push_back(&view[o]);
  }
  for (size_t i = 0; i + 1 < e->pairedAway_.size(); ++i) {
    if (!e->pairedAway_[i + 1]) continue;  // the pair's kernel: both nodes' inputs, the second's outputs
    e->nodeInputs_[i].insert(e->nodeInputs_[i].end(), e->nodeInputs_[i + 1].begin(), e->nodeInputs_[i + 1].end());
    e->nodeOutputs_[i] = e->nodeOutputs_[i + 1];
  }
  e->subInputs_.resize(g.subgraphs.size());
  e->subOutputs_.resize(g.subgraphs.size());
  for (size_t s = 0; s < g.subgraphs.size(); ++s) {
    for (const LoadedNode &n : g.subgraphs[s].nodes) {
      std::vector<const TensorBuffer *> ins;
      std::vector<TensorBuffer *> outs;
      for (int32_t in : n.inputs) ins.push_back(in < 0 ? nullptr : &e->tensors_[in]);
      for (int32_t o : n.outputs) outs.push_back(&e->tensors_[o]);
      e->subInputs_[s].push_back(std::move(ins));
      e->subOutputs_[s].push_back(std::move(outs));
    }
  }
  e->runShapes_.resize(g.outputs.size());
  e->hasRunShape_.assign(g.outputs.size(), false);
  e->inputStaging_.resize(g.inputs.size());
  e->inputBound_.assign(g.inputs.size(), false);
  e->inputInPlace_.assign(g.inputs.size(), false);
  e->inPlaceInput_.assign(g.outputs.size(), -1);
  *out = std::move(e);
  return Status::ok();
}

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
    nodeSlot_[i] = uint8_t(k + 1);
    any = true;
  }
  if (!any) nodeSlot_.clear();  // every node on the default backend: no per-node lookups at run
  return Status::ok();
}

// For each node on a backend whose memory is not the host's: its arena (the
// host arena's plan), the constants and graph inputs its nodes read, and the
// copies: host -> backend before the first of its nodes that reads a tensor
// made elsewhere (once per run), backend -> host after a node whose output
// is read elsewhere or is a graph output.
Status Executor::prepareTransfers() {
  const LoadedGraph &g = graph_->graph;
  const PreparedGraph &p = *graph_;
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
    Status s = pl.backend->allocate(p.arenaBytes, &pl.arena);
    if (!s.isOk())
      return Status(s.code(), "backend '" + std::string(pl.backend->name()) + "': cannot allocate its " +
                                  std::to_string(p.arenaBytes) + "-byte arena: " + s.message());
    pl.tensors = tensors_;
    for (size_t t = 0; t < numTensors; ++t) {
      TensorBuffer &v = pl.tensors[t];
      v.data = nullptr, v.buffer = nullptr, v.offset = 0;
      if (p.arenaOffset[t] != kNotInArena) v.buffer = pl.arena.get(), v.offset = p.arenaOffset[t];
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
          Status s = pl.backend->mapConstants(lt.constantData, lt.byteSize, &pl.owned.back());
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
  return Status::ok();
}

Status Executor::runTransfer(const Transfer &x) {
  Placed &pl = placed_[x.slot - 1];
  const TensorBuffer &host = tensors_[x.tensor];
  const TensorBuffer &there = pl.tensors[x.tensor];
  const LoadedTensor &lt = graph_->graph.tensors[x.tensor];
  Status s = x.toBackend ? pl.backend->copyToBackend(host.data, there.buffer, there.offset, lt.byteSize)
                         : pl.backend->copyToHost(there.buffer, there.offset, host.data, lt.byteSize);
  if (s.isOk()) return s;
  return Status(s.code(), "copying tensor '" + lt.name + "' " + (x.toBackend ? "to" : "from") + " backend '" +
                              std::string(pl.backend->name()) + "': " + s.message());
}

const Backend &Executor::nodeBackend(size_t i) const {
  if (nodeSlot_.empty() || nodeSlot_[i] == 0) return *backend_;
  return *placed_[nodeSlot_[i] - 1].backend;
}

Status Executor::packConstants(std::vector<NodePackedBytes> *out) {
  if (dynamic()) return invalidArgument("prepacking needs static shapes");
  for (size_t i = 0; i < kernels_.size(); ++i) {
    std::vector<PackedBytes> packed;
    Status s = kernels_[i]->packConstants(numThreads(), &packed);
    if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
    for (PackedBytes &p : packed) out->push_back({uint32_t(i), std::move(p)});
  }
  return Status::ok();
}

Status Executor::setInput(size_t index, const void *data, uint64_t bytes, bool copy, const Shape *shape) {
  const LoadedGraph &g = graph_->graph;
  if (index >= g.inputs.size()) return invalidArgument("input index " + std::to_string(index) + " out of range");
  const LoadedTensor &t = g.tensors[g.inputs[index]];
  uint64_t expected = t.byteSize;
  if (!t.dims.empty()) {
    // Checked against the other inputs at run(); here only what this one fixes.
    if (!shape)
      return invalidArgument("input '" + t.name + "' has dynamic dimensions; give its shape with its data");
    if (shape->size() != t.dims.size())
      return invalidArgument("input '" + t.name + "': expected rank " + std::to_string(t.dims.size()) + ", got shape " +
                             shapeToString(*shape));
    for (size_t d = 0; d < shape->size(); ++d) {
      const DimExpr &e = t.dims[d];
      if ((*shape)[d] < 0 || (*shape)[d] > t.shape[d] || (e.isStatic() && (*shape)[d] != e.offset))
        return invalidArgument("input '" + t.name + "': shape " + shapeToString(*shape) + " does not fit " +
                               shapeToString(t.shape) + " (dimension " + std::to_string(d) +
                               (e.isStatic() ? " is static" : " '" + e.spelling + "' is at most " +
                                                                   std::to_string(t.shape[d])) + ")");
    }
    if (!tensorByteSize(t.dtype, *shape, &expected)) return invalidArgument("input '" + t.name + "': shape overflows");
  } else if (shape && *shape != t.shape) {
    return invalidArgument("input '" + t.name + "': expected shape " + shapeToString(t.shape) + ", got " +
                           shapeToString(*shape));
  }
  if (bytes != expected)
    return invalidArgument("input '" + t.name + "': expected " + std::to_string(expected) + " bytes (" +
                           std::string(dataTypeName(t.dtype)) + " " +
                           shapeToString(t.dims.empty() ? t.shape : *shape) + "), got " + std::to_string(bytes));
  if (!data && bytes) return invalidArgument("input '" + t.name + "': null data");
  TensorBuffer &b = tensors_[g.inputs[index]];
  if (!copy && data && reinterpret_cast<uintptr_t>(data) % kArenaAlignment == 0) {
    b.data = const_cast<void *>(data);  // kernels only read inputs (but see bindOutputInPlace)
    b.buffer = nullptr, b.offset = 0;
    inputInPlace_[index] = true;
  } else {
    inputInPlace_[index] = false;
    auto &staging = inputStaging_[index];
    if (!staging) {
      Status s = backend_->allocate(t.byteSize, &staging);  // the maximum, for every later shape
      if (!s.isOk()) return Status(s.code(), "input '" + t.name + "': cannot allocate staging buffer: " + s.message());
    }
    if (bytes) std::memcpy(staging->hostPointer(), data, bytes);
    b.data = staging->hostPointer(), b.buffer = staging.get(), b.offset = 0;
  }
  if (!t.dims.empty()) inputShapes_[index] = *shape;
  inputBound_[index] = true;
  return Status::ok();
}

Status Executor::run() {
  const LoadedGraph &g = graph_->graph;
  for (size_t k = 0; k < g.inputs.size(); ++k)
    if (!inputBound_[k]) return invalidArgument("input '" + g.tensors[g.inputs[k]].name + "' was not set");
  if (dynamic()) WEBNN_RETURN_IF_ERROR(resolveShapes());
  WEBNN_RETURN_IF_ERROR(applyInPlace());
  cancelled_.store(false, std::memory_order_relaxed);
  loopIterations_ = 0;
  size_t i = 0;
  // Kernels report failures as their Status. A kernel that still grows a
  // std::vector on its first run may throw std::bad_alloc; that becomes the
  // node's error too, so no exception leaves run() (the C++ API's promise).
  // A try costs nothing until something throws.
  try {
    for (; i < active_.size(); ++i) {
      if (!pairedAway_.empty() && pairedAway_[i]) continue;  // the node before ran it
      if (cancelled_.load(std::memory_order_relaxed)) {
        for (Placed &pl : placed_) (void)pl.session->synchronize();  // no device work outlives the run
        return Status(StatusCode::kCancelled,
                      "run cancelled at " + nodeLabel(i, dynamic() ? nodes_[i] : graph_->nodes[i]));
      }
      const uint8_t slot = nodeSlot_.empty() ? 0 : nodeSlot_[i];
      KernelContext ctx{nodeInputs_[i].data(), nodeInputs_[i].size(), nodeOutputs_[i].data(), nodeOutputs_[i].size(),
                        slot == 0 ? backendState_ : placed_[slot - 1].state};
      if (!before_.empty())
        for (const Transfer &x : before_[i]) {
          Status s = runTransfer(x);
          if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
        }
      if (warmUpPending_)  // the main graph's kernels come first in warmUpKernels_
        while (!warmedUp_[i].load(std::memory_order_acquire) && warmUpNext()) {
        }
      Status s;
      if (!profiling_) {
        s = active_[i]->run(ctx);
      } else {
        auto t0 = std::chrono::steady_clock::now();
        s = active_[i]->run(ctx);
        nodeMs_[i] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      }
      if (!s.isOk()) return Status(s.code(), nodeLabel(i, dynamic() ? nodes_[i] : graph_->nodes[i]) + ": " + s.message());
      if (!after_.empty())
        for (const Transfer &x : after_[i]) {
          s = runTransfer(x);
          if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
        }
    }
    for (Placed &pl : placed_) WEBNN_RETURN_IF_ERROR(pl.session->synchronize());
  } catch (const std::bad_alloc &) {
    return Status(StatusCode::kOutOfMemory, nodeLabel(i, dynamic() ? nodes_[i] : graph_->nodes[i]) + ": out of memory");
  }
  if (profiling_) ++profiledRuns_;
  finishWarmUp();
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    uint64_t off = graph_->outputCopyOffset[k];
    if (off == kNotInArena) continue;
    if (uint64_t bytes = outputBytes(k)) std::memcpy(arena_ + off, tensors_[g.outputs[k]].data, bytes);
  }
  return Status::ok();
}

Status Executor::resolveShapes() {
  const LoadedGraph &g = graph_->graph;
  std::vector<std::string> names;
  std::vector<const TensorDims *> dims;
  for (uint32_t idx : g.inputs) {
    names.push_back(g.tensors[idx].name);
    dims.push_back(g.tensors[idx].dims.empty() ? nullptr : &g.tensors[idx].dims);
  }
  std::vector<Shape> shapes = inputShapes_;
  for (size_t k = 0; k < shapes.size(); ++k)
    if (!dims[k]) shapes[k] = g.tensors[g.inputs[k]].shape;
  std::vector<int64_t> sizes;
  WEBNN_RETURN_IF_ERROR(bindDynamicDimensions(g.dynamicDims, names, dims, shapes, &sizes));
  if (sizes == sizes_) return Status::ok();
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const TensorDims &td = g.tensors[t].dims;
    for (size_t d = 0; d < td.size(); ++d) {
      int64_t v = td[d].evaluate(sizes);
      if (v < 0)
        return invalidArgument("tensor '" + g.tensors[t].name + "' dimension '" + td[d].spelling + "' is " +
                               std::to_string(v) + " with " + dynamicSizesText(g.dynamicDims, sizes));
      operands_[t].shape[d] = v;
    }
    int64_t count = 0;
    if (!td.empty() && elementCount(operands_[t].shape, &count) && uint64_t(count) > maxTensorElements_)
      return limitExceeded(Limit::kTensorElements,
                           "tensor '" + g.tensors[t].name + "' of shape " + shapeToString(operands_[t].shape) +
                               " (with " + dynamicSizesText(g.dynamicDims, sizes) + "): its element count",
                           uint64_t(count), maxTensorElements_);
  }
  // An output computed in place over an input has that input's shape (for
  // groupQueryAttention, ORT's max(past, total) present length).
  for (size_t k = 0; k < g.outputs.size(); ++k)
    if (inPlaceInput_[k] >= 0) operands_[g.outputs[k]].shape = operands_[g.inputs[size_t(inPlaceInput_[k])]].shape;
  // Until every kernel is built, no sizes count as resolved: a failure here
  // must not leave a later run with the same sizes a null kernel.
  sizes_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeDesc &d = nodes_[i];
    std::vector<Shape> signature;
    for (const OperandDesc *in : d.inputs) signature.push_back(in ? in->shape : Shape{-1});
    for (const OperandDesc *o : d.outputs) signature.push_back(o->shape);
    std::vector<CachedKernel> &cache = kernelCache_[i];
    auto hit = std::find_if(cache.begin(), cache.end(), [&](const CachedKernel &c) { return c.signature == signature; });
    if (hit != cache.end()) {
      active_[i] = hit->kernel.get();
      continue;
    }
    std::unique_ptr<Kernel> kernel;
    Status s = backend_->makeKernel(d, &kernel);
    if (!s.isOk())
      return Status(s.code(), nodeLabel(i, d) + " with " + dynamicSizesText(g.dynamicDims, sizes) + ": " + s.message());
    if (!kernel) return Status(StatusCode::kInternal, nodeLabel(i, d) + ": kernel factory returned no kernel");
    if (cache.size() == 2) cache.erase(cache.begin() + (cache[0].kernel.get() == active_[i] ? 1 : 0));
    cache.push_back({std::move(signature), std::move(kernel)});
    active_[i] = cache.back().kernel.get();
  }
  sizes_ = sizes;
  return Status::ok();
}

Status Executor::runSubgraph(uint32_t index) {
  std::vector<std::unique_ptr<Kernel>> &kernels = subKernels_[index];
  if (kernels.empty() && cancelled_.load(std::memory_order_relaxed))
    return Status(StatusCode::kCancelled, "run cancelled in subgraph " + std::to_string(index));
  for (size_t i = 0; i < kernels.size(); ++i) {
    // Checked here too, so a loop with a huge trip count stops within one
    // iteration; the owning node's label is added by run().
    if (cancelled_.load(std::memory_order_relaxed))
      return Status(StatusCode::kCancelled, "run cancelled at " + nodeLabel(i, graph_->subgraphs[index].nodes[i]) +
                                                " of subgraph " + std::to_string(index));
    KernelContext ctx{subInputs_[index][i].data(), subInputs_[index][i].size(), subOutputs_[index][i].data(),
                      subOutputs_[index][i].size(), backendState_};
    Status s = kernels[i]->run(ctx);
    if (!s.isOk())
      return Status(s.code(), nodeLabel(i, graph_->subgraphs[index].nodes[i]) + " of subgraph " +
                                  std::to_string(index) + ": " + s.message());
  }
  return Status::ok();
}

Status Executor::countLoopIteration() {
  if (++loopIterations_ <= maxLoopIterations_) return Status::ok();
  return limitExceeded(Limit::kLoopIterations, "the number of loop iterations in this run", loopIterations_,
                       maxLoopIterations_);
}

void Executor::setRunRows(uint32_t tensor, int64_t rows) {
  const std::vector<uint32_t> &outputs = graph_->graph.outputs;
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k] != tensor) continue;
    runShapes_[k] = graph_->graph.tensors[tensor].shape;
    runShapes_[k][0] = rows;
    hasRunShape_[k] = true;
  }
}

void Executor::setProfiling(bool on) {
  profiling_ = on;
  nodeMs_.assign(active_.size(), 0.0);
  profiledRuns_ = 0;
}

const Shape &Executor::outputShape(size_t index) const {
  if (hasRunShape_[index]) return runShapes_[index];
  uint32_t t = graph_->graph.outputs[index];
  return dynamic() ? operands_[t].shape : graph_->operands[t].shape;
}

uint64_t Executor::outputBytes(size_t index) const {
  const LoadedTensor &t = graph_->graph.tensors[graph_->graph.outputs[index]];
  if (!dynamic() && !hasRunShape_[index]) return t.byteSize;
  uint64_t bytes = 0;
  tensorByteSize(t.dtype, outputShape(index), &bytes);
  return bytes;
}

Status Executor::bindOutput(size_t index, void *data, uint64_t capacity) {
  const LoadedGraph &g = graph_->graph;
  if (index >= g.outputs.size()) return invalidArgument("output index " + std::to_string(index) + " out of range");
  const uint32_t t = g.outputs[index];
  const LoadedTensor &lt = g.tensors[t];
  if (graph_->outputCopyOffset[index] != kNotInArena || graph_->arenaOffset[t] == kNotInArena)
    return invalidArgument("output '" + lt.name + "' is not computed by a node and cannot be bound");
  if (inPlaceInput_[index] >= 0) {
    inPlaceInput_[index] = -1;
    sizes_.clear();  // the output's shape is its own again
  }
  if (!data) {
    tensors_[t].data = arena_ + graph_->arenaOffset[t];
    tensors_[t].buffer = arenaBuffer_.get(), tensors_[t].offset = graph_->arenaOffset[t];
    return Status::ok();
  }
  if (reinterpret_cast<uintptr_t>(data) % kArenaAlignment != 0)
    return invalidArgument("output '" + lt.name + "': a bound buffer must be 64-byte aligned");
  if (capacity < lt.byteSize)
    return invalidArgument("output '" + lt.name + "': a bound buffer needs " + std::to_string(lt.byteSize) +
                           " bytes (its maximum shape " + shapeToString(lt.shape) + "), got " + std::to_string(capacity));
  tensors_[t].data = data, tensors_[t].buffer = nullptr, tensors_[t].offset = 0;
  return Status::ok();
}

Status Executor::bindOutputInPlace(size_t output, size_t input) {
  const LoadedGraph &g = graph_->graph;
  if (output >= g.outputs.size()) return invalidArgument("output index " + std::to_string(output) + " out of range");
  if (input >= g.inputs.size()) return invalidArgument("input index " + std::to_string(input) + " out of range");
  const uint32_t ot = g.outputs[output], it = g.inputs[input];
  const LoadedTensor &o = g.tensors[ot], &in = g.tensors[it];
  auto refuse = [&](const std::string &why) {
    return invalidArgument("output '" + o.name + "' cannot be computed in place over input '" + in.name + "': " + why);
  };
  if (graph_->outputCopyOffset[output] != kNotInArena || o.role != TensorRole::kIntermediate || o.producer < 0 ||
      o.scope != -1)
    return refuse("it is not computed by a node of the main graph");
  if (std::find(g.outputs.begin(), g.outputs.end(), it) != g.outputs.end()) return refuse("the input is also an output");
  if (o.dtype != in.dtype || o.shape.size() != in.shape.size())
    return refuse("their types differ (" + std::string(dataTypeName(o.dtype)) + " " + shapeToString(o.shape) + " vs " +
                  std::string(dataTypeName(in.dtype)) + " " + shapeToString(in.shape) + ")");
  if (!dynamic() && o.shape != in.shape)
    return refuse("their shapes differ (" + shapeToString(o.shape) + " vs " + shapeToString(in.shape) + ")");
  if (!nodeSlot_.empty() && nodeSlot_[size_t(o.producer)] != 0 && !nodeBackend(size_t(o.producer)).hostAddressable())
    return refuse("its node runs on backend '" + std::string(nodeBackend(size_t(o.producer)).name()) +
                  "', whose memory is not the host's");
  // The producer must be the input's only reader (a later reader would see
  // the output's values), and nothing may read the output (its shape is the
  // input's, not the one the graph derived).
  bool producerReads = false;
  auto scan = [&](const std::vector<LoadedNode> &nodes, bool main) -> Status {
    for (size_t n = 0; n < nodes.size(); ++n)
      for (int32_t x : nodes[n].inputs) {
        if (x == int32_t(ot)) return refuse("node '" + nodes[n].name + "' reads the output");
        if (x != int32_t(it)) continue;
        if (!main || int32_t(n) != o.producer) return refuse("node '" + nodes[n].name + "' also reads the input");
        producerReads = true;
      }
    return Status::ok();
  };
  WEBNN_RETURN_IF_ERROR(scan(g.nodes, true));
  for (const LoadedSubgraph &sg : g.subgraphs) WEBNN_RETURN_IF_ERROR(scan(sg.nodes, false));
  if (!producerReads) return refuse("its node does not read the input");
  inPlaceInput_[output] = int64_t(input);
  sizes_.clear();  // re-derive shapes and kernels at the next run
  return Status::ok();
}

Status Executor::applyInPlace() {
  const LoadedGraph &g = graph_->graph;
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (inPlaceInput_[k] < 0) continue;
    const size_t input = size_t(inPlaceInput_[k]);
    const uint32_t ot = g.outputs[k], it = g.inputs[input];
    // Every decode step passes here: the message is built only on failure.
    auto refuse = [&](const std::string &why) {
      return invalidArgument("output '" + g.tensors[ot].name + "' in place over input '" + g.tensors[it].name +
                             "': " + why);
    };
    if (!inputInPlace_[input]) return refuse("the input must be bound to 64-byte aligned caller memory, not copied");
    const size_t node = size_t(g.tensors[ot].producer);
    const LoadedNode &ln = g.nodes[node];
    size_t o = size_t(std::find(ln.outputs.begin(), ln.outputs.end(), int32_t(ot)) - ln.outputs.begin());
    for (size_t i = 0; i < ln.inputs.size(); ++i)
      if (ln.inputs[i] == int32_t(it) && !active_[node]->allowsInPlace(o, i))
        return refuse("node '" + ln.name + "' (" + ln.op + ") cannot compute it in place" +
                      (dynamic() ? " with " + dynamicSizesText(g.dynamicDims, sizes_) : std::string()));
    tensors_[ot].data = tensors_[it].data;
    tensors_[ot].buffer = tensors_[it].buffer, tensors_[ot].offset = tensors_[it].offset;
  }
  return Status::ok();
}

const void *Executor::outputData(size_t index) const {
  const LoadedGraph &g = graph_->graph;
  if (index >= g.outputs.size()) return nullptr;
  uint64_t off = graph_->outputCopyOffset[index];
  if (off != kNotInArena) return arena_ + off;
  return tensors_[g.outputs[index]].data;
}

}  // namespace webnn::rt
