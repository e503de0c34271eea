// The executor's session life (core/Executor.h): creation, which puts the
// parts together (partition, kernels for the shape signature, binding,
// warm-up), and the run loop over the main graph's and subgraphs' nodes.
#include "core/Executor.h"

#include <chrono>
#include <cstring>

#include "core/Limits.h"
#include "core/Prepack.h"

namespace webnn::rt {

Executor::~Executor() { warmUp_.stop(); }

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
      if (!isControlFlowOp(p.nodes[i].op))
        return unsupported(nodeLabel(i, p.nodes[i]) + ": this runtime was built without backends");
    return unsupported("this runtime was built without backends");
  }
  WEBNN_RETURN_IF_ERROR(e->backend_->createSession(numThreads, &e->session_));
  e->backendState_ = e->session_->kernelState();
  const MappedFile *mappings[2] = {&g.artifact, &g.weights};
  for (int m = 0; m < 2; ++m)
    if (mappings[m]->data())
      WEBNN_RETURN_IF_ERROR(e->backend_->mapConstants(mappings[m]->data(), mappings[m]->size(), &e->constantBuffers_[m]));

  // Operand descriptions with the shapes of the current signature.
  e->operands_ = p.operands;
  e->nodes_ = p.nodes;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    for (auto &in : e->nodes_[i].inputs)
      if (in) in = &e->operands_[size_t(in - p.operands.data())];
    for (auto &o : e->nodes_[i].outputs) o = &e->operands_[size_t(o - p.operands.data())];
  }
  e->active_.assign(p.nodes.size(), nullptr);
  e->kernelCache_.resize(p.nodes.size());
  for (uint32_t idx : g.inputs) {
    e->inputNames_.push_back(g.tensors[idx].name);
    e->inputDims_.push_back(g.tensors[idx].dims.empty() ? nullptr : &g.tensors[idx].dims);
    e->inputShapes_.push_back(g.tensors[idx].shape);
  }
  e->runShapes_.resize(g.outputs.size());
  e->hasRunShape_.assign(g.outputs.size(), false);
  e->inputStaging_.resize(g.inputs.size());
  e->inputBound_.assign(g.inputs.size(), false);
  e->inputInPlace_.assign(g.inputs.size(), false);
  e->inPlaceInput_.assign(g.outputs.size(), -1);

  WEBNN_RETURN_IF_ERROR(e->placeNodes(device));
  // Strided operands only where every node's kernel comes from a backend
  // that honours them (the default one; control flow has no subgraphs here).
  if (p.concatViews && e->placed_.empty() && e->backend_->takesRowPitch()) {
    e->views_ = p.concatViews.get();
    for (size_t t = 0; t < e->operands_.size(); ++t) e->operands_[t].rowPitch = e->views_->rowPitch[t];
  }
  const uint64_t arenaBytes = e->arenaBytes();
  Status s = e->backend_->allocate(arenaBytes, &e->arenaBuffer_);
  if (!s.isOk())
    return Status(s.code(), "cannot allocate the " + std::to_string(arenaBytes) +
                                "-byte arena for intermediate tensors: " + s.message());
  e->arena_ = static_cast<uint8_t *>(e->arenaBuffer_->hostPointer());
  // The executor binds, copies and runs control flow through host addresses.
  if (!e->arena_)
    return unsupported("backend '" + std::string(e->backend_->name()) + "': its memory is not host-addressable");
  WEBNN_RETURN_IF_ERROR(e->checkOps());
  e->chooseConstantStorage();
  e->findPairCandidates();
  // Control-flow nodes' subgraphs: static shapes only (the loader refuses
  // subgraphs in a graph with dynamic dimensions), on the default backend.
  e->subKernels_.resize(p.subgraphs.size());
  for (size_t s = 0; s < p.subgraphs.size(); ++s) {
    const std::vector<NodeDesc> &nodes = p.subgraphs[s].nodes;
    e->subKernels_[s].resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
      WEBNN_RETURN_IF_ERROR(
          e->makeNodeKernel(nodes[i], g.subgraphs[s].nodes[i], {i, int64_t(s)}, &e->subKernels_[s][i], nullptr));
  }
  e->bindTensors(mappings);
  // A graph without dynamic dimensions has a single shape signature: its
  // kernels are made now. Any other graph's are made by the runs, for the
  // signatures their inputs bind.
  if (g.dynamicDims.empty()) WEBNN_RETURN_IF_ERROR(e->resolveShapes());
  // Partitions before the device memory: it is planned for their groups.
  if (e->resolved_) e->makePartitions();
  WEBNN_RETURN_IF_ERROR(e->prepareTransfers());
  e->nodeInputs_.resize(g.nodes.size());
  e->nodeOutputs_.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) e->bindNodeIo(i);
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
  if (warmUp && e->resolved_) {
    std::vector<Kernel *> all(e->active_);
    // A partition's kernel is warmed in its first node's place (that node
    // and the rest of the partition never run on their own).
    if (e->partitions_)
      for (const Partition &part : e->partitions_->partitions) all[part.first] = part.kernel.get();
    for (const auto &sub : e->subKernels_)
      for (const auto &k : sub) all.push_back(k.get());
    e->warmUp_.start(std::move(all), *e->session_);
  }
  *out = std::move(e);
  return Status::ok();
}

