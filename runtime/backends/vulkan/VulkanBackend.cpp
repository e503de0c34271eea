// The Vulkan backend behind the core's Backend interface (core/Backend.h,
// docs/BACKENDS.md): nodes the executor places on "gpu"/"vulkan" run here,
// its memory is device memory (not host-addressable: the executor copies
// across with copyToBackend/copyToHost). A partition (consecutive nodes
// placed here, Backend::makePartitionKernel) is one kernel: every node's
// dispatches, with a barrier after each, recorded once per binding signature
// into one command buffer and replayed at every run, one submit and one wait;
// its intermediate tensors stay in the session's device arena. A node alone
// between CPU nodes is such a kernel of its own.
//
// The device is created on first need, not when the runtime lists its
// backends: a process that never asks for the GPU never opens libvulkan.
// $WEBNN_VULKAN_DEVICE picks device N (default: the first discrete GPU).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "Shaders.h"
#include "backends/vulkan/ChainFusion.h"
#include "backends/vulkan/VulkanDevice.h"
#include "backends/vulkan/VulkanKernel.h"
#include "backends/vulkan/VulkanOpSupport.h"
#include "backends/vulkan/VulkanProgram.h"
#include "backends/vulkan/kernels/ElementwiseChain.h"
#include "backends/vulkan/VulkanBackend.h"
#include "core/Backend.h"

namespace webnn::vk {
namespace {

// What the backend's kernels and copies did in this process (VulkanBackend.h).
std::atomic<uint64_t> gSubmits{0}, gCopySubmits{0}, gRecordings{0}, gDispatchesRecorded{0}, gRecordNs{0}, gPipelineNs{0};
std::atomic<uint64_t> gConstantBytes{0}, gFp16WeightBytes{0}, gFp16Nodes{0}, gRelaxedFloat32Nodes{0};
std::atomic<uint64_t> gCoopmatNodes{0};
std::mutex gNoteMutex;
std::string gRelaxedFloat32Note;  // guarded by gNoteMutex

// A kernel made for a relaxed-precision dot product: counted by whether
// its weight reaches it as float16 (the executor asked constantStorageType
// of every node here reading it) or stays float32, and why.
void countRelaxedKernel(const NodeDesc &node) {
  int w = relaxedWeightOperand(node);
  if (w < 0) return;
  if (node.inputs[size_t(w)]->dtype == DataType::kFloat16) {
    gFp16Nodes.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  gRelaxedFloat32Nodes.fetch_add(1, std::memory_order_relaxed);
  relaxedFloat16Enabled(/*warn=*/true);
  std::lock_guard<std::mutex> lock(gNoteMutex);
  if (gRelaxedFloat32Note.empty())
    gRelaxedFloat32Note = node.op + " '" + node.name + "': " + relaxedFloat32Reason(node, w);
}

uint64_t nsSince(std::chrono::steady_clock::time_point start) {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}
std::atomic<bool> gDeviceCreated{false};

Status countedSubmit(Device &device, VkCommandBuffer cmd) {
  gSubmits.fetch_add(1, std::memory_order_relaxed);
  return device.submitAndWait(cmd);
}

Status vkFail(const char *what, VkResult r) {
  return Status(r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? StatusCode::kOutOfMemory
                                                                                          : StatusCode::kInternal,
                std::string("Vulkan: ") + what + " failed: " + vkResultName(r));
}

// The process's device for this backend, created once.
Status backendDevice(std::shared_ptr<Device> **out) {
  static std::shared_ptr<Device> device;
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    Device::Options o = Device::defaultOptions();
    const char *n = std::getenv("WEBNN_VULKAN_DEVICE");
    if (n && *n) o.index = std::atoi(n);
    status = Device::create(o, &device);
    gDeviceCreated.store(status.isOk());
  });
  *out = &device;
  return status;
}

class VulkanBuffer final : public rt::BackendBuffer {
 public:
  VulkanBuffer(std::shared_ptr<Device> d, DeviceBuffer b) : device_(std::move(d)), buffer_(b) {}
  ~VulkanBuffer() override { device_->destroyBuffer(&buffer_); }
  uint64_t size() const override { return buffer_.bytes; }
  // Device memory, also where the driver maps it: the executor reaches it
  // through the backend's copies only.
  void *hostPointer() const override { return nullptr; }
  const DeviceBuffer &buffer() const { return buffer_; }

