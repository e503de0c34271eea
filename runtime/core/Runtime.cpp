// The public C++ API: load = loadArtifact + prepareGraph; session = Executor.
#include "webnn/runtime.h"

#include <chrono>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <cstdint>
#include <cstring>

#include "core/ArtifactLoader.h"
#include "core/Backend.h"
#include "core/Executor.h"
#include "core/Limits.h"
#include "core/Log.h"
#include "webnn/version.h"
#include "webnn_artifact_format.h"

namespace webnn {
namespace {

std::vector<TensorInfo> describe(const rt::LoadedGraph &g, const std::vector<uint32_t> &indices) {
  std::vector<TensorInfo> infos;
  for (uint32_t t : indices) {
    const rt::LoadedTensor &lt = g.tensors[t];
    // Callers exchange the interface type (a type WebNN lacks that the model
    // declared) when there is one; graphType is what the graph computes in.
    TensorInfo info{lt.name, lt.interfaceType, lt.shape, lt.interfaceByteSize, {}, lt.dtype};
    for (const rt::DimExpr &e : lt.dims) info.dynamicDims.push_back(e.spelling);
    if (lt.runLength) {  // a loop's scan output: as many rows as iterations ran
      info.dynamicDims.assign(lt.shape.size(), "");
      info.dynamicDims[0] = "iterations";
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

int findByName(const std::vector<TensorInfo> &infos, std::string_view name) {
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string nameList(const std::vector<TensorInfo> &infos) {
  std::string s;
  for (const auto &t : infos) s += (s.empty() ? "'" : ", '") + t.name + "'";
  return s.empty() ? "none" : s;
}

// The index of the input or output (`kind`) called `name`, or an error that
// lists the names there are.
Status indexOf(const std::vector<TensorInfo> &infos, std::string_view name, const char *kind, size_t *index) {
  int i = findByName(infos, name);
  if (i < 0)
    return invalidArgument("no " + std::string(kind) + " named '" + std::string(name) + "' (" + kind + "s: " +
                           nameList(infos) + ")");
  *index = static_cast<size_t>(i);
  return Status::ok();
}

using Clock = std::chrono::steady_clock;

rt::LoaderOptions loaderOptions(const LoadOptions &options) {
  rt::LoaderOptions lo;
  lo.weightsPath = options.weightsPath;
  lo.verifyEmbeddedHashes = options.verifyEmbeddedWeights;
  lo.hasKernel = [](std::string_view op) { return rt::findBackendForOp(op) != nullptr; };
  lo.backends = rt::backendsText();
  return lo;
}

}  // namespace

const char *version() { return WEBNN_VERSION_STRING; }
uint32_t artifactSchemaVersion() { return artifact::kSchemaVersion; }

#if defined(__x86_64__)
// AMX from CPUID leaf 7 EDX: __builtin_cpu_supports lacks the AMX names in
// older compilers (clang 14 of the fuzz preset).
static bool cpuidLeaf7Edx(int bit) {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && ((d >> bit) & 1);
}
#endif

CpuInfo cpuInfo() {
  CpuInfo info;
  info.isa = "x86-64-v3";  // what the runtime is compiled for
#if defined(__x86_64__)
  __builtin_cpu_init();
  struct Feature {
    const char *name;
    bool present;
  };
  const Feature features[] = {
      {"avx2", bool(__builtin_cpu_supports("avx2"))},
      {"fma", bool(__builtin_cpu_supports("fma"))},
      {"avx512f", bool(__builtin_cpu_supports("avx512f"))},
      {"avx512bw", bool(__builtin_cpu_supports("avx512bw"))},
      {"avx512dq", bool(__builtin_cpu_supports("avx512dq"))},
      {"avx512vl", bool(__builtin_cpu_supports("avx512vl"))},
      {"avx512vnni", bool(__builtin_cpu_supports("avx512vnni"))},
      {"avx512bf16", bool(__builtin_cpu_supports("avx512bf16"))},
      {"amx-tile", cpuidLeaf7Edx(24)},
      {"amx-int8", cpuidLeaf7Edx(25)},
      {"amx-bf16", cpuidLeaf7Edx(22)},
  };
  for (const Feature &f : features)
    if (f.present) info.features.push_back(f.name);
#endif
  // A host backend's own dispatch (the CPU backend's AVX-512 F/BW/DQ/VL + VNNI test).
  if (rt::Backend *b = rt::defaultBackend()) {
    std::string isa = b->hostIsa(), why;
    if (!isa.empty()) info.isa = isa;
    info.bf16DotProducts = b->relaxedPrecisionSupport(&why);
  }
  return info;
}

namespace {

// Everything after the loader's checks, for load() and loadFromMemory().
Status finishLoad(rt::LoadedGraph g, const std::string &label, Clock::time_point t0,
                  std::shared_ptr<const rt::PreparedGraph> *graph, std::vector<TensorInfo> *inputs,
                  std::vector<TensorInfo> *outputs, std::vector<DynamicDimensionInfo> *dynamicDims) {
  *inputs = describe(g, g.inputs);
  *outputs = describe(g, g.outputs);
  for (const rt::DynamicDimension &d : g.dynamicDims) dynamicDims->push_back({d.name, d.maxSize});
  const std::string name = g.name;
  const size_t nodes = g.nodes.size();
  const uint64_t weights = g.weightsSize;
  const bool weightless = g.weightless;
  std::shared_ptr<rt::PreparedGraph> prepared;
  WEBNN_RETURN_IF_ERROR(rt::prepareGraph(std::move(g), &prepared));
  if (rt::logEnabled(LogLevel::kInfo))
    rt::log(LogLevel::kInfo, "loaded " + label + ": graph '" + name + "', " + std::to_string(nodes) + " nodes, " +
                                 std::to_string(weights) + " bytes of weights (" +
                                 (weightless ? "separate" : "embedded") + "), arena " +
                                 std::to_string(prepared->arenaBytes) + " bytes, in " +
                                 std::to_string(std::chrono::duration<double, std::milli>(Clock::now() - t0).count()) +
                                 " ms");
  *graph = std::move(prepared);
  return Status::ok();
}

}  // namespace

Model::~Model() = default;

Status Model::load(const std::string &path, const LoadOptions &options, std::unique_ptr<Model> *out) {
  const Clock::time_point t0 = Clock::now();
  rt::LoadedGraph g;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, loaderOptions(options), &g));
  std::unique_ptr<Model> m(new Model());
  WEBNN_RETURN_IF_ERROR(
      finishLoad(std::move(g), "'" + path + "'", t0, &m->graph_, &m->inputs_, &m->outputs_, &m->dynamicDims_));
  m->warnIfRelaxedRunsExact("'" + path + "'");
  *out = std::move(m);
  return Status::ok();
}

Status Model::loadFromMemory(MemoryBuffer artifact, MemoryBuffer weights, const LoadOptions &options,
                             std::unique_ptr<Model> *out) {
  const Clock::time_point t0 = Clock::now();
  // Each buffer becomes the bytes the loader reads; from here on its release
  // belongs to that object (run when it is destroyed: at once for a copy or
  // a failed load, with the model's last user otherwise).
  auto take = [](MemoryBuffer &b, rt::MappedFile *bytes) -> Status {
    if (!b.release) return rt::MappedFile::copy(b.data, b.bytes, bytes);
    if (reinterpret_cast<uintptr_t>(b.data) % 64 == 0) {
      *bytes = rt::MappedFile::borrow(b.data, b.bytes, std::move(b.release));
      return Status::ok();
    }
    rt::MappedFile lent = rt::MappedFile::borrow(b.data, b.bytes, std::move(b.release));
    return rt::MappedFile::copy(b.data, b.bytes, bytes);  // `lent` releases on return
  };
  const bool hasWeights = weights.data != nullptr || weights.bytes != 0;
  Status bad;
  if ((!artifact.data && artifact.bytes) || (!weights.data && weights.bytes))
    bad = invalidArgument("loadFromMemory: null data with a nonzero size");
  else if (!options.weightsPath.empty())
    bad = invalidArgument("loadFromMemory: pass a weightless artifact's weights as bytes, not as a path");
  if (!bad.isOk()) {  // released all the same: every release runs exactly once
    if (artifact.release) artifact.release();
    if (weights.release) weights.release();
    return bad;
  }
  rt::MappedFile artifactBytes, weightsBytes;
  Status s = take(artifact, &artifactBytes);
  Status ws = hasWeights ? take(weights, &weightsBytes) : Status::ok();
  if (!hasWeights && weights.release) weights.release();
  WEBNN_RETURN_IF_ERROR(s);
  WEBNN_RETURN_IF_ERROR(ws);
  const std::string label = "<artifact in memory>";
  rt::LoadedGraph g;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(std::move(artifactBytes), label, std::move(weightsBytes),
                                         hasWeights ? "<weights in memory>" : "", loaderOptions(options), &g));
  std::unique_ptr<Model> m(new Model());
  WEBNN_RETURN_IF_ERROR(
      finishLoad(std::move(g), label, t0, &m->graph_, &m->inputs_, &m->outputs_, &m->dynamicDims_));
  m->warnIfRelaxedRunsExact(label);
  *out = std::move(m);
  return Status::ok();
}

void Model::warnIfRelaxedRunsExact(const std::string &label) const {
  std::string why;
  if (relaxedPrecision() && dotProductPrecision(&why) != "bf16")
    rt::log(LogLevel::kWarning, label + " was compiled with --precision relaxed, but " + why +
                                    ": its dot products run in float32");
}

const std::string &Model::name() const { return graph_->graph.name; }
int Model::findInput(std::string_view name) const { return findByName(inputs_, name); }
int Model::findOutput(std::string_view name) const { return findByName(outputs_, name); }
size_t Model::numNodes() const { return graph_->graph.nodes.size(); }
uint64_t Model::arenaBytes() const { return graph_->arenaBytes; }
const std::string &Model::planText() const { return graph_->planText; }
bool Model::relaxedPrecision() const { return graph_->graph.relaxedPrecision; }

std::string Model::dotProductPrecision(std::string *why) const {
  if (!relaxedPrecision()) return "float32";
  std::string reason;
  if (rt::Backend *b = rt::defaultBackend()) {
    if (b->relaxedPrecisionSupport(&reason)) return "bf16";
  } else {
    reason = "this runtime has no backend";
  }
  if (why) *why = reason;
  return "float32";
}

Session::~Session() = default;

// Marks the calling thread as the one inside the session for the guard's
// lifetime. A session's buffers and kernels serve one caller: a second thread
// arriving meanwhile gets kBusy instead of silently mixing its inputs or
// outputs with the first's. Nested calls on the owning thread pass.
class Session::Use {
 public:
  explicit Use(Session &s) : s_(s) {
    const std::thread::id me = std::this_thread::get_id();
    if (s.user_.load(std::memory_order_acquire) == me) {
      ++s.useDepth_;
      entered_ = true;
      return;
    }
    std::thread::id nobody;
    entered_ = s.user_.compare_exchange_strong(nobody, me, std::memory_order_acquire);
    if (entered_) s.useDepth_ = 1;
  }
  ~Use() {
    if (entered_ && --s_.useDepth_ == 0) s_.user_.store(std::thread::id(), std::memory_order_release);
  }
  Status status(const char *call) const {
    if (entered_) return Status::ok();
    return Status(StatusCode::kBusy, std::string("Session::") + call +
                                         ": the session is in use by another thread (a session serves one "
                                         "thread at a time; create one session per thread)");
  }

