// The per-session executor: owns the kernels, the arena and the backends'
// session state (the CPU backend's thread pool), and runs the nodes. Its parts,
// one file each: the model-level plan (ExecutionPlan.*), placement and
// transfers between backends (Partition.cpp), shapes to kernels for a shape
// signature, pairs included (KernelResolution.cpp), warm-up (WarmUp.*), where
// each tensor's bytes are (Binding.cpp), and the run loop (Executor.cpp).
// Kernels come from the backend registry (core/Backend.h); this file names no
// backend.
#ifndef WEBNN_RUNTIME_CORE_EXECUTOR_H
#define WEBNN_RUNTIME_CORE_EXECUTOR_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ArtifactLoader.h"
#include "core/Backend.h"
#include "core/ControlFlow.h"
#include "core/DynamicShapes.h"
#include "core/ExecutionPlan.h"
#include "core/Kernel.h"
#include "core/WarmUp.h"
#include "webnn/status.h"

namespace webnn::rt {

struct NodePackedBytes;  // core/Prepack.h

// A device backend's arena (Executor::prepareTransfers, planPlacement): the
// main graph's intermediates `touched` marks (those its nodes make or read),
// each live from its producer to its last reader (graph outputs to the end,
// a value a subgraph captures until its owner runs), positions mapped by
// `position` (per node: the step that runs it, a node inside a group its
// group's last node, so what the group reads stays live until then), those
// `inside` marks (made and read inside a group; may be empty) left out.
// Planned apart from the host arena, whose plan is made for the nodes one by
// one. An offset per tensor (kNotInArena where it has none) and the bytes.
Status planDeviceArena(const LoadedGraph &g, const std::vector<bool> &touched, const std::vector<int64_t> &position,
                       const std::vector<bool> &inside, std::vector<uint64_t> *offsets, uint64_t *bytes);

// One session's execution state. Not thread-safe: one run at a time.
class Executor : private SubgraphRunner {
 public:
  // `warmUp` false skips Kernel::warmUp (JIT at creation) for a session that
  // never runs, such as compile-time prepacking's. `device` (a backend name
  // or device type) places every node there instead of where the artifact
  // placed it; empty keeps the artifact's placement (docs/BACKENDS.md).
  static Status create(std::shared_ptr<const PreparedGraph> graph, int numThreads,
                       std::unique_ptr<Executor> *out, bool warmUp = true, std::string_view device = {});
  ~Executor() override;

  const PreparedGraph &graph() const { return *graph_; }
  // The bytes of this session's arena: the concat-view plan's where it
  // uses that (ConcatViewPlan), else the graph's.
  uint64_t arenaBytes() const { return views_ ? views_->arenaBytes : graph_->arenaBytes; }
  int numThreads() const { return session_->numThreads(); }
  // The backend that runs this session's nodes, and its state for them.
  Backend &backend() const { return *backend_; }
  BackendSession &backendSession() const { return *session_; }
  // The backend main-graph node `i` runs on (its placement, or the default
  // backend where that was refused), and one line per node that runs
  // elsewhere than its placement asked, saying why.
  const Backend &nodeBackend(size_t i) const;
  const std::vector<std::string> &placementNotes() const { return placementNotes_; }
  // Copies between host memory and other backends' memory per run.
  size_t transfersPerRun() const { return transfersPerRun_; }
  // Partitions run as one kernel each (Backend::makePartitionKernel).
  size_t numPartitions() const { return partitions_ ? partitions_->partitions.size() : 0; }

