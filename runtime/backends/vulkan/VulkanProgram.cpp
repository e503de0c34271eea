#include "backends/vulkan/VulkanProgram.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "Shaders.h"
#include "core/Log.h"
#include "core/MemoryPlanner.h"

namespace webnn::vk {

int relaxedWeightOperand(const NodeDesc &d) {
  if (!d.relaxedPrecision || d.inputs.size() < 2 || !d.inputs[0] || !d.inputs[1] ||
      d.inputs[0]->dtype != DataType::kFloat32)
    return -1;
  if (d.op == "conv2d" || d.op == "fusedConv2d" || d.op == "matmul" || d.op == "fusedMatmul" || d.op == "gemm")
    return 1;
  return -1;
}

bool storableAsFloat16(DataType dtype, const void *constantData, const Shape &shape) {
  int64_t count = 0;
  if (dtype != DataType::kFloat32 || !constantData || !elementCount(shape, &count)) return false;
  const auto *bytes = static_cast<const uint8_t *>(constantData);
  for (int64_t i = 0; i < count; ++i) {
    float a;
    std::memcpy(&a, bytes + 4 * i, 4);  // constants need not be 4-byte aligned
    a = std::fabs(a);
    if (std::isfinite(a) && a >= 65520.0f) return false;
  }
  return true;
}

bool relaxedFloat16Enabled(bool warn) {
  const char *env = std::getenv("WEBNN_VULKAN_FP16");
  const bool on = !(env && std::strcmp(env, "0") == 0);
  if (!on && warn) {
    static std::once_flag once;
    std::call_once(once, [] {
      rt::log(LogLevel::kWarning,
              "WEBNN_VULKAN_FP16=0: relaxed-precision dot products keep float32 weights on the GPU");
    });
  }
  return on;
}

namespace {

// float32 bits to float16 bits, round to nearest even (as IEEE 754 and the
// CPU's float16 kernels round); past float16's range: infinity; NaN stays a
// (quiet) NaN.
uint16_t float16Bits(uint32_t u) {
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) return sign | 0x7e00u;
  const int32_t exp = int32_t(mag >> 23) - 127;
  if (exp > 15) return sign | 0x7c00u;
  if (exp < -25) return sign;  // below half the smallest subnormal
  uint32_t mant = mag & 0x7fffffu, h, rest, half;
  if (exp >= -14) {  // a normal float16: drop 13 mantissa bits
    h = (uint32_t(exp + 15) << 10) | (mant >> 13);
    rest = mant & 0x1fffu, half = 0x1000u;
  } else {  // a subnormal one: the value in steps of 2^-24
    mant |= 0x800000u;
    const uint32_t shift = uint32_t(-(exp + 1));
    h = mant >> shift;
    rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  }
  // A carry out of the mantissa moves to the next exponent (or infinity).
  if (rest > half || (rest == half && (h & 1))) ++h;
  return sign | uint16_t(h);
}

}  // namespace

void convertToFloat16(const void *from, uint64_t count, void *to) {
  const auto *src = static_cast<const uint8_t *>(from);
  auto *dst = static_cast<uint8_t *>(to);
  for (uint64_t e = 0; e < count; ++e) {
    uint32_t u;
    std::memcpy(&u, src + 4 * e, 4);
    const uint16_t h = float16Bits(u);
    std::memcpy(dst + 2 * e, &h, 2);
  }
}

std::string relaxedFloat32Reason(const NodeDesc &d, int w, bool readElsewhere) {
  const OperandDesc *o = w >= 0 && size_t(w) < d.inputs.size() ? d.inputs[size_t(w)] : nullptr;
  if (!relaxedFloat16Enabled()) return "WEBNN_VULKAN_FP16=0";
  if (!o || !o->constantData) return "its weight is not a constant";
  if (readElsewhere) return "its weight is also read by another op";
  if (o->dtype != DataType::kFloat32) return "its weight is not float32";
  if (!storableAsFloat16(o->dtype, o->constantData, o->shape)) return "its weight exceeds float16's range";
  return "its weight is also read by another op";
}

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