 private:
  std::shared_ptr<Device> device_;
  DeviceBuffer buffer_;
};

// Copies between host memory and a device buffer: through its mapping where
// the memory is host-visible, else through a staging buffer and one submit.
Status copyBuffer(Device &device, const DeviceBuffer &b, uint64_t offset, void *host, uint64_t bytes, bool toDevice) {
  if (offset > b.bytes || bytes > b.bytes - offset) return invalidArgument("copy past the end of a GPU buffer");
  if (bytes == 0) return Status::ok();
  if (b.mapped) {
    uint8_t *p = static_cast<uint8_t *>(b.mapped) + offset;
    if (toDevice) {
      std::memcpy(p, host, bytes);
      device.flush(b);
    } else {
      device.invalidate(b);
      std::memcpy(host, p, bytes);
    }
    return Status::ok();
  }
  DeviceBuffer staging;
  WEBNN_RETURN_IF_ERROR(device.createBuffer(bytes, Device::Memory::kHostVisible, &staging));
  if (toDevice) {
    std::memcpy(staging.mapped, host, bytes);
    device.flush(staging);
  }
  const VulkanFunctions &fn = device.fn();
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = device.commandPool();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  VkResult r = fn.vkAllocateCommandBuffers(device.device(), &ai, &cmd);
  if (r != VK_SUCCESS) {
    device.destroyBuffer(&staging);
    return vkFail("vkAllocateCommandBuffers", r);
  }
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  fn.vkBeginCommandBuffer(cmd, &bi);
  VkBufferCopy region = toDevice ? VkBufferCopy{0, offset, bytes} : VkBufferCopy{offset, 0, bytes};
  fn.vkCmdCopyBuffer(cmd, toDevice ? staging.buffer : b.buffer, toDevice ? b.buffer : staging.buffer, 1, &region);
  fn.vkEndCommandBuffer(cmd);
  gCopySubmits.fetch_add(1, std::memory_order_relaxed);
  Status s = countedSubmit(device, cmd);
  fn.vkFreeCommandBuffers(device.device(), device.commandPool(), 1, &cmd);
  if (s.isOk() && !toDevice) {
    device.invalidate(staging);
    std::memcpy(host, staging.mapped, bytes);
  }
  device.destroyBuffer(&staging);
  return s;
}

class VulkanNodeKernel final : public rt::Kernel {
 public:
  VulkanNodeKernel(std::shared_ptr<Device> device, std::string label, KernelPlan plan)
      : device_(std::move(device)), label_(std::move(label)), plan_(std::move(plan)) {}
  ~VulkanNodeKernel() override {
    const VulkanFunctions &fn = device_->fn();
    if (commands_) fn.vkFreeCommandBuffers(device_->device(), device_->commandPool(), 1, &commands_);
    if (pool_) fn.vkDestroyDescriptorPool(device_->device(), pool_, nullptr);
  }

  // Session creation: the pipelines (a driver's shader compile), so they
  // leave the first run. A failure is left for run() to meet.
  void warmUp(int numThreads) override {
    (void)numThreads;
    std::lock_guard<std::mutex> lock(mutex_);
    (void)ensurePipelines();
  }