  // Binds graph input `index` (position in graph().graph.inputs) to caller
  // memory of exactly the tensor's byte size; the binding holds for later runs
  // until rebound. A 64-byte aligned buffer is used in place (zero copy) and
  // must stay valid and unchanged while bound; any other is copied now, as is
  // every buffer when `copy` is set.
  // `shape` is required for an input with dynamic dimensions (and checked
  // against the graph for any input); `bytes` must match it.
  Status setInput(size_t index, const void *data, uint64_t bytes, bool copy = false,
                  const Shape *shape = nullptr);
  Status run();
  // Makes the run in progress return kCancelled at its next node boundary;
  // any thread may call it. run() clears the request as it starts.
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  // The run-time part of the session's Limits (core/Limits.h): loop
  // iterations per run and the element count of tensors with dynamic
  // dimensions. Unbounded until set.
  void setRunLimits(uint64_t maxLoopIterations, uint64_t maxTensorElements) {
    maxLoopIterations_ = maxLoopIterations, maxTensorElements_ = maxTensorElements;
  }
  // Makes the node producing graph output `index` write into caller memory
  // (64-byte aligned, at least the output's maximum byte size, not an input
  // of the same run) instead of the arena; null restores the arena. The
  // binding holds for later runs. How a decode loop keeps its KV cache
  // without copying it: last step's present buffer is this step's past.
  Status bindOutput(size_t index, void *data, uint64_t capacity);
  // Makes the node producing graph output `output` compute it in place over
  // graph input `input`'s buffer (ONNX Runtime's past/present share-buffer
  // KV cache): the output takes the input's shape and memory at every run.
  // Checked here: the input is read by that node only, the output by no
  // node, same dtype (and, static graphs, the same shape); at run: the
  // input is bound in place (64-byte aligned, not copied) and the node's
  // kernel allows it (Kernel::allowsInPlace). bindOutput on the output ends it.
  Status bindOutputInPlace(size_t output, size_t input);
  // Every node's Kernel::packConstants at this session's thread count
  // (static graphs only), for compile-time prepacking (core/Prepack.h).
  Status packConstants(std::vector<NodePackedBytes> *out);
  // Per-node wall time of every run while on (off by default: two clock
  // reads per node). Indexed like graph().nodes.
  void setProfiling(bool on);
  const std::vector<double> &nodeMilliseconds() const { return nodeMs_; }
  uint64_t profiledRuns() const { return profiledRuns_; }
  // Whether node `i` is run by node i - 1's kernel (Backend::makeKernelPair).
  bool pairedAway(size_t i) const { return i < pairedAway_.size() && pairedAway_[i]; }
  // Graph output `index`'s bytes after run(); valid until the next run.
  const void *outputData(size_t index) const;
  // Its shape and byte size in the last run (the static ones before a run).
  const Shape &outputShape(size_t index) const;
  uint64_t outputBytes(size_t index) const;
  bool dynamic() const { return !graph_->graph.dynamicDims.empty(); }

 private:
  Executor() = default;
  // SubgraphRunner, for the control-flow kernels.
  Status runSubgraph(uint32_t index) override;
  TensorBuffer &tensor(uint32_t index) override { return tensors_[index]; }
  void setRunRows(uint32_t tensor, int64_t rows) override;
  Status countLoopIteration() override;
  uint64_t maxLoopIterations_ = UINT64_MAX, maxTensorElements_ = UINT64_MAX, loopIterations_ = 0;

  std::shared_ptr<const PreparedGraph> graph_;
  Backend *backend_ = nullptr;
  std::unique_ptr<BackendSession> session_;
  void *backendState_ = nullptr;  // session_->kernelState(), for every KernelContext

  // --- Shapes and kernels (KernelResolution.cpp). A graph has one shape
  // signature per binding of its dynamic dimensions; a graph without any
  // has exactly one, resolved when the session is created.
  // Binds the dynamic dimensions from the inputs' shapes; when they changed,
  // re-derives every shape and makes each node's kernel (or a pair's) match
  // its operands' shapes.
  Status resolveShapes();
  // One node's kernel on the backend `*slot` names (null: the default one),
  // falling back to the default backend, with a note, where a placed
  // backend refuses the node; control-flow nodes get the executor's own.
  // `where` names the node in messages, built only when one is needed:
  // "node 4 'conv1' (conv2d)" plus " of subgraph S" or the signature's sizes.
  struct NodeWhere {
    size_t index;
    int64_t subgraph = -1;                        // -1: the main graph
    const std::vector<int64_t> *sizes = nullptr;  // a dynamic graph's signature
  };
  std::string label(const NodeDesc &d, const NodeWhere &where) const;
  Status makeNodeKernel(const NodeDesc &d, const LoadedNode &ln, const NodeWhere &where,
                        std::unique_ptr<Kernel> *kernel, uint8_t *slot);
  // Every non-control-flow node on the default backend has an op there (the
  // error at creation, before any shapes are known).
  Status checkOps() const;
  bool resolved_ = false;  // sizes_ and every node's kernel match the bound inputs
  // Operand descriptions with the current signature's shapes (nodes_ points
  // into operands_), the sizes of the names, and each input's name,
  // dimension expressions (null: all static) and shape.
  std::vector<OperandDesc> operands_;
  std::vector<NodeDesc> nodes_;
  std::vector<int64_t> sizes_;
  std::vector<std::string> inputNames_;
  std::vector<const TensorDims *> inputDims_;
  std::vector<Shape> inputShapes_;
  // Per node, the kernels built for its two most recent signatures (prefill
  // and decode alternate without rebuilding).
  struct CachedKernel {
    std::vector<Shape> signature;
    std::unique_ptr<Kernel> kernel;
  };
  std::vector<std::vector<CachedKernel>> kernelCache_;
  // Per pair candidate (empty when there is none), the backend's answer for
  // the two most recent signatures of both nodes: one kernel for the two, or
  // null where it made none (the nodes then use kernelCache_, so a node's
  // own kernel is not rebuilt because its neighbour's shapes changed).
  std::vector<std::vector<CachedKernel>> pairCache_;
  std::vector<Kernel *> active_;  // per node, the kernel run() calls
  // Per node (empty when no pair was made): node i - 1's kernel runs it
  // (Backend::makeKernelPair), its own kernel does nothing.
  std::vector<bool> pairedAway_;
  std::unique_ptr<Kernel> pairedAwayKernel_;  // what a paired-away node "runs"
  // Per node (empty when none is): node i and i + 1 may be offered to their
  // backend as a pair (Partition.cpp).
  std::vector<bool> pairCandidate_;

