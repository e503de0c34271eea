// The contract between the executor and a backend's kernels (backend-neutral;
// how a backend attaches: core/Backend.h, docs/BACKENDS.md).
//
// Life of a kernel: when a session is created (static graphs), or at the first
// run with each new shape signature (dynamic graphs), the executor asks the
// node's backend for a kernel with the node's description (shapes, types,
// options, and the bytes of constant operands, which a backend may prepack).
// The backend checks everything the kernel relies on and returns a clear error
// for anything the spec forbids. run() then executes on buffers the executor
// planned; it must not allocate per call, and it reports a failure (an
// allocation refused at first-run packing, a library primitive that would not
// build) as its Status rather than throwing.
#ifndef WEBNN_RUNTIME_CORE_KERNEL_H
#define WEBNN_RUNTIME_CORE_KERNEL_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::rt {

class BackendBuffer;  // core/Backend.h

// Static description of one operand when its kernel is made.
struct OperandDesc {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  // Host bytes of a constant operand (mapped from the artifact), else null.
  const void *constantData = nullptr;
  // Elements between the starts of consecutive rows of the last axis, where
  // the operand is a slice of a wider tensor's rows (concat elimination,
  // ExecutionPlan.h's ConcatViewPlan); 0: dense. Only a kernel that says it
  // honours it (Kernel::honoursRowPitch) is given such an operand.
  int64_t rowPitch = 0;
};

// One option of a node, as stored in the artifact (see docs/OPS.md).
struct AttributeValue {
  enum class Kind { kInt, kFloat, kBool, kString, kInts, kFloats } kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

class NodeAttributes {
 public:
  void set(std::string name, AttributeValue v);
  bool has(std::string_view name) const;
  // Typed getters return `def` when the option is absent and fail (returning
  // false from ok()) when it is present with the wrong kind.
  int64_t getInt(std::string_view name, int64_t def) const;
  double getFloat(std::string_view name, double def) const;  // accepts kInt too
  bool getBool(std::string_view name, bool def) const;
  std::string getString(std::string_view name, std::string_view def) const;
  std::vector<int64_t> getInts(std::string_view name, std::vector<int64_t> def) const;
  // The first kind mismatch seen by a getter, as an error (or OK).
  const Status &status() const { return status_; }

 private:
  const AttributeValue *find(std::string_view name) const;
  std::vector<std::pair<std::string, AttributeValue>> attrs_;
  mutable Status status_;
};

// A constant operand already in the layout some kernel wants, from the
// artifact (schema PackedConstant, `webnnc compile --prepack`). A kernel
// uses `data` only when it would pack the operand into exactly `layout`
// itself; otherwise it packs from the operand as usual.
struct PackedOperand {
  int input = 0;        // position in NodeDesc::inputs
  std::string layout;
  const void *data = nullptr;
  uint64_t bytes = 0;
};

// What a kernel would store for compile-time prepacking (Kernel::packConstants).
struct PackedBytes {
  int input = 0;
  std::string layout;
  std::vector<uint8_t> bytes;
};

struct NodeDesc {
  std::string op;      // WebNN builder name, e.g. "conv2d"
  std::string name;    // source location, for messages
  std::vector<const OperandDesc *> inputs;  // null = absent optional operand
  std::vector<const OperandDesc *> outputs;
  NodeAttributes attributes;
  // The artifact allows bfloat16 dot products with float32 accumulation
  // (Graph.precision relaxed). Kernels may ignore it; see
  // Backend::relaxedPrecisionSupport.
  bool relaxedPrecision = false;
  std::vector<PackedOperand> packed;
  // The input whose bytes the arena plan gives output 0 (a dying residual,
  // PreparedGraph::outputOverInput), or -1: a kernel may be chosen by it.
  int32_t outputOverInput = -1;
};

// A tensor at run time: shape/dtype fixed when its kernel is made, storage set
// by the executor. Its bytes are (buffer, offset) in the memory of the backend
// that owns `buffer` (null: host memory outside any backend allocation, such
// as a caller's input or a mapped constant). `data` is the host address of
// those bytes where they are host-addressable (always for the CPU backend:
// kernels read it directly, no indirection), else null.
struct TensorBuffer {
  DataType dtype;
  const Shape *shape;
  void *data;
  BackendBuffer *buffer = nullptr;
  uint64_t offset = 0;
};

struct KernelContext {
  const TensorBuffer *const *inputs;   // null entries = absent optional operands
  size_t numInputs;
  TensorBuffer *const *outputs;
  size_t numOutputs;
  // The session state of the kernel's backend (BackendSession::kernelState):
  // what its kernels share at run time, such as the CPU backend's thread
  // pool. Opaque here; only that backend's kernels interpret it.
  void *backendState;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Never throws: a failure (out of memory while packing on the first run,
  // a primitive the library refused) is the returned error, with its reason.
  virtual Status run(const KernelContext &ctx) = 0;
  // Whether output `output` may share the memory of input `input` (same
  // shape, the executor's in-place binding): run() then reads the input
  // through the output's writes. No kernel does by default.
  virtual bool allowsInPlace(size_t output, size_t input) const {
    (void)output;
    (void)input;
    return false;
  }
  // Whether run() reads and writes every operand at the rowPitch its
  // OperandDesc had when the kernel was made. A backend that lets the
  // executor plan strided operands (Backend::takesRowPitch) must make only
  // such kernels for nodes that have one.
  virtual bool honoursRowPitch() const { return false; }
  // Compile-time prepacking: appends each constant operand this kernel
  // repacks before use, in the layout it would use with `numThreads`
  // threads (none by default). Offline work: may JIT and allocate.
  virtual Status packConstants(int numThreads, std::vector<PackedBytes> *out) {
    (void)numThreads;
    (void)out;
    return Status::ok();
  }
  // Session creation: builds now what the first run would otherwise build
  // for `numThreads` threads (oneDNN's JIT code), so that work leaves the
  // first run and can spread over the session's threads. Called for several
  // kernels at once from different threads, and while the first run calls
  // this kernel's run() from another, so it must be safe against that; must
  // not use the backend's session state.
  // Failures are left for run() to meet (and fall back from, or report).
  virtual void warmUp(int numThreads) { (void)numThreads; }
};

using KernelFactory = Status (*)(const NodeDesc &node, std::unique_ptr<Kernel> *out);

}  // namespace webnn::rt

#endif