Status Executor::run() {
  const LoadedGraph &g = graph_->graph;
  for (size_t k = 0; k < g.inputs.size(); ++k)
    if (!inputBound_[k]) return invalidArgument("input '" + g.tensors[g.inputs[k]].name + "' was not set");
  // The same signature as the last run (always, for a graph without dynamic
  // dimensions) keeps every kernel.
  WEBNN_RETURN_IF_ERROR(resolveShapes());
  if (dynamic() && !nodeSlot_.empty()) makePartitions();  // this signature's
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
                      "run cancelled at " + nodeLabel(i, nodes_[i]));
      }
      if (partitions_ && partitions_->at[i] >= 0) {
        Partition &part = partitions_->partitions[size_t(partitions_->at[i])];
        if (warmUp_.pending()) warmUp_.ensure(i);  // the partition's kernel stands in node i's place
        WEBNN_RETURN_IF_ERROR(runPartition(part));
        i = part.last;
        continue;
      }
      const uint8_t slot = nodeSlot_.empty() ? 0 : nodeSlot_[i];
      KernelContext ctx{nodeInputs_[i].data(), nodeInputs_[i].size(), nodeOutputs_[i].data(), nodeOutputs_[i].size(),
                        slot == 0 ? backendState_ : placed_[slot - 1].state};
      if (!before_.empty())
        for (const Transfer &x : before_[i]) {
          Status s = runTransfer(x);
          if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
        }
      if (warmUp_.pending()) warmUp_.ensure(i);  // the main graph's kernels come first
      Status s;
      if (!profiling_) {
        s = active_[i]->run(ctx);
      } else {
        auto t0 = std::chrono::steady_clock::now();
        s = active_[i]->run(ctx);
        nodeMs_[i] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      }
      if (!s.isOk()) return Status(s.code(), nodeLabel(i, nodes_[i]) + ": " + s.message());
      if (!after_.empty())
        for (const Transfer &x : after_[i]) {
          s = runTransfer(x);
          if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
        }
    }
    for (Placed &pl : placed_) WEBNN_RETURN_IF_ERROR(pl.session->synchronize());
  } catch (const std::bad_alloc &) {
    return Status(StatusCode::kOutOfMemory, nodeLabel(i, nodes_[i]) + ": out of memory");
  }
  if (profiling_) ++profiledRuns_;
  warmUp_.finish();
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    uint64_t off = outputCopyOffset(k);
    if (off == kNotInArena) continue;
    if (uint64_t bytes = outputBytes(k)) std::memcpy(arena_ + off, tensors_[g.outputs[k]].data, bytes);
  }
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

void Executor::setProfiling(bool on) {
  profiling_ = on;
  nodeMs_.assign(active_.size(), 0.0);
  profiledRuns_ = 0;
}

Status Executor::packConstants(std::vector<NodePackedBytes> *out) {
  if (dynamic()) return invalidArgument("prepacking needs static shapes");
  for (size_t i = 0; i < active_.size(); ++i) {
    std::vector<PackedBytes> packed;
    Status s = active_[i]->packConstants(numThreads(), &packed);
    if (!s.isOk()) return Status(s.code(), nodeLabel(i, graph_->nodes[i]) + ": " + s.message());
    for (PackedBytes &p : packed) out->push_back({uint32_t(i), std::move(p)});
  }
  return Status::ok();
}

}  // namespace webnn::rt