 private:
  Session &s_;
  bool entered_ = false;
};

Status Session::create(const Model &model, const SessionOptions &options, std::unique_ptr<Session> *out) {
  if (options.threads < 1 || options.threads > kMaxThreads)
    return invalidArgument("threads must be between 1 and " + std::to_string(kMaxThreads) + ", got " +
                           std::to_string(options.threads));
  std::unique_ptr<Session> s(new Session());
  if (options.threadWait != ThreadWait::kDefault && options.threadWait != ThreadWait::kSpin &&
      options.threadWait != ThreadWait::kBlock)
    return invalidArgument("threadWait must be kDefault, kSpin or kBlock, got " +
                           std::to_string(static_cast<int>(options.threadWait)));
  WEBNN_RETURN_IF_ERROR(rt::checkLimits(*model.graph_, options.limits));
  WEBNN_RETURN_IF_ERROR(rt::Executor::create(model.graph_, options.threads, &s->executor_, true, options.device));
  s->executor_->setRunLimits(options.limits.maxLoopIterations, options.limits.maxTensorElements);
  s->executor_->backendSession().setThreadWait(options.threadWait);
  s->inputs_ = model.inputs_;
  s->outputs_ = model.outputs_;
  s->convertedOutputs_.resize(s->outputs_.size());
  if (options.profiling) s->executor_->setProfiling(true);
  if (rt::logEnabled(LogLevel::kInfo))
    rt::log(LogLevel::kInfo, "session for graph '" + model.name() + "': " + std::to_string(s->threads()) +
                                 " thread(s), arena " + std::to_string(s->arenaBytes()) + " bytes, backend " +
                                 std::string(s->executor_->backend().name()) + " (" + cpuInfo().isa + ")" +
                                 (options.profiling ? ", profiling" : ""));
  *out = std::move(s);
  return Status::ok();
}

Status Session::bindInput(size_t index, const void *data, size_t bytes, bool copy, const Shape *shape) {
  Use use(*this);
  WEBNN_RETURN_IF_ERROR(use.status("setInput"));
  if (!copy && data && reinterpret_cast<uintptr_t>(data) % 64 != 0 && index < inputs_.size() &&
      rt::logEnabled(LogLevel::kDebug))
    rt::log(LogLevel::kDebug, "input '" + inputs_[index].name +
                                  "': memory is not 64-byte aligned, so it is copied at each binding (bind "
                                  "64-byte aligned memory to use it in place)");
  if (index >= inputs_.size() || inputs_[index].dtype == inputs_[index].graphType)
    return executor_->setInput(index, data, bytes, copy, shape);
  // An interface-only type: convert into the type the graph computes in.
  const TensorInfo &info = inputs_[index];
  const Shape &runShape = shape ? *shape : info.shape;
  int64_t count = 0;
  uint64_t want = 0, graphBytes = 0;
  if (!elementCount(runShape, &count) || !tensorByteSize(info.dtype, runShape, &want) ||
      !tensorByteSize(info.graphType, runShape, &graphBytes))
    return invalidArgument("input '" + info.name + "': shape " + shapeToString(runShape) + " is too large");
  if (bytes != want)
    return invalidArgument("input '" + info.name + "': expected " + std::to_string(want) + " bytes (" +
                           std::string(dataTypeName(info.dtype)) + " " + shapeToString(runShape) + "), got " +
                           std::to_string(bytes));
  if (!data && bytes) return invalidArgument("input '" + info.name + "': null buffer");
  std::vector<uint8_t> converted(graphBytes);
  if (!convertElements(info.dtype, data, info.graphType, converted.data(), count))
    return Status(StatusCode::kInternal, "input '" + info.name + "': no conversion from " +
                                             std::string(dataTypeName(info.dtype)) + " to " +
                                             std::string(dataTypeName(info.graphType)));
  return executor_->setInput(index, converted.data(), converted.size(), /*copy=*/true, shape);
}

Status Session::setInput(std::string_view name, const void *data, size_t bytes) {
  size_t i;
  WEBNN_RETURN_IF_ERROR(indexOf(inputs_, name, "input", &i));
  return bindInput(i, data, bytes, /*copy=*/false, nullptr);
}

Status Session::copyInput(std::string_view name, const void *data, size_t bytes) {
  size_t i;
  WEBNN_RETURN_IF_ERROR(indexOf(inputs_, name, "input", &i));
  return bindInput(i, data, bytes, /*copy=*/true, nullptr);
}

Status Session::setInput(size_t index, const void *data, size_t bytes) {
  return bindInput(index, data, bytes, /*copy=*/false, nullptr);
}

Status Session::setInput(std::string_view name, const void *data, size_t bytes, const Shape &shape) {
  size_t i;
  WEBNN_RETURN_IF_ERROR(indexOf(inputs_, name, "input", &i));
  return bindInput(i, data, bytes, /*copy=*/false, &shape);
}

Status Session::setInput(size_t index, const void *data, size_t bytes, const Shape &shape) {
  return bindInput(index, data, bytes, /*copy=*/false, &shape);
}

Status Session::copyInput(std::string_view name, const void *data, size_t bytes, const Shape &shape) {
  size_t i;
  WEBNN_RETURN_IF_ERROR(indexOf(inputs_, name, "input", &i));
  return bindInput(i, data, bytes, /*copy=*/true, &shape);
}

Status Session::bindOutput(std::string_view name, void *data, size_t capacity) {
  Use use(*this);
  WEBNN_RETURN_IF_ERROR(use.status("bindOutput"));
  size_t i;
  WEBNN_RETURN_IF_ERROR(indexOf(outputs_, name, "output", &i));
  if (converts(i))
    return invalidArgument("output '" + outputs_[i].name + "' is converted to " +
                           std::string(dataTypeName(outputs_[i].dtype)) + " after each run and cannot be bound");
  return executor_->bindOutput(i, data, capacity);
}

Status Session::bindOutputInPlace(std::string_view output, std::string_view input) {
  Use use(*this);
  WEBNN_RETURN_IF_ERROR(use.status("bindOutputInPlace"));
  size_t o, i;
  WEBNN_RETURN_IF_ERROR(indexOf(outputs_, output, "output", &o));
  WEBNN_RETURN_IF_ERROR(indexOf(inputs_, input, "input", &i));
  if (converts(o) || inputs_[i].dtype != inputs_[i].graphType)
    return invalidArgument("output '" + outputs_[o].name + "' and input '" + inputs_[i].name +
                           "' must be exchanged in the type the graph computes in to share memory");
  return executor_->bindOutputInPlace(o, i);
}

Status Session::run() {
  Use use(*this);
  WEBNN_RETURN_IF_ERROR(use.status("run"));
  WEBNN_RETURN_IF_ERROR(executor_->run());
  // Outputs of an interface-only type: convert from the graph's type.
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorInfo &info = outputs_[i];
    if (info.dtype == info.graphType) continue;
    int64_t count = 0;
    elementCount(executor_->outputShape(i), &count);
    convertedOutputs_[i].resize(outputBytes(i));
    if (!convertElements(info.graphType, executor_->outputData(i), info.dtype, convertedOutputs_[i].data(), count))
      return Status(StatusCode::kInternal, "output '" + info.name + "': no conversion from " +
                                               std::string(dataTypeName(info.graphType)) + " to " +
                                               std::string(dataTypeName(info.dtype)));
  }
  return Status::ok();
}

// No Use guard: cancel() is meant to be called while another thread runs.
void Session::cancel() { executor_->cancel(); }

Status Session::output(std::string_view name, const void **data, size_t *bytes) const {
  size_t i;
  WEBNN_RETURN_IF_ERROR(indexOf(outputs_, name, "output", &i));
  *data = outputData(i);
  *bytes = outputBytes(i);
  return Status::ok();
}

bool Session::converts(size_t output) const {
  return output < outputs_.size() && outputs_[output].dtype != outputs_[output].graphType;
}

const void *Session::outputData(size_t index) const {
  return converts(index) ? convertedOutputs_[index].data() : executor_->outputData(index);
}
const Shape &Session::outputShape(size_t index) const { return executor_->outputShape(index); }
size_t Session::outputBytes(size_t index) const {
  if (!converts(index)) return executor_->outputBytes(index);
  uint64_t bytes = 0;
  tensorByteSize(outputs_[index].dtype, executor_->outputShape(index), &bytes);
  return static_cast<size_t>(bytes);
}

Status Session::run(const std::vector<InputBinding> &inputs, const std::vector<OutputBinding> &outputs) {
  Use use(*this);  // held across binding, running and copying out
  WEBNN_RETURN_IF_ERROR(use.status("run"));
  // Check every output binding before running, so a typo costs no inference.
  std::vector<size_t> outIndex;
  for (const auto &o : outputs) {
    size_t i;
    WEBNN_RETURN_IF_ERROR(indexOf(outputs_, o.name, "output", &i));
    bool fits = outputs_[i].isDynamic() || o.bytes == outputs_[i].byteSize;  // dynamic: checked after the run
    if (!fits)
      return invalidArgument("output '" + o.name + "': buffer has " + std::to_string(o.bytes) + " bytes, " +
                             std::string(dataTypeName(outputs_[i].dtype)) + " " + shapeToString(outputs_[i].shape) +
                             " needs " + std::to_string(outputs_[i].byteSize));
    if (!o.data && o.bytes) return invalidArgument("output '" + o.name + "': null buffer");
    outIndex.push_back(i);
  }
  for (const auto &in : inputs) {
    size_t i;
    WEBNN_RETURN_IF_ERROR(indexOf(inputs_, in.name, "input", &i));
    WEBNN_RETURN_IF_ERROR(bindInput(i, in.data, in.bytes, /*copy=*/false, inputs_[i].isDynamic() ? &in.shape : nullptr));
  }
  WEBNN_RETURN_IF_ERROR(run());
  for (size_t k = 0; k < outputs.size(); ++k) {
    size_t bytes = outputBytes(outIndex[k]);
    if (bytes > outputs[k].bytes)
      return invalidArgument("output '" + outputs[k].name + "': buffer has " + std::to_string(outputs[k].bytes) +
                             " bytes, this run's " + shapeToString(executor_->outputShape(outIndex[k])) +
                             " needs " + std::to_string(bytes));
    if (bytes) std::memcpy(outputs[k].data, outputData(outIndex[k]), bytes);
  }
  return Status::ok();
}

void Session::enableProfiling(bool on) { executor_->setProfiling(on); }

std::vector<Session::NodeProfile> Session::profile(uint64_t *runs) const {
  std::vector<NodeProfile> out;
  const auto &nodes = executor_->graph().graph.nodes;
  const auto &ms = executor_->nodeMilliseconds();
  for (size_t i = 0; i < nodes.size() && i < ms.size(); ++i) out.push_back({nodes[i].op, nodes[i].name, ms[i]});
  for (size_t i = 1; i < out.size(); ++i)
    if (executor_->pairedAway(i)) out[i].runBy = int64_t(i - 1);
  if (runs) *runs = executor_->profiledRuns();
  return out;
}

int Session::threads() const { return executor_->numThreads(); }
ThreadWait Session::threadWait() const { return executor_->backendSession().threadWait(); }
uint64_t Session::arenaBytes() const { return executor_->arenaBytes(); }

}  // namespace webnn