  Status run(const rt::KernelContext &ctx) override {
    if (plan_.dispatches.empty()) return Status::ok();
    std::lock_guard<std::mutex> lock(mutex_);  // uncontended but for a warm-up in flight
    // The (buffer, offset) of every binding: the command buffer recorded for
    // them is replayed while they stay the same.
    std::vector<uint64_t> signature;
    for (const Dispatch &d : plan_.dispatches)
      for (const BindingRef &ref : d.bindings) {
        const rt::TensorBuffer *t = ref.kind == BindingRef::Kind::kInput
                                        ? (ref.index < ctx.numInputs ? ctx.inputs[ref.index] : nullptr)
                                        : (ref.index < ctx.numOutputs ? ctx.outputs[ref.index] : nullptr);
        auto *vb = t ? dynamic_cast<const VulkanBuffer *>(t->buffer) : nullptr;
        if (!vb) return Status(StatusCode::kInternal, label_ + ": a GPU kernel's operand is not in GPU memory");
        signature.push_back(reinterpret_cast<uint64_t>(vb->buffer().buffer));
        signature.push_back(t->offset);
      }
    if (!commands_ || signature != signature_) {
      WEBNN_RETURN_IF_ERROR(record(ctx));
      signature_ = std::move(signature);
    }
    WEBNN_RETURN_IF_ERROR(countedSubmit(*device_, commands_));
    std::vector<std::string> messages = device_->takeValidationMessages();
    if (!messages.empty()) return Status(StatusCode::kInternal, "Vulkan validation: " + messages.front());
    return Status::ok();
  }

 private:
  Status record(const rt::KernelContext &ctx) {
    const VulkanFunctions &fn = device_->fn();
    WEBNN_RETURN_IF_ERROR(ensurePipelines());
    auto start = std::chrono::steady_clock::now();
    Status s = recordCommands(ctx);
    if (!s.isOk()) {
      // Not replayable: a later run records again.
      if (commands_) fn.vkFreeCommandBuffers(device_->device(), device_->commandPool(), 1, &commands_);
      commands_ = VK_NULL_HANDLE;
      return s;
    }
    gRecordings.fetch_add(1, std::memory_order_relaxed);
    gDispatchesRecorded.fetch_add(plan_.dispatches.size(), std::memory_order_relaxed);
    gRecordNs.fetch_add(nsSince(start), std::memory_order_relaxed);
    return s;
  }

  // Every dispatch's pipeline, made once (from the device's map where
  // another kernel made it already).
  Status ensurePipelines() {
    if (pipelines_.size() == plan_.dispatches.size()) return Status::ok();
    auto start = std::chrono::steady_clock::now();
    std::vector<const Pipeline *> made;
    for (const Dispatch &d : plan_.dispatches) {
      std::vector<uint32_t> spec = {d.localSize};
      spec.insert(spec.end(), d.spec.begin(), d.spec.end());
      const Pipeline *p = nullptr;
      WEBNN_RETURN_IF_ERROR(device_->pipeline(d.shader->words, d.shader->count, spec, uint32_t(d.bindings.size()), &p));
      made.push_back(p);
    }
    pipelines_ = std::move(made);
    gPipelineNs.fetch_add(nsSince(start), std::memory_order_relaxed);
    return Status::ok();
  }

  // A descriptor set per dispatch and the command buffer, for the bindings
  // `ctx` holds.
  Status recordCommands(const rt::KernelContext &ctx) {
    const VulkanFunctions &fn = device_->fn();
    VkDevice dev = device_->device();
    if (pool_) fn.vkDestroyDescriptorPool(dev, pool_, nullptr), pool_ = VK_NULL_HANDLE;
    uint32_t descriptors = 0;
    for (const Dispatch &d : plan_.dispatches) descriptors += uint32_t(d.bindings.size());
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(descriptors, 1)};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = uint32_t(plan_.dispatches.size());
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VkResult r = fn.vkCreateDescriptorPool(dev, &pi, nullptr, &pool_);
    if (r != VK_SUCCESS) return vkFail("vkCreateDescriptorPool", r);
    if (!commands_) {
      VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      ai.commandPool = device_->commandPool();
      ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      ai.commandBufferCount = 1;
      r = fn.vkAllocateCommandBuffers(dev, &ai, &commands_);
      if (r != VK_SUCCESS) return vkFail("vkAllocateCommandBuffers", r);
    }
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    r = fn.vkBeginCommandBuffer(commands_, &bi);
    if (r != VK_SUCCESS) return vkFail("vkBeginCommandBuffer", r);
    const uint64_t maxRange = device_->info().maxStorageBufferRange;
    for (size_t k = 0; k < plan_.dispatches.size(); ++k) {
      const Dispatch &d = plan_.dispatches[k];
      const Pipeline *p = pipelines_[k];
      std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
      for (size_t b = 0; b < d.bindings.size(); ++b) {
        const BindingRef &ref = d.bindings[b];
        const rt::TensorBuffer *t = ref.kind == BindingRef::Kind::kInput ? ctx.inputs[ref.index] : ctx.outputs[ref.index];
        const auto *vb = static_cast<const VulkanBuffer *>(t->buffer);
        uint64_t bytes = 0;
        tensorByteSize(t->dtype, *t->shape, &bytes);
        uint64_t range = ref.byteRange ? ref.byteRange : bytes - std::min(bytes, ref.byteOffset);
        if (range > maxRange)
          return unsupported(label_ + ": a binding of " + std::to_string(range) +
                             " bytes exceeds the GPU's maxStorageBufferRange (" + std::to_string(maxRange) + ")");
        infos[b].buffer = vb->buffer().buffer;
        infos[b].offset = t->offset + ref.byteOffset;
        infos[b].range = std::max<uint64_t>((range + 3) / 4 * 4, 4);
        if (infos[b].offset + infos[b].range > vb->buffer().bytes) infos[b].range = VK_WHOLE_SIZE;
      }
      WEBNN_RETURN_IF_ERROR(recordDispatch(*device_, commands_, pool_, *p, d, infos));
    }
    r = fn.vkEndCommandBuffer(commands_);
    if (r != VK_SUCCESS) return vkFail("vkEndCommandBuffer", r);
    return Status::ok();
  }

