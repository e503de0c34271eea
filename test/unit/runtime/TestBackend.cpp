#include "TestBackend.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace webnn::test {
namespace {

TestBackendCounters gCounters;

// "Device" memory: bytes the host reaches only by copying.
class DeviceBuffer final : public rt::BackendBuffer {
 public:
  explicit DeviceBuffer(uint64_t bytes) : bytes_(size_t(bytes ? bytes : 1)) {}
  uint64_t size() const override { return bytes_.size(); }
  void *hostPointer() const override { return nullptr; }
  uint8_t *bytes() { return bytes_.data(); }

 private:
  std::vector<uint8_t> bytes_;
};

float *at(const rt::TensorBuffer *t) {
  return reinterpret_cast<float *>(static_cast<DeviceBuffer *>(t->buffer)->bytes() + t->offset);
}

int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

class EltwiseKernel final : public rt::Kernel {
 public:
  EltwiseKernel(char op, int64_t n) : op_(op), n_(n) {}
  Status run(const rt::KernelContext &ctx) override {
    // Kernels of this backend see no host addresses, only its own buffers.
    for (size_t i = 0; i < ctx.numInputs; ++i)
      if (ctx.inputs[i]->data || !ctx.inputs[i]->buffer) return Status(StatusCode::kInternal, "input not on the device");
    if (ctx.outputs[0]->data || !ctx.outputs[0]->buffer) return Status(StatusCode::kInternal, "output not on the device");
    const float *a = at(ctx.inputs[0]);
    const float *b = ctx.numInputs > 1 ? at(ctx.inputs[1]) : nullptr;
    float *y = at(ctx.outputs[0]);
    for (int64_t i = 0; i < n_; ++i) y[i] = op_ == '+' ? a[i] + b[i] : op_ == '*' ? a[i] * b[i] : (a[i] > 0 ? a[i] : 0);
    ++gCounters.kernelRuns;
    return Status::ok();
  }

 private:
  char op_;
  int64_t n_;
};

// A grouped add and relu: inputs a, b and the sum (not computed, no
// memory), outputs y = relu(a + b) and the sum again.
class AddReluKernel final : public rt::Kernel {
 public:
  explicit AddReluKernel(int64_t n) : n_(n) {}
  Status run(const rt::KernelContext &ctx) override {
    if (ctx.inputs[2]->buffer || ctx.outputs[1]->buffer)
      return Status(StatusCode::kInternal, "a value inside a group has memory");
    const float *a = at(ctx.inputs[0]), *b = at(ctx.inputs[1]);
    float *y = at(ctx.outputs[0]);
    for (int64_t i = 0; i < n_; ++i) y[i] = a[i] + b[i] > 0 ? a[i] + b[i] : 0;
    ++gCounters.groupRuns;
    return Status::ok();
  }

 private:
  int64_t n_;
};

// A partition: its steps in turn, each a node's kernel (or a group's) on
// its operands' positions in the partition's lists (each node's inputs
// after the previous nodes', likewise the outputs), as one run.
class PartitionKernel final : public rt::Kernel {
 public:
  struct Step {
    std::unique_ptr<rt::Kernel> kernel;
    std::vector<size_t> inputs, outputs;
  };
  PartitionKernel(std::vector<Step> steps, size_t numInputs, size_t numOutputs)
      : steps_(std::move(steps)), numInputs_(numInputs), numOutputs_(numOutputs) {}
  Status run(const rt::KernelContext &ctx) override {
    if (ctx.numInputs != numInputs_ || ctx.numOutputs != numOutputs_)
      return Status(StatusCode::kInternal, "partition operands differ from its nodes'");
    for (Step &s : steps_) {
      std::vector<const rt::TensorBuffer *> ins;
      std::vector<rt::TensorBuffer *> outs;
      for (size_t i : s.inputs) ins.push_back(ctx.inputs[i]);
      for (size_t o : s.outputs) outs.push_back(ctx.outputs[o]);
      rt::KernelContext sub{ins.data(), ins.size(), outs.data(), outs.size(), ctx.backendState};
      WEBNN_RETURN_IF_ERROR(s.kernel->run(sub));
    }
    ++gCounters.partitionRuns;
    return Status::ok();
  }

