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

// A partition: each node's kernel in turn on its slice of the partition's
// operand lists (each node's inputs after the previous nodes', likewise the
// outputs), as one run.
class PartitionKernel final : public rt::Kernel {
 public:
  struct Step {
    std::unique_ptr<rt::Kernel> kernel;
    size_t numInputs, numOutputs;
  };
  explicit PartitionKernel(std::vector<Step> steps) : steps_(std::move(steps)) {}
  Status run(const rt::KernelContext &ctx) override {
    size_t in = 0, out = 0;
    for (Step &s : steps_) {
      if (in + s.numInputs > ctx.numInputs || out + s.numOutputs > ctx.numOutputs)
        return Status(StatusCode::kInternal, "partition operands missing");
      rt::KernelContext sub{ctx.inputs + in, s.numInputs, ctx.outputs + out, s.numOutputs, ctx.backendState};
      WEBNN_RETURN_IF_ERROR(s.kernel->run(sub));
      in += s.numInputs, out += s.numOutputs;
    }
    if (in != ctx.numInputs || out != ctx.numOutputs) return Status(StatusCode::kInternal, "partition operands left over");
    ++gCounters.partitionRuns;
    return Status::ok();
  }

 private:
  std::vector<Step> steps_;
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
  Status makePartitionKernel(const std::vector<const rt::NodeDesc *> &nodes,
                             const std::vector<std::vector<uint32_t>> &groups,
                             std::unique_ptr<rt::Kernel> *out) override {
    (void)groups;  // proposes none
    std::vector<PartitionKernel::Step> steps;
    for (const rt::NodeDesc *n : nodes) {
      PartitionKernel::Step st{nullptr, n->inputs.size(), n->outputs.size()};
      WEBNN_RETURN_IF_ERROR(makeKernel(*n, &st.kernel));
      steps.push_back(std::move(st));
    }
    out->reset(new PartitionKernel(std::move(steps)));
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