  std::shared_ptr<Device> device_;
  std::string label_;
  KernelPlan plan_;
  std::mutex mutex_;  // warmUp against run
  std::vector<const Pipeline *> pipelines_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  std::vector<uint64_t> signature_;
};

class VulkanSession final : public rt::BackendSession {
 public:
  explicit VulkanSession(std::shared_ptr<Device> d) : device_(std::move(d)) { kernelState_ = device_.get(); }

 private:
  std::shared_ptr<Device> device_;
};

// WEBNN_VULKAN_PARTITIONS=0: the executor's nodes one by one, a submit each
// (to compare, or to find which node of a partition fails).
bool partitionsEnabled() {
  const char *env = std::getenv("WEBNN_VULKAN_PARTITIONS");
  return !(env && std::strcmp(env, "0") == 0);
}

// A partition's nodes as a program's node list for ChainFusion: a tensor
// per distinct operand; one a node makes is an intermediate unless
// readOutside says its node's outputs are read after the partition.
std::vector<ProgramNode> programNodes(const std::vector<const NodeDesc *> &nodes,
                                      const std::vector<bool> &readOutside, std::vector<ProgramTensor> *tensors) {
  std::unordered_map<const OperandDesc *, int32_t> index;
  auto tensorOf = [&](const OperandDesc *o, ProgramTensor::Role role) -> int32_t {
    if (!o) return -1;
    auto [it, added] = index.emplace(o, int32_t(tensors->size()));
    if (added) {
      ProgramTensor t;
      t.dtype = o->dtype;
      t.shape = o->shape;
      t.role = o->constantData ? ProgramTensor::Role::kConstant : role;
      t.constantData = o->constantData;
      tensors->push_back(std::move(t));
    }
    return it->second;
  };
  std::vector<ProgramNode> program(nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) {
    program[k].desc = nodes[k];
    for (const OperandDesc *o : nodes[k]->inputs) program[k].inputs.push_back(tensorOf(o, ProgramTensor::Role::kInput));
    for (const OperandDesc *o : nodes[k]->outputs) {
      int32_t t = tensorOf(o, ProgramTensor::Role::kIntermediate);
      (*tensors)[size_t(t)].role = readOutside[k] ? ProgramTensor::Role::kOutput : ProgramTensor::Role::kIntermediate;
      program[k].outputs.push_back(t);
    }
  }
  return program;
}

class VulkanBackend final : public rt::Backend {
 public:
  std::string_view name() const override { return "vulkan"; }
  std::string_view deviceType() const override { return "gpu"; }
  bool hostAddressable() const override { return false; }
  bool hasOp(std::string_view op) const override { return findVulkanKernel(op) != nullptr; }
  std::vector<std::string_view> opNames() const override { return vulkanKernelNames(); }