Status vkFail(const char *what, VkResult r) {
  return Status(r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? StatusCode::kOutOfMemory
                                                                                          : StatusCode::kInternal,
                std::string("Vulkan: ") + what + " failed: " + vkResultName(r));
}

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The node descriptions the kernels see: nodes[i].desc, or for a relaxed
// node whose weight is float16 on the device a copy with that operand
// retyped.
struct KernelDescs {
  std::vector<NodeDesc> copies;
  std::vector<OperandDesc> weights;
  std::vector<const NodeDesc *> of;
};

// Relaxed precision: a float32 constant becomes float16 on the device when
// every node reading it is a relaxed dot product reading it as its weight
// and every value fits float16 (*halved marks it, its tensor retyped). The
// products and sums stay float32; only the weights are rounded, once, at
// upload. Counts the nodes each way into *stats.
void chooseFloat16Weights(const std::vector<ProgramNode> &nodes, std::vector<ProgramTensor> *tensors,
                          std::vector<bool> *halved, ProgramStats *stats, KernelDescs *descs) {
  const size_t n = tensors->size();
  halved->assign(n, false);
  std::vector<bool> halfUse(n, false), otherUse(n, false);
  for (const ProgramNode &pn : nodes) {
    int w = relaxedWeightOperand(*pn.desc);
    for (size_t k = 0; k < pn.inputs.size(); ++k) {
      if (pn.inputs[k] < 0) continue;
      (int(k) == w ? halfUse : otherUse)[size_t(pn.inputs[k])] = true;
    }
    for (int32_t t : pn.outputs)
      if (t >= 0) otherUse[size_t(t)] = true;
  }
  const bool fp16 = relaxedFloat16Enabled();
  for (size_t t = 0; t < n; ++t) {
    ProgramTensor &pt = (*tensors)[t];
    if (!fp16 || !halfUse[t] || otherUse[t] || pt.role != ProgramTensor::Role::kConstant ||
        !storableAsFloat16(pt.dtype, pt.constantData, pt.shape))
      continue;
    (*halved)[t] = true;
    pt.dtype = DataType::kFloat16;
  }
  descs->copies.resize(nodes.size());
  descs->weights.resize(nodes.size());
  descs->of.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeDesc &d = *nodes[i].desc;
    descs->of[i] = &d;
    int w = relaxedWeightOperand(d);
    if (w < 0) continue;
    int32_t t = size_t(w) < nodes[i].inputs.size() ? nodes[i].inputs[size_t(w)] : -1;
    if (t >= 0 && (*halved)[size_t(t)]) {
      descs->weights[i] = *d.inputs[size_t(w)];
      descs->weights[i].dtype = DataType::kFloat16;
      descs->weights[i].constantData = nullptr;  // the host bytes are float32
      descs->copies[i] = d;
      descs->copies[i].inputs[size_t(w)] = &descs->weights[i];
      descs->of[i] = &descs->copies[i];
      ++stats->fp16Nodes;
      continue;
    }
    if (stats->relaxedFloat32Nodes++ == 0)
      stats->relaxedFloat32Note = d.op + " '" + d.name + "': " + relaxedFloat32Reason(d, w, t >= 0 && otherUse[size_t(t)]);
  }
  if (!fp16 && stats->relaxedFloat32Nodes) relaxedFloat16Enabled(/*warn=*/true);
}

void memoryBarrier(const VulkanFunctions &fn, VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dst, VkAccessFlags dstAccess) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  fn.vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace

Status recordDispatch(const Device &device, VkCommandBuffer cmd, VkDescriptorPool pool, const Pipeline &pipeline,
                      const Dispatch &d, const std::vector<VkDescriptorBufferInfo> &buffers) {
  const VulkanFunctions &fn = device.fn();
  VkDescriptorSetAllocateInfo si{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  si.descriptorPool = pool;
  si.descriptorSetCount = 1;
  si.pSetLayouts = &pipeline.setLayout;
  VkDescriptorSet set;
  VkResult r = fn.vkAllocateDescriptorSets(device.device(), &si, &set);
  if (r != VK_SUCCESS) return vkFail("vkAllocateDescriptorSets", r);
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (size_t b = 0; b < buffers.size(); ++b) {
    writes[b] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[b].dstSet = set;
    writes[b].dstBinding = uint32_t(b);
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &buffers[b];
  }
  fn.vkUpdateDescriptorSets(device.device(), uint32_t(writes.size()), writes.data(), 0, nullptr);
  fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
  fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &set, 0, nullptr);
  fn.vkCmdPushConstants(cmd, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes, d.push.data());
  fn.vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
  // Every dispatch sees its predecessors' writes. A dependency analysis
  // could drop barriers between independent dispatches; on one queue they
  // mostly serialize a GPU that is already busy.
  memoryBarrier(fn, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_HOST_READ_BIT);
  return Status::ok();
}

Status Program::create(std::shared_ptr<Device> device, std::vector<ProgramTensor> tensors,
                       const std::vector<ProgramNode> &nodes, std::unique_ptr<Program> *out) {
  std::unique_ptr<Program> p(new Program());
  p->device_ = std::move(device);
  p->tensors_ = std::move(tensors);
  WEBNN_RETURN_IF_ERROR(p->build(nodes));
  *out = std::move(p);
  return Status::ok();
}

Program::~Program() {
  if (!device_) return;
  const VulkanFunctions &fn = device_->fn();
  if (commands_) fn.vkFreeCommandBuffers(device_->device(), device_->commandPool(), 1, &commands_);
  if (descriptorPool_) fn.vkDestroyDescriptorPool(device_->device(), descriptorPool_, nullptr);
  device_->destroyBuffer(&arena_);
  device_->destroyBuffer(&constants_);
  device_->destroyBuffer(&staging_);
}

