#include "core/ControlFlow.h"

#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace webnn::rt {
namespace {

std::string typeText(const LoadedTensor &t) {
  return std::string(dataTypeName(t.dtype)) + " " + shapeToString(t.shape);
}

bool sameType(const LoadedTensor &a, const LoadedTensor &b) { return a.dtype == b.dtype && a.shape == b.shape; }

bool isOneElement(const LoadedTensor &t, DataType dtype) {
  int64_t n = 1;
  for (int64_t d : t.shape) n *= d;
  return t.dtype == dtype && n == 1;
}

struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, AlignedFree>;

Buffer allocate(uint64_t bytes) {
  uint64_t rounded = (bytes + 63) / 64 * 64;
  return Buffer(static_cast<uint8_t *>(std::aligned_alloc(64, rounded ? rounded : 64)));
}

// Runs the branch the condition selects and copies what it yields into the
// node's outputs (the branch's own tensors are reused by the next run).
class IfKernel final : public Kernel {
 public:
  IfKernel(const LoadedGraph &g, const LoadedNode &node, SubgraphRunner *runner) : runner_(runner) {
    for (int b = 0; b < 2; ++b) {
      branch_[b] = node.subgraphs[b];
      yields_[b] = g.subgraphs[branch_[b]].outputs;
    }
    for (int32_t o : node.outputs) bytes_.push_back(g.tensors[o].byteSize);
  }
  Status run(const KernelContext &ctx) override {
    int b = *static_cast<const uint8_t *>(ctx.inputs[0]->data) != 0 ? 0 : 1;
    WEBNN_RETURN_IF_ERROR(runner_->runSubgraph(branch_[b]));
    for (size_t k = 0; k < bytes_.size(); ++k)
      if (bytes_[k]) std::memcpy(ctx.outputs[k]->data, runner_->tensor(yields_[b][k]).data, bytes_[k]);
    return Status::ok();
  }

