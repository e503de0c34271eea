// The public C++ API: load = loadArtifact + prepareGraph; session = Executor.
#include "webnn/runtime.h"

#include <cstring>

#include "core/ArtifactLoader.h"
#include "core/Executor.h"

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

}  // namespace

Model::~Model() = default;

Status Model::load(const std::string &path, const LoadOptions &options, std::unique_ptr<Model> *out) {
  rt::LoaderOptions lo;
  lo.weightsPath = options.weightsPath;
  lo.verifyEmbeddedHashes = options.verifyEmbeddedWeights;
  lo.hasKernel = [](std::string_view op) { return rt::findKernelFactory(op) != nullptr; };
  rt::LoadedGraph g;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, lo, &g));
  std::unique_ptr<Model> m(new Model());
  m->inputs_ = describe(g, g.inputs);
  m->outputs_ = describe(g, g.outputs);
  for (const rt::DynamicDimension &d : g.dynamicDims) m->dynamicDims_.push_back({d.name, d.maxSize});
  std::shared_ptr<rt::PreparedGraph> prepared;
  WEBNN_RETURN_IF_ERROR(rt::prepareGraph(std::move(g), &prepared));
  m->graph_ = std::move(prepared);
  *out = std::move(m);
  return Status::ok();
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
#ifdef WEBNN_HAVE_CPU_BACKEND
  if (cpu::relaxedPrecisionSupport(&reason)) return "bf16";
#else
  reason = "this runtime has no CPU backend";
#endif
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
  WEBNN_RETURN_IF_ERROR(rt::Executor::create(model.graph_, options.threads, &s->executor_));
  s->inputs_ = model.inputs_;
  s->outputs_ = model.outputs_;
  s->convertedOutputs_.resize(s->outputs_.size());
  *out = std::move(s);
  return Status::ok();
}

Status Session::bindInput(size_t index, const void *data, size_t bytes, bool copy, const Shape *shape) {
  Use use(*this);
  WEBNN_RETURN_IF_ERROR(use.status("setInput"));
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
uint64_t Session::arenaBytes() const { return executor_->graph().arenaBytes; }

}  // namespace webnn