  // --- Placement and transfers (Partition.cpp). A backend besides the
  // default one that nodes were placed on. Unless it is host-addressable it
  // has its own arena, planned for the tensors its nodes make and read
  // (planBackendArena), a view of every tensor in its memory (null where it
  // has none), and the constants and inputs its nodes read.
  struct Placed {
    Backend *backend = nullptr;
    std::unique_ptr<BackendSession> session;
    void *state = nullptr;
    std::unique_ptr<BackendBuffer> arena;
    std::vector<TensorBuffer> tensors;  // device views; empty when host-addressable
    std::vector<std::unique_ptr<BackendBuffer>> owned;
    // Per tensor (empty when none): the constant as this backend keeps it,
    // where that is another type than the artifact's
    // (Backend::constantStorageType); null: as it is.
    std::vector<std::unique_ptr<OperandDesc>> storedAs;
  };
  std::vector<Placed> placed_;
  // Per main-graph node (empty when none): the node as its placed backend
  // sees it, a constant it reads in that backend's storage type; null: nodes_[i].
  std::vector<std::unique_ptr<NodeDesc>> placedDescs_;
  const NodeDesc &placedDesc(size_t i) const {
    return placedDescs_.empty() || !placedDescs_[i] ? nodes_[i] : *placedDescs_[i];
  }
  std::vector<uint8_t> nodeSlot_;  // per main-graph node: 0 = backend_, k = placed_[k - 1]
  // A copy between a tensor's host view and its view in placed_[slot - 1].
  struct Transfer {
    uint32_t tensor;
    uint8_t slot;
    bool toBackend;
  };
  std::vector<std::vector<Transfer>> before_, after_;  // per node; empty without device backends
  size_t transfersPerRun_ = 0;
  std::vector<std::string> placementNotes_;
  Status runTransfer(const Transfer &x);
  // Runs of consecutive nodes on one placed backend that the backend took
  // as one kernel (Backend::makePartitionKernel): run() runs the copies of
  // all its nodes before and after it, and the nodes inside are skipped.
  struct Partition {
    size_t first = 0, last = 0;
    std::unique_ptr<Kernel> kernel;
    // The backend's steps over several of its nodes that the kernel was made
    // with (Backend::groupPartitionNodes): indices from `first`.
    std::vector<std::vector<uint32_t>> groups;
    std::vector<const TensorBuffer *> inputs;  // every node's, in order (filled at each run)
    std::vector<TensorBuffer *> outputs;
  };
  // One shape signature's partitions (a static graph has one signature; a
  // dynamic one keeps its two most recent, like the nodes' kernels).
  struct PartitionSet {
    std::vector<int64_t> sizes;  // the signature: the dynamic dimensions' sizes
    std::vector<Partition> partitions;
    std::vector<int32_t> at;  // per node: the partition it starts, else -1
  };
  std::vector<std::unique_ptr<PartitionSet>> partitionSets_;
  PartitionSet *partitions_ = nullptr;  // the current signature's; null when none
  // Offers each run of two or more consecutive nodes on a placed backend to
  // it as one kernel, for the current signature once its kernels are made
  // (or takes the set made for it before). Before the device memory is laid
  // out (a static graph's only signature), with the groups the backend
  // proposes and the executor can honour (nodeGroups).
  void makePartitions();
  std::vector<std::vector<uint32_t>> nodeGroups(const Backend &b, size_t first, size_t last,
                                                const std::vector<int64_t> &reads);
  // The arena of device backend placed_[slot - 1] (planDeviceArena over its
  // nodes and the current partitions' groups).
  Status planBackendArena(uint8_t slot, const std::vector<std::vector<int32_t>> &ins,
                          const std::vector<std::vector<int32_t>> &outs, std::vector<uint64_t> *offsets,
                          uint64_t *bytes) const;
  // Set once the device backends' memory and copies are laid out: a placed
  // node refused for a later shape signature is then an error, not a move
  // to the default backend.
  bool placementFixed_ = false;
  Status runPartition(Partition &p);
  // Places the nodes, makes the device backends' sessions.
  Status placeNodes(std::string_view device);
  // The constants a device backend keeps in another type (Placed::storedAs)
  // and its readers' descriptions with that type (placedDescs_), before
  // any kernel is made.
  void chooseConstantStorage();
  // Which adjacent nodes may run as one kernel (pairCandidate_).
  void findPairCandidates();
  // The device backends' memory and the transfers, once kernels are made.
  Status prepareTransfers();