 private:
  SubgraphRunner *runner_;
  uint32_t branch_[2];
  std::vector<uint32_t> yields_[2];
  std::vector<uint64_t> bytes_;
};

// Iterates the body while i < trip count and the condition holds. Carried
// values live in two buffers per value: the body reads one set and its
// yields are copied into the other, then they swap, so a body that yields
// its inputs in another order (or unchanged) is still right.
class LoopKernel final : public Kernel {
 public:
  LoopKernel(const LoadedGraph &g, const LoadedNode &node, SubgraphRunner *runner)
      : runner_(runner), body_(node.subgraphs[0]), sub_(g.subgraphs[node.subgraphs[0]]) {
    for (size_t k = 2; k < sub_.inputs.size(); ++k) bytes_.push_back(g.tensors[sub_.inputs[k]].byteSize);
    for (size_t k = bytes_.size(); k < node.outputs.size(); ++k) {
      scanOutputs_.push_back(uint32_t(node.outputs[k]));
      rowBytes_.push_back(g.tensors[sub_.outputs[1 + k]].byteSize);
      bound_ = g.tensors[size_t(node.outputs[k])].shape[0];  // the same for every scan output
    }
  }
  Status allocateBuffers() {
    iteration_ = allocate(sizeof(int64_t));
    condition_ = allocate(1);
    if (!iteration_ || !condition_) return Status(StatusCode::kOutOfMemory, "loop: cannot allocate its state");
    for (uint64_t b : bytes_) {
      current_.push_back(allocate(b));
      next_.push_back(allocate(b));
      if (!current_.back() || !next_.back())
        return Status(StatusCode::kOutOfMemory, "loop: cannot allocate " + std::to_string(b) + " bytes of state");
    }
    return Status::ok();
  }
  Status run(const KernelContext &ctx) override {
    int64_t trip = INT64_MAX;
    if (ctx.inputs[0]) std::memcpy(&trip, ctx.inputs[0]->data, sizeof(trip));
    bool cond = !ctx.inputs[1] || *static_cast<const uint8_t *>(ctx.inputs[1]->data) != 0;
    const size_t n = bytes_.size();
    for (size_t k = 0; k < n; ++k)
      if (bytes_[k]) std::memcpy(current_[k].get(), ctx.inputs[2 + k]->data, bytes_[k]);
    runner_->tensor(sub_.inputs[0]).data = iteration_.get();
    runner_->tensor(sub_.inputs[1]).data = condition_.get();
    // Scan outputs hold at most bound_ rows: the loop stops there.
    if (!scanOutputs_.empty()) trip = std::min(trip, bound_);
    int64_t i = 0;
    for (; i < trip && cond; ++i) {
      WEBNN_RETURN_IF_ERROR(runner_->countLoopIteration());
      std::memcpy(iteration_.get(), &i, sizeof(i));
      *condition_ = 1;
      for (size_t k = 0; k < n; ++k) runner_->tensor(sub_.inputs[2 + k]).data = current_[k].get();
      WEBNN_RETURN_IF_ERROR(runner_->runSubgraph(body_));
      // ONNX Runtime takes the body's condition whether or not the node had one.
      cond = *static_cast<const uint8_t *>(runner_->tensor(sub_.outputs[0]).data) != 0;
      for (size_t k = 0; k < n; ++k)
        if (bytes_[k]) std::memcpy(next_[k].get(), runner_->tensor(sub_.outputs[1 + k]).data, bytes_[k]);
      for (size_t k = 0; k < rowBytes_.size(); ++k)
        if (rowBytes_[k])
          std::memcpy(static_cast<uint8_t *>(ctx.outputs[n + k]->data) + uint64_t(i) * rowBytes_[k],
                      runner_->tensor(sub_.outputs[1 + n + k]).data, rowBytes_[k]);
      std::swap(current_, next_);
    }
    for (uint32_t t : scanOutputs_) runner_->setRunRows(t, i);
    for (size_t k = 0; k < n; ++k)
      if (bytes_[k]) std::memcpy(ctx.outputs[k]->data, current_[k].get(), bytes_[k]);
    return Status::ok();
  }

 private:
  SubgraphRunner *runner_;
  uint32_t body_;
  const LoadedSubgraph &sub_;
  std::vector<uint64_t> bytes_;
  std::vector<uint32_t> scanOutputs_;  // tensors
  std::vector<uint64_t> rowBytes_;
  int64_t bound_ = 0;
  Buffer iteration_, condition_;
  std::vector<Buffer> current_, next_;
};

}  // namespace

bool isControlFlowOp(std::string_view op) { return op == "if" || op == "loop"; }