  const rt::OpSupportTable *opSupportLimits() const override { return &vulkanOpSupport(); }

  // The table first (the same answer the compiler's placement got), then
  // the kernel factory, which also checks options and this device's limits.
  bool supports(const NodeDesc &node, std::string *why) const override {
    VulkanKernelFactory f = findVulkanKernel(node.op);
    if (!f) {
      *why = "no GPU kernel for " + node.op;
      return false;
    }
    // (An op with a kernel but no table entry yet is the factory's alone to
    // judge; VulkanOpSupportTest fails until the table lists it.)
    if (vulkanOpSupport().find(node.op) && !rt::withinLimits(vulkanOpSupport(), node, why)) {
      *why = node.op + " '" + node.name + "': " + *why + " (GPU)";
      return false;
    }
    std::shared_ptr<Device> *device;
    Status s = backendDevice(&device);
    if (!s.isOk()) {
      *why = s.message();
      return false;
    }
    KernelPlan plan;
    s = f(node, (*device)->info(), &plan);
    if (!s.isOk()) *why = s.message();
    return s.isOk();
  }

  Status makeKernel(const NodeDesc &node, std::unique_ptr<rt::Kernel> *out) override {
    VulkanKernelFactory f = findVulkanKernel(node.op);
    if (!f) return unsupported("no GPU kernel for " + node.op);
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    KernelPlan plan;
    WEBNN_RETURN_IF_ERROR(f(node, (*device)->info(), &plan));
    if (usesCoopmat(plan)) gCoopmatNodes.fetch_add(1, std::memory_order_relaxed);
    *out = std::make_unique<VulkanNodeKernel>(*device, node.op + " '" + node.name + "'", std::move(plan));
    countRelaxedKernel(node);
    return Status::ok();
  }

  // Relaxed precision (docs/GPU.md): a relaxed conv2d/matmul/gemm's
  // constant float32 weight as float16 where every value fits; its kernel
  // then reads float16 (FILTER_DT / B_DT) and the products stay float32.
  // The executor keeps it float32 where another node here reads it otherwise.
  DataType constantStorageType(const NodeDesc &node, size_t operand) const override {
    const OperandDesc &o = *node.inputs[operand];
    if (relaxedWeightOperand(node) != int(operand) || !relaxedFloat16Enabled() ||
        !storableAsFloat16(o.dtype, o.constantData, o.shape))
      return o.dtype;
    return DataType::kFloat16;
  }

  Status mapConstantAs(const OperandDesc &constant, DataType storage,
                       std::unique_ptr<rt::BackendBuffer> *out) override {
    int64_t count = 0;
    if (storage != DataType::kFloat16 || constant.dtype != DataType::kFloat32 || !constant.constantData ||
        !elementCount(constant.shape, &count))
      return invalidArgument("the GPU keeps only float32 constants as float16");
    const uint64_t bytes = uint64_t(count) * 2;
    WEBNN_RETURN_IF_ERROR(allocate(bytes, out));
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    const DeviceBuffer &b = static_cast<VulkanBuffer *>(out->get())->buffer();
    // Converted in place where the memory is host-visible, else through a
    // host copy and the staging path.
    if (b.mapped) {
      convertToFloat16(constant.constantData, uint64_t(count), b.mapped);
      (*device)->flush(b);
    } else {
      std::vector<uint8_t> half(bytes);
      convertToFloat16(constant.constantData, uint64_t(count), half.data());
      WEBNN_RETURN_IF_ERROR(copyBuffer(**device, b, 0, half.data(), bytes, true));
    }
    gConstantBytes.fetch_add(bytes, std::memory_order_relaxed);
    gFp16WeightBytes.fetch_add(bytes, std::memory_order_relaxed);
    return Status::ok();
  }

