// How a backend attaches to the runtime (docs/BACKENDS.md).
//
// A backend makes kernels for the nodes it supports (core/Kernel.h), owns the
// memory its tensors live in, and keeps per-session state its kernels share.
// The executor reaches every backend through this interface and the registry
// below; runtime/core names no backend. Each backend folder's CMakeLists adds
// its name to WEBNN_BACKENDS, which generates webnn/backends.def (one
// WEBNN_BACKEND(Name) line per backend, in order of preference); the backend
// defines `rt::Backend *create<Name>Backend()`, called once on first use.
#ifndef WEBNN_RUNTIME_CORE_BACKEND_H
#define WEBNN_RUNTIME_CORE_BACKEND_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/Kernel.h"
#include "webnn/runtime.h"  // ThreadWait
#include "webnn/status.h"

namespace webnn::rt {

// One allocation in a backend's memory: an arena, an uploaded constant block.
struct OpSupportTable;  // core/OpSupport.h

class BackendBuffer {
 public:
  virtual ~BackendBuffer() = default;
  virtual uint64_t size() const = 0;
  // The host address of byte 0 where the memory is host-addressable (the CPU
  // backend's always is), else null: then only the backend's copy functions
  // and kernels reach it.
  virtual void *hostPointer() const = 0;
};

// One session's state in a backend (a thread pool, a device queue).
class BackendSession {
 public:
  virtual ~BackendSession() = default;
  // What the backend's kernels receive as KernelContext::backendState.
  void *kernelState() const { return kernelState_; }
  virtual int numThreads() const { return 1; }
  // How the session's idle host threads wait (SessionOptions::threadWait);
  // takes effect at their next wait. A backend without host threads of its
  // own keeps kDefault.
  virtual void setThreadWait(ThreadWait wait) { (void)wait; }
  virtual ThreadWait threadWait() const { return ThreadWait::kDefault; }
  // Session creation is done and runs will follow: start what the first run
  // would otherwise start (worker threads).
  virtual void startWorkers() {}
  // Waits until all work the session's kernels queued has completed; a
  // failure that happened asynchronously is returned here.
  virtual Status synchronize() { return Status::ok(); }

 protected:
  void *kernelState_ = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Short lower-case name, as in placements and messages ("cpu").
  virtual std::string_view name() const = 0;
  // The kind of device: "cpu", "gpu" or "npu" (what `webnnc compile
  // --target` and `webnn-run --device` may name instead of a backend).
  virtual std::string_view deviceType() const = 0;
  // Whether its memory is host memory (BackendBuffer::hostPointer never
  // null, kernels read TensorBuffer::data): the executor then lets it share
  // the host arena and copies nothing for it. Otherwise its kernels see only
  // (buffer, offset) in its own memory and the executor copies across.
  virtual bool hostAddressable() const = 0;

  // Whether the backend has a kernel for `op` at all (for load-time checks
  // and `webnnc` before shapes are known).
  virtual bool hasOp(std::string_view op) const = 0;
  // Every op it has a kernel for (for `webnnc inspect` and tests).
  virtual std::vector<std::string_view> opNames() const = 0;
  // Whether it would run `node` (types, ranks, options); when not, *why says
  // what it lacks. makeKernel may still refuse a supported node with an error.
  virtual bool supports(const NodeDesc &node, std::string *why) const = 0;
  // Its op support limits as data (core/OpSupport.h, WebNN's
  // opSupportLimits), or null for a backend that publishes none: then only
  // supports() and opNames() answer.
  virtual const OpSupportTable *opSupportLimits() const { return nullptr; }
  // Whether every kernel it makes (makeKernel, makeKernelPair) for a node
  // with a strided operand (OperandDesc::rowPitch) honours the pitch
  // (Kernel::honoursRowPitch), wrapping one that does not: then a session
  // whose every node runs here may use the concat-view plan.
  virtual bool takesRowPitch() const { return false; }
  // A kernel for one node. Errors name the problem; the executor prefixes the
  // node.
  virtual Status makeKernel(const NodeDesc &node, std::unique_ptr<Kernel> *out) = 0;
  // Two adjacent nodes as one kernel, where the backend has one: `consumer`
  // reads `producer`'s only output as its first input, and nothing else reads
  // that tensor (the executor checks). The kernel's run() gets the producer's
  // inputs followed by the consumer's (the intermediate among them, not
  // computed: don't read it) and the consumer's outputs. *out stays null when
  // the pair is not one the backend fuses.
  virtual Status makeKernelPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out) {
    (void)producer, (void)consumer;
    out->reset();
    return Status::ok();
  }

  // Steps that span several of a partition's nodes, such as an elementwise
  // chain run as one GPU dispatch, asked of a backend that is not
  // host-addressable before its arena is laid out (static graphs only: a
  // dynamic graph's memory is laid out before its signatures' kernels).
  // `nodes` as for makePartitionKernel; `readOutside[k]`: an output of
  // nodes[k] is read by a node outside `nodes`, by a subgraph, or is a graph
  // output. Each group: two or more ascending indices into `nodes`, disjoint
  // from the other groups, run as one step in the place of its last node;
  // every output of its other nodes is read by the group's later nodes
  // alone, so it is never written and gets no memory (the executor drops a
  // group that breaks this). The backend's arena is then planned for the
  // groups: what a group reads stays live until its step.
  virtual void groupPartitionNodes(const std::vector<const NodeDesc *> &nodes, const std::vector<bool> &readOutside,
                                   std::vector<std::vector<uint32_t>> *groups) const {
    (void)nodes, (void)readOutside;
    groups->clear();
  }