 private:
  std::vector<Step> steps_;
  size_t numInputs_, numOutputs_;
};

class TestSession final : public rt::BackendSession {};

class TestBackend final : public rt::Backend {
 public:
  std::string_view name() const override { return "test"; }
  std::string_view deviceType() const override { return "test"; }
  bool hostAddressable() const override { return false; }
  bool hasOp(std::string_view op) const override { return op == "add" || op == "mul" || op == "relu"; }
  std::vector<std::string_view> opNames() const override { return {"add", "mul", "relu"}; }
  bool supports(const rt::NodeDesc &node, std::string *why) const override {
    if (!hasOp(node.op)) {
      *why = "the test backend has no '" + node.op + "'";
      return false;
    }
    for (const rt::OperandDesc *d : node.inputs)
      if (!d || d->dtype != DataType::kFloat32 || d->shape != node.outputs[0]->shape) {
        *why = "the test backend takes float32 operands of one shape";
        return false;
      }
    return true;
  }
  Status makeKernel(const rt::NodeDesc &node, std::unique_ptr<rt::Kernel> *out) override {
    std::string why;
    if (!supports(node, &why)) return unsupported(why);
    out->reset(new EltwiseKernel(node.op == "add" ? '+' : node.op == "mul" ? '*' : 'r', count(node.outputs[0]->shape)));
    return Status::ok();
  }
  void groupPartitionNodes(const std::vector<const rt::NodeDesc *> &nodes, const std::vector<bool> &readOutside,
                           std::vector<std::vector<uint32_t>> *groups) const override {
    (void)readOutside;  // proposed regardless: the executor must drop what it cannot honour
    groups->clear();
    if (!gCounters.groupAddRelu) return;
    for (uint32_t k = 0; k < nodes.size(); ++k)
      for (uint32_t j = k + 1; j < nodes.size(); ++j)
        if (nodes[k]->op == "add" && nodes[j]->op == "relu" && nodes[j]->inputs[0] == nodes[k]->outputs[0])
          groups->push_back({k, j});
  }
  Status makePartitionKernel(const std::vector<const rt::NodeDesc *> &nodes,
                             const std::vector<std::vector<uint32_t>> &groups,
                             std::unique_ptr<rt::Kernel> *out) override {
    if (gCounters.refuseGroups && !groups.empty()) return unsupported("the test backend refuses its groups");
    std::vector<size_t> inputBase(nodes.size() + 1, 0), outputBase(nodes.size() + 1, 0);
    for (size_t k = 0; k < nodes.size(); ++k) {
      inputBase[k + 1] = inputBase[k] + nodes[k]->inputs.size();
      outputBase[k + 1] = outputBase[k] + nodes[k]->outputs.size();
    }
    std::vector<int> groupEnding(nodes.size(), -1);
    std::vector<bool> grouped(nodes.size(), false);
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const std::vector<uint32_t> &g = groups[gi];
      if (g.size() != 2 || nodes[g[0]]->op != "add" || nodes[g[1]]->op != "relu")
        return invalidArgument("the test backend groups an add and a relu only");
      grouped[g[0]] = grouped[g[1]] = true;
      groupEnding[g[1]] = int(gi);
    }
    std::vector<PartitionKernel::Step> steps;
    for (size_t k = 0; k < nodes.size(); ++k) {
      PartitionKernel::Step st;
      if (groupEnding[k] >= 0) {
        const size_t add = groups[size_t(groupEnding[k])][0];
        st.kernel.reset(new AddReluKernel(count(nodes[k]->outputs[0]->shape)));
        st.inputs = {inputBase[add], inputBase[add] + 1, inputBase[k]};
        st.outputs = {outputBase[k], outputBase[add]};
      } else if (grouped[k]) {
        continue;  // run by its group's step
      } else {
        WEBNN_RETURN_IF_ERROR(makeKernel(*nodes[k], &st.kernel));
        for (size_t i = inputBase[k]; i < inputBase[k + 1]; ++i) st.inputs.push_back(i);
        for (size_t o = outputBase[k]; o < outputBase[k + 1]; ++o) st.outputs.push_back(o);
      }
      steps.push_back(std::move(st));
    }
    out->reset(new PartitionKernel(std::move(steps), inputBase.back(), outputBase.back()));
    return Status::ok();
  }
  Status createSession(int, std::unique_ptr<rt::BackendSession> *out) override {
    out->reset(new TestSession());
    return Status::ok();
  }
  Status allocate(uint64_t bytes, std::unique_ptr<rt::BackendBuffer> *out) override {
    out->reset(new DeviceBuffer(bytes));
    return Status::ok();
  }
  Status mapConstants(const void *host, uint64_t bytes, std::unique_ptr<rt::BackendBuffer> *out) override {
    auto *b = new DeviceBuffer(bytes);
    if (bytes) std::memcpy(b->bytes(), host, size_t(bytes));
    out->reset(b);
    ++gCounters.uploads;
    return Status::ok();
  }
  Status copyToBackend(const void *host, rt::BackendBuffer *dst, uint64_t offset, uint64_t bytes) override {
    if (!host || offset + bytes > dst->size()) return invalidArgument("test backend: copy out of range");
    std::memcpy(static_cast<DeviceBuffer *>(dst)->bytes() + offset, host, size_t(bytes));
    ++gCounters.toDevice;
    return Status::ok();
  }
  Status copyToHost(const rt::BackendBuffer *src, uint64_t offset, void *host, uint64_t bytes) override {
    if (!host || offset + bytes > src->size()) return invalidArgument("test backend: copy out of range");
    std::memcpy(host, const_cast<DeviceBuffer *>(static_cast<const DeviceBuffer *>(src))->bytes() + offset,
                size_t(bytes));
    ++gCounters.toHost;
    return Status::ok();
  }
};

}  // namespace

TestBackendCounters &registerTestBackend() {
  static std::once_flag once;
  std::call_once(once, [] { rt::registerBackend(std::make_unique<TestBackend>()); });
  return gCounters;
}

}  // namespace webnn::test
