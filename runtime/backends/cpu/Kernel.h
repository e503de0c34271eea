// The contract between the executor and a CPU kernel.
//
// Life of a kernel: at load time the executor calls the op's factory once per
// node with the node's static description (shapes, types, options, and the
// bytes of constant operands, which a factory may prepack). The factory checks
// everything it relies on and returns a clear error for anything the spec
// forbids, so a loaded graph never fails inside run(). run() then executes on
// buffers the executor planned; it must not allocate per call.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNEL_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNEL_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::cpu {

class ThreadPool;

// Static description of one operand at load time.
struct OperandDesc {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  // Bytes of a constant operand (mapped from the artifact), else null.
  const void *constantData = nullptr;
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
  // (Graph.precision relaxed). Kernels may ignore it; see relaxedPrecisionSupport().
  bool relaxedPrecision = false;
  std::vector<PackedOperand> packed;
};

// A tensor at run time: shape/dtype fixed at load, data set by the executor.
struct TensorBuffer {
  DataType dtype;
  const Shape *shape;
  void *data;
};

struct KernelContext {
  const TensorBuffer *const *inputs;   // null entries = absent optional operands
  size_t numInputs;
  TensorBuffer *const *outputs;
  size_t numOutputs;
  ThreadPool *pool;                    // never null; may have one thread
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void run(const KernelContext &ctx) = 0;
  // Whether output `output` may share the memory of input `input` (same
  // shape, the executor's in-place binding): run() then reads the input
  // through the output's writes. No kernel does by default.
  virtual bool allowsInPlace(size_t output, size_t input) const {
    (void)output;
    (void)input;
    return false;
  }
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
  // not use the thread pool.
  // Failures are left for run() to meet (and fall back from).
  virtual void warmUp(int numThreads) { (void)numThreads; }
};

using KernelFactory = Status (*)(const NodeDesc &node, std::unique_ptr<Kernel> *out);

// Every op the CPU backend implements; nullptr if `op` is unknown.
KernelFactory findCpuKernel(std::string_view op);
// Two adjacent nodes as one kernel, where the backend has one: `consumer`
// reads `producer`'s only output as its first input, and nothing else reads
// that tensor (the executor checks). The kernel's run() gets the producer's
// inputs followed by the consumer's (the intermediate among them, not
// computed: don't read it) and the consumer's outputs. *out stays null when
// the pair is not one the backend fuses.
Status makeCpuKernelPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out);

// All registered op names (for `webnnc inspect` and tests).
std::vector<std::string_view> cpuKernelNames();

// Whether relaxed-precision nodes will really compute in bfloat16 here: true
// with oneDNN, AVX512-BF16 and no WEBNN_BF16=0; otherwise false with *why
// saying what is missing (they then run in float32).
bool relaxedPrecisionSupport(std::string *why);

}  // namespace webnn::cpu

#endif
