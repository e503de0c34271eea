// Shapes to kernels, the one path for every graph: a shape signature is the
// binding of the graph's dynamic dimensions (a graph without any has exactly
// one, resolved at session creation; otherwise each run binds one from its
// inputs' shapes). For a new signature every shape is derived again and each
// node gets the kernel its backend makes for its operands' shapes, or the
// one its cache kept for them; a pair candidate is first offered to its
// backend as one kernel (Backend::makeKernelPair), the answer cached by both
// nodes' shapes.
#include <algorithm>

#include "core/Executor.h"
#include "core/Limits.h"
#include "core/Log.h"

namespace webnn::rt {
namespace {

// Stands for the second node of a pair the first node's kernel runs (run()
// skips it; warm-up and prepacking see a kernel with nothing to do).
class PairedAwayKernel final : public Kernel {
 public:
  Status run(const KernelContext &) override { return Status::ok(); }
};

// Whether a node has an operand that is a strided view (concat-view plan).
bool hasRowPitch(const NodeDesc &d) {
  for (const OperandDesc *in : d.inputs)
    if (in && in->rowPitch) return true;
  for (const OperandDesc *o : d.outputs)
    if (o->rowPitch) return true;
  return false;
}

// The error for a node no backend of this runtime can run.
Status noKernel(const std::string &label, const NodeDesc &d, const Backend *asked) {
  if (!asked) return unsupported(label + ": this runtime was built without backends");
  std::string why;
  if (asked->supports(d, &why)) why = "no kernel for op '" + d.op + "'";
  return unsupported(label + ": backend '" + std::string(asked->name()) + "': " + why);
}

// A node's shape signature: its operands' shapes, {-1} for an absent one.
void appendSignature(const NodeDesc &d, std::vector<Shape> *signature) {
  for (const OperandDesc *in : d.inputs) signature->push_back(in ? in->shape : Shape{-1});
  for (const OperandDesc *o : d.outputs) signature->push_back(o->shape);
}

// Whether `signature` is d's (then e's, when given), compared in place: a
// decode step looks up every node's kernel, and most are hits.
bool isSignature(const std::vector<Shape> &signature, const NodeDesc &d, const NodeDesc *e) {
  size_t k = 0;
  auto matches = [&](const NodeDesc &n) {
    for (const OperandDesc *in : n.inputs) {
      if (k == signature.size()) return false;
      const Shape &s = signature[k++];
      if (in ? s != in->shape : s.size() != 1 || s[0] != -1) return false;
    }
    for (const OperandDesc *o : n.outputs)
      if (k == signature.size() || signature[k++] != o->shape) return false;
    return true;
  };
  return matches(d) && (!e || matches(*e)) && k == signature.size();
}

}  // namespace

Status Executor::checkOps() const {
  const PreparedGraph &p = *graph_;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeDesc &d = p.nodes[i];
    if (isControlFlowOp(d.op) || (!nodeSlot_.empty() && nodeSlot_[i] != 0)) continue;
    if (!backend_) return noKernel(nodeLabel(i, d), d, nullptr);
    if (!backend_->hasOp(d.op)) return noKernel(nodeLabel(i, d), d, backend_);
  }
  return Status::ok();
}

std::string Executor::label(const NodeDesc &d, const NodeWhere &where) const {
  std::string s = nodeLabel(where.index, d);
  if (where.subgraph >= 0) s += " of subgraph " + std::to_string(where.subgraph);
  if (where.sizes) s += " with " + dynamicSizesText(graph_->graph.dynamicDims, *where.sizes);
  return s;
}

Status Executor::makeNodeKernel(const NodeDesc &d, const LoadedNode &ln, const NodeWhere &where,
                                std::unique_ptr<Kernel> *kernel, uint8_t *slot) {
  if (isControlFlowOp(d.op)) {
    Status s = makeControlFlowKernel(graph_->graph, ln, this, kernel);
    return s.isOk() ? s : Status(s.code(), label(d, where) + ": " + s.message());
  }
  if (slot && *slot != 0) {
    Backend *b = placed_[*slot - 1].backend;
    // Placed nodes are main-graph nodes; a constant may be in the backend's
    // storage type there (chooseConstantStorage).
    const NodeDesc &pd = where.subgraph < 0 ? placedDesc(where.index) : d;
    std::string why;
    if (b->supports(pd, &why)) {
      Status s = b->makeKernel(pd, kernel);
      if (s.isOk() && *kernel) return s;
      why = s.isOk() ? "it made no kernel" : s.message();
      kernel->reset();
    }
    // Its memory and copies were laid out for it (a dynamic graph's later
    // signature): it cannot move now.
    if (placementFixed_)
      return unsupported(label(d, where) + ": placed on '" + std::string(b->name()) +
                         "', which refuses this shape signature: " + why);
    placementNotes_.push_back(label(d, where) + ": placed on '" + std::string(b->name()) + "', runs on '" +
                              std::string(backend_->name()) + "': " + why);
    if (logEnabled(LogLevel::kInfo)) log(LogLevel::kInfo, placementNotes_.back());
    *slot = 0;
  }
  if (!backend_->hasOp(d.op)) return noKernel(label(d, where), d, backend_);
  Status s = backend_->makeKernel(d, kernel);
  if (!s.isOk()) return Status(s.code(), label(d, where) + ": " + s.message());
  if (!*kernel) return Status(StatusCode::kInternal, label(d, where) + ": kernel factory returned no kernel");
  return Status::ok();
}

