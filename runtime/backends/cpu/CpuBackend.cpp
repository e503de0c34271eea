#include "runtime/backends/cpu/CpuBackend.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/backends/cpu/CpuOpSupport.h"
#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/RowPitch.h"
#include "runtime/core/Log.h"

namespace webnn::cpu {
namespace {

constexpr uint64_t kAlignment = 64;

// Host memory: an arena the backend allocated, or constants it wraps.
class HostBuffer final : public rt::BackendBuffer {
 public:
  HostBuffer(void *data, uint64_t bytes, bool owned) : data_(data), bytes_(bytes), owned_(owned) {}
  ~HostBuffer() override {
    if (owned_) std::free(data_);
  }
  uint64_t size() const override { return bytes_; }
  void *hostPointer() const override { return data_; }

 private:
  void *data_;
  uint64_t bytes_;
  bool owned_;
};

class CpuSession final : public rt::BackendSession {
 public:
  explicit CpuSession(int numThreads) : pool_(numThreads) { kernelState_ = &pool_; }
  int numThreads() const override { return pool_.numThreads(); }
  void startWorkers() override { pool_.startWorkers(); }
  void setThreadWait(ThreadWait wait) override {
    pool_.setWaitPolicy(wait == ThreadWait::kSpin    ? WaitPolicy::kSpin
                        : wait == ThreadWait::kBlock ? WaitPolicy::kBlock
                                                     : WaitPolicy::kDefault);
  }
  ThreadWait threadWait() const override {
    switch (pool_.waitPolicy()) {
      case WaitPolicy::kSpin: return ThreadWait::kSpin;
      case WaitPolicy::kBlock: return ThreadWait::kBlock;
      case WaitPolicy::kDefault: break;
    }
    return ThreadWait::kDefault;
  }

 private:
  ThreadPool pool_;
};

// Kernel choices (kernels/KernelCandidates.h) at info level (webnn-run
// --verbose): which candidate made each conv2d kernel and why the ones
// before it refused.
void logKernelChoice(const kernels::KernelChoice &choice) {
  if (rt::logEnabled(LogLevel::kInfo)) rt::log(LogLevel::kInfo, "cpu kernel: " + choice.describe());
}

class CpuBackend final : public rt::Backend {
 public:
  CpuBackend() { kernels::setKernelChoiceLog(&logKernelChoice); }
  std::string_view name() const override { return "cpu"; }
  std::string_view deviceType() const override { return "cpu"; }
  bool hostAddressable() const override { return true; }
  bool hasOp(std::string_view op) const override { return findCpuKernel(op) != nullptr; }
  std::vector<std::string_view> opNames() const override { return cpuKernelNames(); }
  const rt::OpSupportTable *opSupportLimits() const override { return &cpuOpSupport(); }
  bool supports(const NodeDesc &node, std::string *why) const override {
    // Types, ranks and options are checked by the op's factory, whose error
    // is the reason; here only whether the op exists.
    if (findCpuKernel(node.op)) return true;
    *why = "no CPU kernel for op '" + node.op + "'";
    return false;
  }
  // Strided operands (the concat-view plan): a kernel that does not honour
  // them runs on dense copies (kernels/RowPitch.h); a pair that does not
  // leaves its two nodes apart.
  bool takesRowPitch() const override { return true; }
  Status makeKernel(const NodeDesc &node, std::unique_ptr<Kernel> *out) override {
    KernelFactory factory = findCpuKernel(node.op);
    if (!factory) return unsupported("no kernel for op '" + node.op + "' in backend 'cpu'");
    if (!kernels::hasRowPitch(node)) return factory(node, out);
    // Only the ops below read or write a pitch themselves; every other
    // kernel (and one of theirs that says it does not, such as the float16
    // adapter's or a convolution's other than oneDNN's) is made for dense
    // operands and runs on dense copies.
    const bool own = node.op == "concat" || node.op == "batchNormalization" || node.op == "maxPool2d" ||
                     node.op == "averagePool2d" || node.op == "conv2d" || node.op == "fusedConv2d";
    if (own) {
      WEBNN_RETURN_IF_ERROR(factory(node, out));
      if ((*out)->honoursRowPitch()) return Status::ok();
    }
    return kernels::makeRowPitchAdapter(node, factory, out);
  }
  Status makeKernelPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out) override {
    WEBNN_RETURN_IF_ERROR(makeCpuKernelPair(producer, consumer, out));
    if (*out && !(*out)->honoursRowPitch() && (kernels::hasRowPitch(producer) || kernels::hasRowPitch(consumer)))
      out->reset();
    return Status::ok();
  }
  Status createSession(int numThreads, std::unique_ptr<rt::BackendSession> *out) override {
    out->reset(new CpuSession(numThreads));
    return Status::ok();
  }
  // 64-byte aligned, at least one line. From 2 MiB up, in transparent huge
  // pages where the system allows them: the first run then faults in a few
  // zeroed 2 MiB pages instead of thousands of 4 KiB ones (a third off
  // MobileNetV2's first run).
  Status allocate(uint64_t bytes, std::unique_ptr<rt::BackendBuffer> *out) override {
    uint64_t rounded = bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void *p = nullptr;
    if (rounded >= bytes && rounded <= uint64_t(SIZE_MAX)) {
      if (rounded >= kHugePageBytes) {
        size_t allocated = 0;
        p = allocateHugePages(size_t(rounded), &allocated);
      } else {
        p = std::aligned_alloc(kAlignment, size_t(rounded));
      }
    }
    if (!p) return Status(StatusCode::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes");
    out->reset(new HostBuffer(p, bytes, true));
    return Status::ok();
  }
  Status mapConstants(const void *host, uint64_t bytes, std::unique_ptr<rt::BackendBuffer> *out) override {
    out->reset(new HostBuffer(const_cast<void *>(host), bytes, false));  // kernels only read constants
    return Status::ok();
  }
  Status copyToBackend(const void *host, rt::BackendBuffer *dst, uint64_t offset, uint64_t bytes) override {
    if (offset > dst->size() || bytes > dst->size() - offset) return invalidArgument("copy past the buffer's end");
    if (bytes) std::memcpy(static_cast<uint8_t *>(dst->hostPointer()) + offset, host, size_t(bytes));
    return Status::ok();
  }
  Status copyToHost(const rt::BackendBuffer *src, uint64_t offset, void *host, uint64_t bytes) override {
    if (offset > src->size() || bytes > src->size() - offset) return invalidArgument("copy past the buffer's end");
    if (bytes) std::memcpy(host, static_cast<const uint8_t *>(src->hostPointer()) + offset, size_t(bytes));
    return Status::ok();
  }
  bool relaxedPrecisionSupport(std::string *why) const override { return cpu::relaxedPrecisionSupport(why); }
  // -march=x86-64-v3 (CMakeLists.txt), plus the kernels' AVX-512 dispatch test.
  std::string hostIsa() const override {
    return kernels::avx512Available() ? "x86-64-v3+avx512-vnni" : "x86-64-v3";
  }
};

}  // namespace
}  // namespace webnn::cpu

namespace webnn::rt {

Backend *createCpuBackend() { return new cpu::CpuBackend(); }

}  // namespace webnn::rt