  // A partition as one kernel: `nodes` are two or more consecutive
  // main-graph nodes of a static graph, all placed on this backend, none a
  // control-flow node or half of a pair, each already accepted by
  // makeKernel; `groups` are the groupPartitionNodes answers the executor
  // kept (empty for a dynamic graph), each to run as one step. The kernel's
  // run() gets every node's inputs, node after node (an absent optional
  // operand: null), then as outputs every node's outputs, node after node; a
  // tensor made and read inside the partition is in the backend's memory
  // like any other (its arena), but one made and read inside a group has no
  // memory (its view's buffer is null). The executor makes the copies the
  // nodes need before the first node and after the last, so a device backend
  // can run the whole partition as one submission. *out stays null where the
  // backend runs the nodes one by one (the default); an error is logged and
  // the nodes run one by one (with groups: the partition is offered again
  // without them first).
  virtual Status makePartitionKernel(const std::vector<const NodeDesc *> &nodes,
                                     const std::vector<std::vector<uint32_t>> &groups, std::unique_ptr<Kernel> *out) {
    (void)nodes, (void)groups;
    out->reset();
    return Status::ok();
  }

  // Per-session state for `numThreads` host threads (1 or more).
  virtual Status createSession(int numThreads, std::unique_ptr<BackendSession> *out) = 0;
  // A zero-filled-or-not, 64-byte aligned allocation of `bytes` (at least one
  // byte is allocated for zero) in the backend's memory: the arena of a session.
  virtual Status allocate(uint64_t bytes, std::unique_ptr<BackendBuffer> *out) = 0;
  // Constant bytes in the backend's memory. A host-memory backend wraps
  // `host` without copying (it stays valid for the model's life); a device
  // backend uploads them.
  virtual Status mapConstants(const void *host, uint64_t bytes, std::unique_ptr<BackendBuffer> *out) = 0;
  // A device backend may keep a constant in a narrower type than the
  // artifact's where every node of its that reads the constant lets it round
  // (a relaxed-precision dot product's float32 weight held as float16): the
  // constant then takes fewer bytes of its memory. Before making kernels the
  // executor asks, for each constant and each node placed here that reads it
  // as input `operand`, the type the backend would keep it in; where every
  // such reader answers the same type other than the constant's own, it
  // uploads the constant with mapConstantAs, and those nodes' descriptions
  // (supports, makeKernel, makeKernelPair, makePartitionKernel) and their
  // views of it at run time carry that type, the operand's constantData null
  // (the host bytes are in the artifact's type). A node that falls back to
  // the default backend reads the artifact's bytes as they are.
  virtual DataType constantStorageType(const NodeDesc &node, size_t operand) const {
    return node.inputs[operand]->dtype;
  }
  // `constant` (its constantData the artifact's bytes) converted to
  // `storage`, an answer of constantStorageType, in the backend's memory.
  virtual Status mapConstantAs(const OperandDesc &constant, DataType storage, std::unique_ptr<BackendBuffer> *out) {
    (void)constant, (void)storage, (void)out;
    return unsupported(std::string(name()) + " keeps constants in their own type");
  }
  // Copies between host memory and (buffer, offset). Synchronous: the bytes
  // are in place when they return.
  virtual Status copyToBackend(const void *host, BackendBuffer *dst, uint64_t offset, uint64_t bytes) = 0;
  virtual Status copyToHost(const BackendBuffer *src, uint64_t offset, void *host, uint64_t bytes) = 0;

  // A host backend: the instruction set its kernels are built for and
  // dispatch to on this machine (webnn::cpuInfo().isa); else empty.
  virtual std::string hostIsa() const { return {}; }
  // Whether nodes marked relaxed precision really compute in bfloat16 here;
  // otherwise false with *why saying what is missing.
  virtual bool relaxedPrecisionSupport(std::string *why) const {
    *why = std::string(name()) + " has no reduced-precision dot products";
    return false;
  }
};

// The backends linked into this runtime, in order of preference; never null
// entries. Built on first use (thread-safe), they live for the process.
const std::vector<Backend *> &backends();
// The backend called `name`, or null.
Backend *findBackend(std::string_view name);
// The backend the executor places nodes on by default (the first one), or
// null when the runtime was built without any.
Backend *defaultBackend();
// The first backend that has a kernel for `op`, or null when none has (also
// when the runtime was built without backends).
Backend *findBackendForOp(std::string_view op);
// "backend 'cpu'", "backends 'cpu', 'vulkan'": the registered backends, for
// messages about what was asked.
std::string backendsText();
// Adds a backend at run time (tests); takes ownership. Call before loading
// a model that uses it; not concurrently with loads.
void registerBackend(std::unique_ptr<Backend> backend);

}  // namespace webnn::rt

#endif