Status Program::build(const std::vector<ProgramNode> &nodes) {
  const DeviceInfo &info = device_->info();
  const size_t n = tensors_.size();
  const uint64_t align = device_->bindingAlignment();
  bytes_.assign(n, 0);
  offset_.assign(n, 0);
  stagingOffset_.assign(n, UINT64_MAX);

  KernelDescs descs;
  chooseFloat16Weights(nodes, &tensors_, &halved_, &stats_, &descs);

  for (size_t t = 0; t < n; ++t) {
    if (!tensorByteSize(tensors_[t].dtype, tensors_[t].shape, &bytes_[t]))
      return invalidArgument("tensor " + std::to_string(t) + " is too large");
  }

  // Kernels first: a node the GPU cannot run fails creation before any
  // memory is allocated.
  std::vector<KernelPlan> plans(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeDesc &d = *descs.of[i];
    VulkanKernelFactory f = findVulkanKernel(d.op);
    if (!f) return unsupported(d.op + " '" + d.name + "': no GPU kernel for this op");
    WEBNN_RETURN_IF_ERROR(f(d, info, &plans[i]));
    if (usesCoopmat(plans[i])) ++stats_.coopmatNodes;
  }

  // Lifetimes over node positions: inputs from before the first node,
  // outputs past the last, so neither shares memory with anything.
  std::vector<rt::BufferRequest> requests;
  std::vector<size_t> requestTensor;
  std::vector<int64_t> first(n, INT64_MAX), last(n, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int32_t t : nodes[i].outputs)
      if (t >= 0) first[size_t(t)] = std::min<int64_t>(first[size_t(t)], int64_t(i));
    for (int32_t t : nodes[i].inputs)
      if (t >= 0) last[size_t(t)] = std::max<int64_t>(last[size_t(t)], int64_t(i));
  }
  uint64_t constantBytes = 0, stagingBytes = 0;
  for (size_t t = 0; t < n; ++t) {
    const ProgramTensor &pt = tensors_[t];
    // An intermediate no node touches (a caller's rewrite fused it away)
    // needs no memory.
    if (pt.role == ProgramTensor::Role::kIntermediate && first[t] == INT64_MAX && last[t] < 0) continue;
    if (pt.role == ProgramTensor::Role::kConstant) {
      if (halved_[t]) stats_.fp16WeightBytes += bytes_[t];
      offset_[t] = constantBytes;
      constantBytes = alignUp(constantBytes + bytes_[t], align);
      continue;
    }
    rt::BufferRequest r;
    r.bytes = bytes_[t];
    r.firstUse = pt.role == ProgramTensor::Role::kInput ? -1 : std::min<int64_t>(first[t], int64_t(nodes.size()));
    r.lastUse = pt.role == ProgramTensor::Role::kOutput ? int64_t(nodes.size()) : std::max<int64_t>(last[t], r.firstUse);
    requests.push_back(r);
    requestTensor.push_back(t);
    if (pt.role == ProgramTensor::Role::kInput || pt.role == ProgramTensor::Role::kOutput) {
      stagingOffset_[t] = stagingBytes;
      stagingBytes = alignUp(stagingBytes + bytes_[t], align);
    }
  }
  rt::ArenaPlan plan;
  WEBNN_RETURN_IF_ERROR(rt::planArena(requests, align, &plan));
  for (size_t r = 0; r < requests.size(); ++r) offset_[requestTensor[r]] = plan.offsets[r];
  // Slack past the end: an empty tensor is still bound with a 4-byte range.
  stats_.arenaBytes = plan.arenaBytes + align;
  stats_.constantBytes = constantBytes + align;
  stats_.stagingBytes = stagingBytes + align;
  WEBNN_RETURN_IF_ERROR(device_->createBuffer(stats_.arenaBytes, Device::Memory::kDeviceLocal, &arena_));
  WEBNN_RETURN_IF_ERROR(device_->createBuffer(stats_.constantBytes, Device::Memory::kDeviceLocal, &constants_));
  WEBNN_RETURN_IF_ERROR(device_->createBuffer(stats_.stagingBytes, Device::Memory::kHostVisible, &staging_));
  WEBNN_RETURN_IF_ERROR(uploadConstants());
  return record(nodes, plans);
}

Status Program::uploadConstants() {
  auto start = Clock::now();
  const uint64_t total = stats_.constantBytes;
  DeviceBuffer staging;
  uint8_t *dst = static_cast<uint8_t *>(constants_.mapped);
  // Where device memory is host-visible (lavapipe, integrated GPUs) the
  // constants are written in place; elsewhere through one staging copy.
  if (!dst) {
    WEBNN_RETURN_IF_ERROR(device_->createBuffer(total, Device::Memory::kHostVisible, &staging));
    dst = static_cast<uint8_t *>(staging.mapped);
  }
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensors_[t].role != ProgramTensor::Role::kConstant || !bytes_[t] || !tensors_[t].constantData) continue;
    if (!halved_[t]) {
      std::memcpy(dst + offset_[t], tensors_[t].constantData, bytes_[t]);
      continue;
    }
    convertToFloat16(tensors_[t].constantData, bytes_[t] / 2, dst + offset_[t]);
  }
  Status s = Status::ok();
  if (staging.buffer) {
    device_->flush(staging);
    const VulkanFunctions &fn = device_->fn();
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = device_->commandPool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VkResult r = fn.vkAllocateCommandBuffers(device_->device(), &ai, &cmd);
    if (r != VK_SUCCESS) {
      device_->destroyBuffer(&staging);
      return vkFail("vkAllocateCommandBuffers", r);
    }
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    fn.vkBeginCommandBuffer(cmd, &bi);
    VkBufferCopy region{0, 0, total};
    fn.vkCmdCopyBuffer(cmd, staging.buffer, constants_.buffer, 1, &region);
    fn.vkEndCommandBuffer(cmd);
    s = device_->submitAndWait(cmd);
    fn.vkFreeCommandBuffers(device_->device(), device_->commandPool(), 1, &cmd);
    device_->destroyBuffer(&staging);
  } else {
    device_->flush(constants_);
  }
  stats_.uploadMs = msSince(start);
  return s;
}

