// The webnn runtime's C++ API: load a compiled .wnn artifact, run it on CPU.
//
//   std::unique_ptr<webnn::Model> model;
//   webnn::Status s = webnn::Model::load("net.wnn", {}, &model);
//   std::unique_ptr<webnn::Session> session;
//   s = webnn::Session::create(*model, {/*threads=*/4}, &session);
//   s = session->run({{"x", x.data(), x.size() * 4}}, {{"y", y.data(), y.size() * 4}});
//
// No exceptions: every fallible call returns a Status with a message that
// names the file, tensor or node at fault. See docs/RUNTIME.md.
#ifndef WEBNN_RUNTIME_H
#define WEBNN_RUNTIME_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)  // exported from libwebnn.so (runtime/CMakeLists.txt)
#endif

namespace webnn {

// This library's version (webnn/version.h of the build that made it; a
// program linked against libwebnn.so may have been compiled with another
// header) and the artifact schema version it reads (schema/webnn_artifact_format.h).
const char *version();
uint32_t artifactSchemaVersion();

// What the CPU kernels run on in this process: `isa` is the widest
// instruction set they dispatch to ("x86-64-v3", the compiled baseline, or
// "x86-64-v3+avx512-vnni" when the AVX-512 kernels run), `features` the
// relevant extensions this CPU has (avx2, fma, avx512f, avx512bw, avx512dq,
// avx512vl, avx512vnni, avx512bf16, amx-tile, amx-int8, amx-bf16), and
// bf16DotProducts whether relaxed-precision models get bfloat16 dot products.
struct CpuInfo {
  std::string isa;
  std::vector<std::string> features;
  bool bf16DotProducts = false;
};
CpuInfo cpuInfo();

// Messages the runtime has for the application besides the Status of a call
// (what it loaded, how a session runs, why a faster path is not taken).
// One callback for the process; it may be called from any thread that calls
// into the runtime, with messages up to `maxLevel`. Without one (the
// default, or a null callback) errors go to stderr and the rest is dropped.
enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };
using LogCallback = void (*)(LogLevel level, const char *message, void *userData);
void setLogCallback(LogCallback callback, LogLevel maxLevel, void *userData);

namespace rt {
struct PreparedGraph;
class Executor;
}  // namespace rt

// A graph input or output as callers exchange it. `dtype` is the type the
// source model declared; for a type WebNN lacks (float64, int16, uint16,
// bfloat16, bool) the graph computes in `graphType` (float32, int32 or uint8
// 0/1) and the
// session converts at the boundary: inputs when bound, outputs after run.
struct TensorInfo {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;            // dynamic dimensions at their maximum
  uint64_t byteSize = 0;  // dense bytes of dtype x `shape`; int4/uint4 packed two per byte, low nibble first
  // Per dimension: empty when static, else its dynamic size ("seq",
  // "past + seq"). Empty vector for a fully static tensor.
  std::vector<std::string> dynamicDims;
  DataType graphType = DataType::kFloat32;  // == dtype unless dtype is interface-only
  bool isDynamic() const { return !dynamicDims.empty(); }

  // Type and shape as webnn-run and the Python package name them in
  // messages: "float32 [1,64]", a dynamic dimension as name<=max
  // ("float32 [seq<=16,4]").
  std::string describe() const {
    std::string s = std::string(dataTypeName(dtype)) + " ";
    if (!isDynamic()) return s + shapeToString(shape);
    s += "[";
    for (size_t d = 0; d < shape.size(); ++d) {
      if (d) s += ",";
      s += dynamicDims[d].empty() ? std::to_string(shape[d]) : dynamicDims[d] + "<=" + std::to_string(shape[d]);
    }
    return s + "]";
  }
  // Whether an input of shape `s` may be bound here: exactly `shape` for a
  // static tensor; for a dynamic one the same rank, the static dimensions
  // equal and each dynamic one at most its maximum (Session::run checks how
  // dynamic dimensions relate to each other).
  bool fits(const Shape &s) const {
    if (!isDynamic()) return s == shape;
    if (s.size() != shape.size()) return false;
    for (size_t d = 0; d < s.size(); ++d)
      if (dynamicDims[d].empty() ? s[d] != shape[d] : s[d] > shape[d]) return false;
    return true;
  }
};

// "'x', 'mask'" (or "none"): the names of `tensors`, for messages about a
// name that is not among them.
inline std::string tensorNameList(const std::vector<TensorInfo> &tensors) {
  std::string s;
  for (const TensorInfo &t : tensors) s += (s.empty() ? "'" : ", '") + t.name + "'";
  return s.empty() ? "none" : s;
}

// A named dimension of a graph with dynamic shapes: inputs may give it any
// size in 0..maxSize at each run (WebNN's MLDynamicDimension).
struct DynamicDimensionInfo {
  std::string name;
  int64_t maxSize = 0;
};

struct LoadOptions {
  // The weights file of a weightless artifact (webnnc --weightless).
  std::string weightsPath;
  // Also check embedded constants against their SHA-256 (reads all weights).
  bool verifyEmbeddedWeights = false;
};