  // The partition's elementwise chains (ChainFusion.cpp), each to run as
  // one dispatch: found as the whole-graph program finds them, a value read
  // outside the partition counting as a program output (never fused away).
  void groupPartitionNodes(const std::vector<const NodeDesc *> &nodes, const std::vector<bool> &readOutside,
                           std::vector<std::vector<uint32_t>> *groups) const override {
    groups->clear();
    if (!partitionsEnabled()) return;
    std::shared_ptr<Device> *device;
    if (!backendDevice(&device).isOk()) return;
    std::vector<ProgramTensor> tensors;
    std::vector<ProgramNode> program = programNodes(nodes, readOutside, &tensors);
    for (const ElementwiseChain &c : findElementwiseChains((*device)->info(), tensors, program))
      groups->emplace_back(c.nodes.begin(), c.nodes.end());
  }

  // Every node's dispatches in one plan, their bindings renumbered into the
  // partition's operand lists (each node's inputs after the previous
  // nodes', likewise the outputs): one command buffer, one submit per run.
  // A group is its chain node's dispatch in its last node's place, bound to
  // the operands its nodes read (the values inside it have no memory).
  Status makePartitionKernel(const std::vector<const NodeDesc *> &nodes,
                             const std::vector<std::vector<uint32_t>> &groups,
                             std::unique_ptr<rt::Kernel> *out) override {
    out->reset();
    if (!partitionsEnabled()) return Status::ok();
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    std::vector<uint32_t> inputBase(nodes.size() + 1, 0), outputBase(nodes.size() + 1, 0);
    for (size_t k = 0; k < nodes.size(); ++k) {
      inputBase[k + 1] = inputBase[k] + uint32_t(nodes[k]->inputs.size());
      outputBase[k + 1] = outputBase[k] + uint32_t(nodes[k]->outputs.size());
    }
    // Per node: the group it ends, or -2 inside a group (run by its last
    // node), -1 alone.
    std::vector<int> groupAt(nodes.size(), -1);
    for (size_t gi = 0; gi < groups.size(); ++gi)
      for (uint32_t k : groups[gi]) {
        if (k >= nodes.size()) return invalidArgument("a node group past the partition");
        groupAt[k] = k == groups[gi].back() ? int(gi) : -2;
      }
    std::vector<ProgramTensor> tensors;
    std::vector<ProgramNode> program;
    if (!groups.empty()) program = programNodes(nodes, std::vector<bool>(nodes.size(), true), &tensors);
    KernelPlan merged;
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (groupAt[k] == -2) continue;
      KernelPlan plan;
      if (groupAt[k] >= 0) {
        const std::vector<uint32_t> &group = groups[size_t(groupAt[k])];
        ElementwiseChain chain;
        WEBNN_RETURN_IF_ERROR(elementwiseChainOf((*device)->info(), program,
                                                 std::vector<size_t>(group.begin(), group.end()), &chain));
        WEBNN_RETURN_IF_ERROR(makeElementwiseChain(*chain.desc, (*device)->info(), &plan));
        // The chain node's input m is the first read of its tensor among
        // the group's nodes; its output is the last node's.
        std::vector<uint32_t> inputAt(chain.inputs.size(), UINT32_MAX);
        for (size_t m = 0; m < chain.inputs.size(); ++m)
          for (size_t j = 0; j < group.size() && inputAt[m] == UINT32_MAX; ++j) {
            const std::vector<int32_t> &ins = program[group[j]].inputs;
            for (size_t p = 0; p < ins.size() && inputAt[m] == UINT32_MAX; ++p)
              if (ins[p] == chain.inputs[m]) inputAt[m] = inputBase[group[j]] + uint32_t(p);
          }
        for (Dispatch &d : plan.dispatches)
          for (BindingRef &ref : d.bindings)
            ref.index = ref.kind == BindingRef::Kind::kInput ? inputAt.at(ref.index) : outputBase[k] + ref.index;
      } else {
        const NodeDesc *node = nodes[k];
        VulkanKernelFactory f = findVulkanKernel(node->op);
        if (!f) return unsupported("no GPU kernel for " + node->op);
        Status s = f(*node, (*device)->info(), &plan);
        if (!s.isOk()) return Status(s.code(), node->op + " '" + node->name + "': " + s.message());
        if (usesCoopmat(plan)) gCoopmatNodes.fetch_add(1, std::memory_order_relaxed);
        for (Dispatch &d : plan.dispatches)
          for (BindingRef &ref : d.bindings)
            ref.index += ref.kind == BindingRef::Kind::kInput ? inputBase[k] : outputBase[k];
      }
      for (Dispatch &d : plan.dispatches) merged.dispatches.push_back(std::move(d));
    }
    std::string label = "partition of " + std::to_string(nodes.size()) + " nodes from " + nodes.front()->op + " '" +
                        nodes.front()->name + "' to " + nodes.back()->op + " '" + nodes.back()->name + "'";
    *out = std::make_unique<VulkanNodeKernel>(*device, std::move(label), std::move(merged));
    return Status::ok();
  }

  Status createSession(int numThreads, std::unique_ptr<rt::BackendSession> *out) override {
    (void)numThreads;
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    *out = std::make_unique<VulkanSession>(*device);
    return Status::ok();
  }

  Status allocate(uint64_t bytes, std::unique_ptr<rt::BackendBuffer> *out) override {
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    // Slack past the end: an empty tensor at the end is still bound with 4 bytes.
    DeviceBuffer b;
    WEBNN_RETURN_IF_ERROR((*device)->createBuffer(bytes + 64, Device::Memory::kDeviceLocal, &b));
    *out = std::make_unique<VulkanBuffer>(*device, b);
    return Status::ok();
  }

  Status mapConstants(const void *host, uint64_t bytes, std::unique_ptr<rt::BackendBuffer> *out) override {
    WEBNN_RETURN_IF_ERROR(allocate(bytes, out));
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    auto *vb = static_cast<VulkanBuffer *>(out->get());
    WEBNN_RETURN_IF_ERROR(copyBuffer(**device, vb->buffer(), 0, const_cast<void *>(host), bytes, true));
    gConstantBytes.fetch_add(bytes, std::memory_order_relaxed);
    return Status::ok();
  }

  Status copyToBackend(const void *host, rt::BackendBuffer *dst, uint64_t offset, uint64_t bytes) override {
    auto *vb = dynamic_cast<VulkanBuffer *>(dst);
    if (!vb) return invalidArgument("copyToBackend: not a Vulkan buffer");
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    return copyBuffer(**device, vb->buffer(), offset, const_cast<void *>(host), bytes, true);
  }

  Status copyToHost(const rt::BackendBuffer *src, uint64_t offset, void *host, uint64_t bytes) override {
    auto *vb = dynamic_cast<const VulkanBuffer *>(src);
    if (!vb) return invalidArgument("copyToHost: not a Vulkan buffer");
    std::shared_ptr<Device> *device;
    WEBNN_RETURN_IF_ERROR(backendDevice(&device));
    return copyBuffer(**device, vb->buffer(), offset, host, bytes, false);
  }
};

}  // namespace