Status checkControlFlowNode(const LoadedGraph &g, const LoadedNode &node, const std::string &where) {
  auto fail = [&](const std::string &m) { return invalidArtifact(where + ": " + m); };
  auto tensor = [&](int32_t i) -> const LoadedTensor & { return g.tensors[size_t(i)]; };
  const size_t wantSubgraphs = node.op == "if" ? 2 : 1;
  if (node.subgraphs.size() != wantSubgraphs)
    return fail("has " + std::to_string(node.subgraphs.size()) + " subgraphs, expected " +
                std::to_string(wantSubgraphs));
  if (node.op == "if") {
    if (node.inputs.size() != 1 || node.inputs[0] < 0 || !isOneElement(tensor(node.inputs[0]), DataType::kUint8))
      return fail("needs one input, a one-element uint8 condition");
    for (size_t b = 0; b < 2; ++b) {
      const LoadedSubgraph &s = g.subgraphs[node.subgraphs[b]];
      const char *name = b == 0 ? "then" : "else";
      if (!s.inputs.empty()) return fail(std::string("the ") + name + " branch has inputs");
      if (s.outputs.size() != node.outputs.size())
        return fail(std::string("the ") + name + " branch yields " + std::to_string(s.outputs.size()) +
                    " values for " + std::to_string(node.outputs.size()) + " outputs");
      for (size_t k = 0; k < s.outputs.size(); ++k)
        if (!sameType(tensor(int32_t(s.outputs[k])), tensor(node.outputs[k])))
          return fail(std::string("the ") + name + " branch yields " + typeText(tensor(int32_t(s.outputs[k]))) +
                      " for output #" + std::to_string(k) + " of " + typeText(tensor(node.outputs[k])));
    }
    return Status::ok();
  }
  // loop: inputs (trip count | -1, condition | -1, initial values...);
  // body inputs (iteration, condition, carried...), yields (condition, carried...).
  if (node.inputs.size() < 2) return fail("needs a trip count and a condition slot (-1 when absent)");
  if (node.inputs[0] < 0 && node.inputs[1] < 0) return fail("has neither a trip count nor a condition");
  if (node.inputs[0] >= 0 && !isOneElement(tensor(node.inputs[0]), DataType::kInt64))
    return fail("trip count must be a one-element int64 tensor");
  if (node.inputs[1] >= 0 && !isOneElement(tensor(node.inputs[1]), DataType::kUint8))
    return fail("condition must be a one-element uint8 tensor");
  const size_t carried = node.inputs.size() - 2;
  const LoadedSubgraph &body = g.subgraphs[node.subgraphs[0]];
  // Outputs: carried values, then scan outputs (one per extra body yield).
  const size_t scans = node.outputs.size() >= carried ? node.outputs.size() - carried : 0;
  if (node.outputs.size() < carried || body.inputs.size() != carried + 2 ||
      body.outputs.size() != carried + scans + 1)
    return fail("its " + std::to_string(carried) + " carried values do not match its outputs (" +
                std::to_string(node.outputs.size()) + "), body inputs (" + std::to_string(body.inputs.size()) +
                ") and body yields (" + std::to_string(body.outputs.size()) + ")");
  for (size_t k = 0; k < scans; ++k) {
    const LoadedTensor &row = tensor(int32_t(body.outputs[1 + carried + k]));
    const LoadedTensor &out = tensor(node.outputs[carried + k]);
    if (out.shape.size() != row.shape.size() + 1 || out.dtype != row.dtype ||
        !std::equal(row.shape.begin(), row.shape.end(), out.shape.begin() + 1))
      return fail("scan output #" + std::to_string(k) + " is " + typeText(out) + ", expected a bound followed by " +
                  typeText(row));
  }
  if (!isOneElement(tensor(int32_t(body.inputs[0])), DataType::kInt64) ||
      !isOneElement(tensor(int32_t(body.inputs[1])), DataType::kUint8) ||
      !isOneElement(tensor(int32_t(body.outputs[0])), DataType::kUint8))
    return fail("the body's iteration, condition and yielded condition must be one-element int64, uint8, uint8");
  for (size_t k = 0; k < carried; ++k) {
    if (node.inputs[2 + k] < 0) return fail("carried value #" + std::to_string(k) + " has no initial value");
    const LoadedTensor &init = tensor(node.inputs[2 + k]);
    if (!sameType(init, tensor(int32_t(body.inputs[2 + k]))) ||
        !sameType(init, tensor(int32_t(body.outputs[1 + k]))) || !sameType(init, tensor(node.outputs[k])))
      return fail("carried value #" + std::to_string(k) + " must keep one type (initial value, body input, body "
                  "yield and output)");
  }
  return Status::ok();
}

Status makeControlFlowKernel(const LoadedGraph &g, const LoadedNode &node, SubgraphRunner *runner,
                             std::unique_ptr<Kernel> *out) {
  if (node.op == "if") {
    *out = std::make_unique<IfKernel>(g, node, runner);
    return Status::ok();
  }
  auto loop = std::make_unique<LoopKernel>(g, node, runner);
  WEBNN_RETURN_IF_ERROR(loop->allocateBuffers());
  *out = std::move(loop);
  return Status::ok();
}

}  // namespace webnn::rt