// Bytes a caller hands Model::loadFromMemory. With no `release` they are
// copied during the call. With one, 64-byte aligned bytes are used in place
// (they must stay valid and unchanged) and release() runs exactly once, when
// the model and every session made from it are gone; bytes not 64-byte
// aligned are copied once and release() runs before the call returns. It
// also runs, before the return, when the load fails.
struct MemoryBuffer {
  const void *data = nullptr;
  size_t bytes = 0;
  std::function<void()> release;
};

// A verified, immutable graph with its weights mapped (not read) from disk.
// Sessions keep what they need alive, so a Model may be destroyed first.
class Model {
 public:
  static Status load(const std::string &path, const LoadOptions &options, std::unique_ptr<Model> *out);
  // The same from memory: a .wnn's bytes and, for a weightless artifact,
  // its weights file's bytes (weights.data null otherwise; options'
  // weightsPath must then be empty). The same checks and messages as
  // load(), with "<artifact in memory>" / "<weights in memory>" where the
  // paths would be.
  static Status loadFromMemory(MemoryBuffer artifact, MemoryBuffer weights, const LoadOptions &options,
                               std::unique_ptr<Model> *out);
  ~Model();

  const std::string &name() const;
  const std::vector<TensorInfo> &inputs() const { return inputs_; }
  const std::vector<TensorInfo> &outputs() const { return outputs_; }
  // Index of the input/output called `name`, or -1.
  int findInput(std::string_view name) const;
  int findOutput(std::string_view name) const;
  size_t numNodes() const;
  // Empty for a graph whose shapes are all static.
  const std::vector<DynamicDimensionInfo> &dynamicDimensions() const { return dynamicDims_; }
  // Bytes of the one arena every session allocates for intermediates.
  uint64_t arenaBytes() const;
  // The arena plan, one line per tensor (offset, bytes, live range, name).
  const std::string &planText() const;
  // Compiled with `webnnc compile --precision relaxed` (Graph.precision):
  // conv2d/matmul/gemm may compute in bfloat16 with float32 accumulation.
  bool relaxedPrecision() const;
  // What this process does with a relaxed model's dot products: "bf16", or
  // "float32" (then *why, if given, says why: no AVX512-BF16, no oneDNN, ...).
  // Exact models always run "float32".
  std::string dotProductPrecision(std::string *why = nullptr) const;

 private:
  friend class Session;
  Model() = default;
  void warnIfRelaxedRunsExact(const std::string &label) const;
  std::shared_ptr<const rt::PreparedGraph> graph_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<DynamicDimensionInfo> dynamicDims_;
};

constexpr int kMaxThreads = 1024;

// How a session's kernel threads wait between parallel loops (idle workers)
// and for each other's share of a loop (the calling thread).
enum class ThreadWait {
  kDefault,  // spin for a bounded time (1 ms, yielding the core to other runnable threads), then block
  kSpin,     // spin until there is work: lowest latency on cores of your own; burns them between runs
  kBlock,    // block at once: leaves the cores to others; each loop pays a wake-up
};

// Bounds on what a model may make a session do (docs/SECURITY.md, "Limits").
// A model that goes past one is refused with StatusCode::kLimitExceeded,
// the message naming the limit, the value asked for and the field to raise.
// Values known from the model (node count, nesting, constants, the arena,
// static tensor shapes, constant loop trip counts) are checked by
// Session::create; the rest at run(): the element counts of tensors with
// dynamic dimensions, run-time loop trip counts and the iterations run.
struct Limits {
  // Loop iterations in one run, over every loop node (nested ones included).
  uint64_t maxLoopIterations = uint64_t(1) << 24;
  // Elements of any one tensor; at most kMaxTensorElementsCap.
  uint64_t maxTensorElements = uint64_t(1) << 32;
  // Bytes of the arena of intermediate tensors a session allocates.
  uint64_t maxArenaBytes = uint64_t(16) << 30;
  // Bytes of the graph's constants (embedded or in the weights file).
  uint64_t maxConstantBytes = uint64_t(64) << 30;
  // Nodes, the main graph's and every subgraph's together.
  uint64_t maxNodes = 1000000;
  // Control-flow subgraphs inside subgraphs; at most kMaxNestingDepthCap.
  uint64_t maxNestingDepth = 64;
};
// What the runtime's arithmetic allows whatever the limits: element counts
// stay below 2^56 so byte and bit sizes fit in 64 bits, and the loader
// refuses deeper nesting to bound its recursion.
constexpr uint64_t kMaxTensorElementsCap = uint64_t(1) << 56;
constexpr uint64_t kMaxNestingDepthCap = 256;

struct SessionOptions {
  int threads = 1;         // threads kernels may use, counting the caller; 1..kMaxThreads
  bool profiling = false;  // time every node from the first run (enableProfiling)
  ThreadWait threadWait = ThreadWait::kDefault;
  // Runs every node on this backend ("cpu", ...) or device type ("gpu")
  // instead of where the artifact placed it; a node that backend refuses runs
  // on the default backend. Empty: the artifact's placement.
  std::string device;
  Limits limits;
};