Status Executor::resolveShapes() {
  const LoadedGraph &g = graph_->graph;
  std::vector<int64_t> sizes;
  WEBNN_RETURN_IF_ERROR(bindDynamicDimensions(g.dynamicDims, inputNames_, inputDims_, inputShapes_, &sizes));
  if (resolved_ && sizes == sizes_) return Status::ok();
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
  // Until every kernel is made, nothing counts as resolved: a failure here
  // must not leave a later run with the same sizes a null kernel.
  resolved_ = false;
  const std::vector<int64_t> *signatureSizes = g.dynamicDims.empty() ? nullptr : &sizes;
  const size_t n = nodes_.size();
  std::vector<bool> away(pairCandidate_.empty() ? 0 : n, false);
  for (size_t i = 0; i < n; ++i) {
    const NodeDesc &d = nodes_[i];
    uint8_t *slot = nodeSlot_.empty() ? nullptr : &nodeSlot_[i];
    if (!pairCandidate_.empty() && pairCandidate_[i] && (!slot || nodeSlot_[i + 1] == *slot)) {
      const NodeDesc &next = nodes_[i + 1];
      std::vector<CachedKernel> &cache = pairCache_[i];
      auto hit = std::find_if(cache.begin(), cache.end(),
                              [&](const CachedKernel &c) { return isSignature(c.signature, d, &next); });
      if (hit == cache.end()) {
        CachedKernel made;
        appendSignature(d, &made.signature);
        appendSignature(next, &made.signature);
        const bool placed = slot && *slot != 0;
        Backend *b = placed ? placed_[*slot - 1].backend : backend_;
        Status s = placed ? b->makeKernelPair(placedDesc(i), placedDesc(i + 1), &made.kernel)
                          : b->makeKernelPair(d, next, &made.kernel);
        if (!s.isOk()) return Status(s.code(), label(d, {i, -1, signatureSizes}) + ": " + s.message());
        if (cache.size() == 2)
          cache.erase(cache.begin() + (cache[0].kernel && cache[0].kernel.get() == active_[i] ? 1 : 0));
        cache.push_back(std::move(made));
        hit = cache.end() - 1;
      }
      // The pair's output over one of the consumer's inputs (its run-time
      // input d.inputs.size() + k): the pair kernel must allow it, as a
      // single node's must below. The producer's output is never computed.
      const int32_t pairOver = graph_->outputOverInput[i + 1];
      if (hit->kernel && (graph_->outputOverInput[i] >= 0 ||
                          (pairOver >= 0 && !hit->kernel->allowsInPlace(0, d.inputs.size() + size_t(pairOver)))))
        return Status(StatusCode::kInternal, label(d, {i, -1, signatureSizes}) +
                                                 ": a node of this pair has its output planned over an input");
      if (hit->kernel && (hasRowPitch(d) || hasRowPitch(next)) && !hit->kernel->honoursRowPitch())
        return Status(StatusCode::kInternal, label(d, {i, -1, signatureSizes}) +
                                                 ": its pair's kernel does not honour a strided operand");
      if (hit->kernel) {
        if (!pairedAwayKernel_) pairedAwayKernel_ = std::make_unique<PairedAwayKernel>();
        active_[i] = hit->kernel.get();
        active_[i + 1] = pairedAwayKernel_.get();
        away[i + 1] = true;
        ++i;
        continue;
      }
    }
    std::vector<CachedKernel> &cache = kernelCache_[i];
    auto hit = std::find_if(cache.begin(), cache.end(),
                            [&](const CachedKernel &c) { return isSignature(c.signature, d, nullptr); });
    if (hit == cache.end()) {
      CachedKernel made;
      appendSignature(d, &made.signature);
      WEBNN_RETURN_IF_ERROR(makeNodeKernel(d, g.nodes[i], {i, -1, signatureSizes}, &made.kernel, slot));
      if (cache.size() == 2) cache.erase(cache.begin() + (cache[0].kernel.get() == active_[i] ? 1 : 0));
      cache.push_back(std::move(made));
      hit = cache.end() - 1;
    }
    active_[i] = hit->kernel.get();
    // The concat-view plan gave it a strided operand (only where its backend
    // takes them): a kernel that wrote it dense would overwrite its
    // neighbours' slices.
    if (hasRowPitch(d) && !active_[i]->honoursRowPitch())
      return Status(StatusCode::kInternal, label(d, {i, -1, signatureSizes}) +
                                               ": its kernel does not honour a strided operand");
    // The arena plan wrote this output over a dying input, by the op's
    // contract (ExecutionPlan.cpp's accumulatesInto): a kernel that does not
    // keep it (another backend's) would read its input through its writes.
    // A device backend's tensors are in its own arena, planned without
    // in-place outputs: there the host plan only says where copies land.
    const int32_t over = graph_->outputOverInput[i];
    const bool hostTensors = !slot || *slot == 0 || placed_[*slot - 1].backend->hostAddressable();
    if (over >= 0 && hostTensors && !active_[i]->allowsInPlace(0, size_t(over)))
      return Status(StatusCode::kInternal, label(d, {i, -1, signatureSizes}) +
                                               ": its output is planned over input " + std::to_string(over) +
                                               ", which its kernel does not allow");
  }
  // Which nodes a pair runs (pairedAway_ stays empty until a pair is
  // made): a node whose pairing changed sees its tensors anew, once they
  // are bound (at creation that comes after).
  if (std::find(away.begin(), away.end(), true) != away.end() || !pairedAway_.empty()) {
    std::vector<bool> was = std::move(pairedAway_);
    pairedAway_ = std::move(away);
    if (!nodeInputs_.empty())
      for (size_t i = 0; i + 1 < n; ++i)
        if ((i + 1 < was.size() && was[i + 1]) != pairedAway_[i + 1]) bindNodeIo(i);
  }
  sizes_ = std::move(sizes);
  resolved_ = true;
  return Status::ok();
}

}  // namespace webnn::rt