Status Program::record(const std::vector<ProgramNode> &nodes, const std::vector<KernelPlan> &plans) {
  const VulkanFunctions &fn = device_->fn();
  VkDevice dev = device_->device();
  uint32_t numDispatches = 0, numDescriptors = 0;
  for (const KernelPlan &p : plans)
    for (const Dispatch &d : p.dispatches) {
      ++numDispatches;
      numDescriptors += uint32_t(d.bindings.size());
    }
  stats_.dispatches = numDispatches;

  // Pipelines before recording, so recording time is recording alone.
  uint64_t pipelinesBefore = device_->pipelinesCreated();
  double msBefore = device_->pipelineMilliseconds();
  std::vector<std::vector<const Pipeline *>> pipelines(plans.size());
  for (size_t i = 0; i < plans.size(); ++i)
    for (const Dispatch &d : plans[i].dispatches) {
      std::vector<uint32_t> spec = {d.localSize};
      spec.insert(spec.end(), d.spec.begin(), d.spec.end());
      const Pipeline *p = nullptr;
      WEBNN_RETURN_IF_ERROR(device_->pipeline(d.shader->words, d.shader->count, spec, uint32_t(d.bindings.size()), &p));
      pipelines[i].push_back(p);
    }
  stats_.pipelinesCreated = uint32_t(device_->pipelinesCreated() - pipelinesBefore);
  stats_.pipelineMs = device_->pipelineMilliseconds() - msBefore;

  auto start = Clock::now();
  if (numDispatches) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(numDescriptors, 1)};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = numDispatches;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VkResult r = fn.vkCreateDescriptorPool(dev, &pi, nullptr, &descriptorPool_);
    if (r != VK_SUCCESS) return vkFail("vkCreateDescriptorPool", r);
  }
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = device_->commandPool();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkResult r = fn.vkAllocateCommandBuffers(dev, &ai, &commands_);
  if (r != VK_SUCCESS) return vkFail("vkAllocateCommandBuffers", r);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  r = fn.vkBeginCommandBuffer(commands_, &bi);
  if (r != VK_SUCCESS) return vkFail("vkBeginCommandBuffer", r);

  // Inputs: staging -> arena.
  std::vector<VkBufferCopy> copies;
  for (size_t t = 0; t < tensors_.size(); ++t)
    if (tensors_[t].role == ProgramTensor::Role::kInput && bytes_[t])
      copies.push_back({stagingOffset_[t], offset_[t], bytes_[t]});
  if (!copies.empty()) {
    fn.vkCmdCopyBuffer(commands_, staging_.buffer, arena_.buffer, uint32_t(copies.size()), copies.data());
    memoryBarrier(fn, commands_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }

  auto bufferOf = [&](int32_t t) -> const DeviceBuffer & {
    return tensors_[size_t(t)].role == ProgramTensor::Role::kConstant ? constants_ : arena_;
  };
  for (size_t i = 0; i < plans.size(); ++i) {
    const ProgramNode &node = nodes[i];
    for (size_t k = 0; k < plans[i].dispatches.size(); ++k) {
      const Dispatch &d = plans[i].dispatches[k];
      const Pipeline *p = pipelines[i][k];
      std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
      for (size_t b = 0; b < d.bindings.size(); ++b) {
        const BindingRef &ref = d.bindings[b];
        const auto &list = ref.kind == BindingRef::Kind::kInput ? node.inputs : node.outputs;
        if (ref.index >= list.size() || list[ref.index] < 0)
          return Status(StatusCode::kInternal, node.desc->op + " '" + node.desc->name +
                                                   "': GPU kernel binds an absent operand");
        int32_t t = list[ref.index];
        uint64_t bytes = bytes_[size_t(t)];
        if (ref.byteOffset > bytes || ref.byteRange > bytes - ref.byteOffset)
          return Status(StatusCode::kInternal, node.desc->op + " '" + node.desc->name +
                                                   "': GPU kernel binds past the end of a tensor");
        uint64_t range = ref.byteRange ? ref.byteRange : bytes - ref.byteOffset;
        if (range > device_->info().maxStorageBufferRange)
          return unsupported(node.desc->op + " '" + node.desc->name + "': a binding of " + std::to_string(range) +
                             " bytes exceeds the GPU's maxStorageBufferRange (" +
                             std::to_string(device_->info().maxStorageBufferRange) + " bytes on " +
                             device_->info().name + ") and this kernel does not split it");
        infos[b].buffer = bufferOf(t).buffer;
        infos[b].offset = offset_[size_t(t)] + ref.byteOffset;
        infos[b].range = std::max<uint64_t>(alignUp(range, 4), 4);
      }
      WEBNN_RETURN_IF_ERROR(recordDispatch(*device_, commands_, descriptorPool_, *p, d, infos));
    }
  }

  // Outputs: arena (or constants) -> staging.
  bool anyOut = false;
  for (size_t t = 0; t < tensors_.size(); ++t)
    if (tensors_[t].role == ProgramTensor::Role::kOutput && bytes_[t]) {
      VkBufferCopy c{offset_[t], stagingOffset_[t], bytes_[t]};
      fn.vkCmdCopyBuffer(commands_, arena_.buffer, staging_.buffer, 1, &c);
      anyOut = true;
    }
  if (anyOut)
    memoryBarrier(fn, commands_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  r = fn.vkEndCommandBuffer(commands_);
  if (r != VK_SUCCESS) return vkFail("vkEndCommandBuffer", r);
  stats_.recordMs = msSince(start);
  std::vector<std::string> messages = device_->takeValidationMessages();
  if (!messages.empty()) return Status(StatusCode::kInternal, "Vulkan validation: " + messages.front());
  return Status::ok();
}

Status Program::setInput(int32_t t, const void *data, uint64_t bytes) {
  if (t < 0 || size_t(t) >= tensors_.size() || tensors_[size_t(t)].role != ProgramTensor::Role::kInput)
    return invalidArgument("GPU program: tensor " + std::to_string(t) + " is not an input");
  if (bytes != bytes_[size_t(t)])
    return invalidArgument("GPU program: input of " + std::to_string(bytes) + " bytes, expected " +
                           std::to_string(bytes_[size_t(t)]));
  if (bytes) std::memcpy(static_cast<uint8_t *>(staging_.mapped) + stagingOffset_[size_t(t)], data, bytes);
  return Status::ok();
}

Status Program::run() {
  device_->flush(staging_);
  WEBNN_RETURN_IF_ERROR(device_->submitAndWait(commands_));
  device_->invalidate(staging_);
  std::vector<std::string> messages = device_->takeValidationMessages();
  if (!messages.empty()) {
    std::string all = "Vulkan validation (" + std::to_string(messages.size()) + " message(s)): " + messages.front();
    return Status(StatusCode::kInternal, all);
  }
  return Status::ok();
}

const void *Program::outputData(int32_t t) const {
  if (t < 0 || size_t(t) >= tensors_.size() || stagingOffset_[size_t(t)] == UINT64_MAX) return nullptr;
  return static_cast<const uint8_t *>(staging_.mapped) + stagingOffset_[size_t(t)];
}

}  // namespace webnn::vk