  // --- Where each tensor's bytes are (Binding.cpp).
  // Points every tensor at its constant, arena slot or (inputs) nothing yet.
  void bindTensors(const MappedFile *const mappings[2]);
  // Node i's (and, when it runs a pair, node i + 1's) tensors as its kernel
  // sees them, in its backend's memory.
  void bindNodeIo(size_t i);
  // Points in-place outputs at their inputs' memory and checks their kernels.
  Status applyInPlace();
  // The concat-view plan, where this session uses it (every node on the
  // default backend, which takes row pitches), else null: the plain plan.
  const ConcatViewPlan *views_ = nullptr;
  uint64_t arenaOffset(size_t t) const { return views_ ? views_->arenaOffset[t] : graph_->arenaOffset[t]; }
  uint64_t outputCopyOffset(size_t k) const {
    return views_ ? views_->outputCopyOffset[k] : graph_->outputCopyOffset[k];
  }
  std::unique_ptr<BackendBuffer> arenaBuffer_;
  // The artifact's and the weights file's bytes in the backend's memory
  // (Backend::mapConstants: the CPU backend wraps the mappings, no copy).
  std::unique_ptr<BackendBuffer> constantBuffers_[2];
  uint8_t *arena_ = nullptr;  // arenaBuffer_'s host address
  std::vector<std::unique_ptr<BackendBuffer>> inputStaging_;  // lazily, per input
  std::vector<bool> inputBound_;
  std::vector<bool> inputInPlace_;  // bound to caller memory without a copy
  // Per graph output: the graph input it is computed in place over, or -1.
  std::vector<int64_t> inPlaceInput_;
  std::vector<TensorBuffer> tensors_;
  // Per node, the pointer arrays KernelContext refers to.
  std::vector<std::vector<const TensorBuffer *>> nodeInputs_;
  std::vector<std::vector<TensorBuffer *>> nodeOutputs_;
  // The same per subgraph node: [subgraph][node].
  std::vector<std::vector<std::unique_ptr<Kernel>>> subKernels_;
  std::vector<std::vector<std::vector<const TensorBuffer *>>> subInputs_;
  std::vector<std::vector<std::vector<TensorBuffer *>>> subOutputs_;
  // Graph outputs that are loop scan outputs: their shape this run.
  std::vector<Shape> runShapes_;     // per graph output; used where hasRunShape_
  std::vector<bool> hasRunShape_;

  // --- The run loop (Executor.cpp).
  std::atomic<bool> cancelled_{false};
  bool profiling_ = false;
  std::vector<double> nodeMs_;
  uint64_t profiledRuns_ = 0;
  KernelWarmUp warmUp_;  // main graph's kernels, then subgraphs'
};

}  // namespace webnn::rt

#endif