BackendCounters backendCounters() {
  BackendCounters c;
  c.deviceCreated = gDeviceCreated.load();
  c.submits = gSubmits.load();
  c.copySubmits = gCopySubmits.load();
  c.recordings = gRecordings.load();
  c.dispatchesRecorded = gDispatchesRecorded.load();
  c.recordMs = double(gRecordNs.load()) / 1e6;
  c.pipelineMs = double(gPipelineNs.load()) / 1e6;
  c.constantBytes = gConstantBytes.load();
  c.fp16WeightBytes = gFp16WeightBytes.load();
  c.fp16Nodes = gFp16Nodes.load();
  c.relaxedFloat32Nodes = gRelaxedFloat32Nodes.load();
  c.coopmatNodes = gCoopmatNodes.load();
  std::lock_guard<std::mutex> lock(gNoteMutex);
  c.relaxedFloat32Note = gRelaxedFloat32Note;
  return c;
}

std::vector<std::string> takeBackendValidationMessages() {
  if (!gDeviceCreated.load()) return {};
  std::shared_ptr<Device> *device = nullptr;
  if (!backendDevice(&device).isOk() || !*device) return {};
  return (*device)->takeValidationMessages();
}

}  // namespace webnn::vk

namespace webnn::rt {

Backend *createVulkanBackend() { return new vk::VulkanBackend(); }

}  // namespace webnn::rt