struct InputBinding {
  std::string name;
  const void *data;
  size_t bytes;
  Shape shape = {};  // required when the input has dynamic dimensions
};
struct OutputBinding {
  std::string name;
  void *data;
  size_t bytes;
};

// Kernels, arena and thread pool for running one model; one run at a time.
// A session serves one thread at a time: a call made while another thread's
// call is still inside the session (binding inputs or outputs, running) fails with
// StatusCode::kBusy instead of racing; use one session per thread.
class Session {
 public:
  static Status create(const Model &model, const SessionOptions &options, std::unique_ptr<Session> *out);
  ~Session();

  // Binds an input to caller memory holding exactly its byte size. The binding
  // holds for later runs until rebound. 64-byte aligned memory is used in
  // place (it must stay valid and unchanged while bound); other memory is
  // copied now, as is an input whose dtype differs from its graphType
  // (converted now).
  Status setInput(std::string_view name, const void *data, size_t bytes);
  Status setInput(size_t index, const void *data, size_t bytes);
  // With the input's shape this run: required for an input with dynamic
  // dimensions (the sizes of the graph's dynamic dimensions come from these
  // shapes at run()), checked for any other.
  Status setInput(std::string_view name, const void *data, size_t bytes, const Shape &shape);
  Status setInput(size_t index, const void *data, size_t bytes, const Shape &shape);
  // Like setInput, but always copies: the caller may free `data` at once.
  Status copyInput(std::string_view name, const void *data, size_t bytes);
  Status copyInput(std::string_view name, const void *data, size_t bytes, const Shape &shape);
  // Makes later runs write output `name` straight into `data` (64-byte
  // aligned, `capacity` >= the output's maximum byte size, not also bound as
  // an input) instead of session memory; null data unbinds. For a KV cache
  // that moves from one step's present output to the next step's past input
  // without a copy (see `webnn-run generate`).
  Status bindOutput(std::string_view name, void *data, size_t capacity);
  // Makes later runs compute output `output` in the memory of input `input`
  // (bound with setInput to 64-byte aligned memory, read by no other node),
  // taking its shape: a KV cache whose past and present share one
  // fixed-capacity buffer, as ONNX Runtime's GroupQueryAttention allows, so a
  // step writes only the new rows. The node's kernel must support it (else
  // run() fails naming the node). bindOutput(output, ...) ends it.
  Status bindOutputInPlace(std::string_view output, std::string_view input);
  // Runs the graph on the bound inputs.
  Status run();
  // Asks the run in progress to stop; callable from any thread (the one
  // exception to the rule above) and returns at once. The running run()
  // returns StatusCode::kCancelled, naming the node it stopped at, at the
  // next node boundary: between nodes and between the subgraph runs of a
  // loop or if (a single long kernel finishes first). Each run clears the
  // request as it starts: a cancel() with no run in progress, or one that
  // arrives before the run reaches its first node, is forgotten and the next
  // run goes ahead. The session stays usable; a cancelled run's outputs are
  // undefined.
  void cancel();
  // An output's bytes after run(); valid until the next run or destruction.
  Status output(std::string_view name, const void **data, size_t *bytes) const;
  const void *outputData(size_t index) const;
  // An output's shape and bytes in the last run (the static ones before any
  // run); they differ from outputs()[i] only when the graph is dynamic.
  const Shape &outputShape(size_t index) const;
  size_t outputBytes(size_t index) const;

  // Binds `inputs`, runs, and copies each requested output into its buffer
  // (which must hold at least the output's bytes this run).
  Status run(const std::vector<InputBinding> &inputs, const std::vector<OutputBinding> &outputs);

  // Per-node timing of the runs after enableProfiling() (which resets it):
  // one entry per node in execution order with its op, source name and the
  // wall milliseconds summed over `runs` runs. A node the backend ran
  // together with the node before it (one kernel for both, e.g. a 1x1
  // convolution and the depthwise one it feeds) names that node in `runBy`
  // and has no time of its own: the pair's time is the earlier node's.
  struct NodeProfile {
    std::string op, name;
    double totalMs = 0;
    int64_t runBy = -1;
  };
  void enableProfiling(bool on);
  std::vector<NodeProfile> profile(uint64_t *runs) const;

  const std::vector<TensorInfo> &inputs() const { return inputs_; }
  const std::vector<TensorInfo> &outputs() const { return outputs_; }
  int threads() const;
  ThreadWait threadWait() const;
  uint64_t arenaBytes() const;

 private:
  Session() = default;
  class Use;  // the one-thread-at-a-time guard (Runtime.cpp)
  Status bindInput(size_t index, const void *data, size_t bytes, bool copy, const Shape *shape);
  bool converts(size_t output) const;  // dtype != graphType
  std::unique_ptr<rt::Executor> executor_;
  std::vector<TensorInfo> inputs_, outputs_;
  // Per output whose dtype differs from its graphType: its converted bytes
  // after run(); empty for the others.
  std::vector<std::vector<uint8_t>> convertedOutputs_;
  // The thread inside the session, and how deep (a call may call another).
  std::atomic<std::thread::id> user_{};
  int useDepth_ = 0;
};

}  // namespace webnn

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
