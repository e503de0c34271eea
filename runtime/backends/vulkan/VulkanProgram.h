// A graph (or a part of one) placed on the GPU: every tensor in one
// device-local arena laid out by the runtime's memory planner
// (core/MemoryPlanner.h), constants in one buffer uploaded once (a relaxed-
// precision conv2d/matmul/gemm's float32 weights converted to float16 on
// the way, where nothing else reads them and they fit float16), and one
// command buffer recorded at creation that a run replays: copy the inputs
// in, every kernel's dispatches with a barrier between them, copy the
// outputs out; one submit and one wait per run.
//
// Each binding is (arena, offset, tensor bytes): a tensor larger than the
// device's maxStorageBufferRange cannot be bound and makes creation fail
// (the arena itself may be larger).
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANPROGRAM_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANPROGRAM_H

#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/VulkanDevice.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {

struct ProgramTensor {
  enum class Role : uint8_t { kIntermediate, kInput, kOutput, kConstant };
  DataType dtype = DataType::kFloat32;
  Shape shape;
  Role role = Role::kIntermediate;
  const void *constantData = nullptr;  // kConstant: its bytes (read at creation only)
};

struct ProgramNode {
  const NodeDesc *desc = nullptr;  // operands described as the tensors below
  std::vector<int32_t> inputs;     // tensor indices; -1 = absent optional operand
  std::vector<int32_t> outputs;
};

struct ProgramStats {
  uint32_t dispatches = 0;
  uint32_t pipelinesCreated = 0;  // by this program (others came from the device's map)
  double pipelineMs = 0;          // creating them (the VkPipelineCache makes a warm start faster)
  double recordMs = 0;            // recording the command buffer
  double uploadMs = 0;            // constants to the device
  uint64_t arenaBytes = 0, constantBytes = 0, stagingBytes = 0;
  uint32_t submitsPerRun = 1;
  // Relaxed precision (docs/GPU.md): dot-product nodes whose constant
  // weights are float16 on the device, those weights' bytes there, and the
  // relaxed dot-product nodes left in float32, the first of them named with
  // why in relaxedFloat32Note.
  uint32_t fp16Nodes = 0;
  uint64_t fp16WeightBytes = 0;
  uint32_t relaxedFloat32Nodes = 0;
  std::string relaxedFloat32Note;
  // Nodes running matmul_coopmat.comp (tensor cores; docs/GPU.md).
  uint32_t coopmatNodes = 0;
};

// Relaxed precision (docs/GPU.md), shared by the program and the
// executor's backend (VulkanBackend.cpp). The operand a relaxed-precision
// node may hold as float16 when it is a constant (the filter of
// conv2d/fusedConv2d, B of matmul/fusedMatmul/gemm, under float32 data),
// else -1.
int relaxedWeightOperand(const NodeDesc &d);
// Whether a constant can be held as float16: float32 bytes (`constantData`
// non-null) of `shape` whose every value keeps its magnitude as float16 (a
// finite value from 65520 up would become infinity).
bool storableAsFloat16(DataType dtype, const void *constantData, const Shape &shape);
// False under WEBNN_VULKAN_FP16=0 (relaxed weights stay float32); then,
// when `warn`, logs that once per process.
bool relaxedFloat16Enabled(bool warn = false);
// `count` float32 values (any alignment) to float16, round to nearest even.
void convertToFloat16(const void *from, uint64_t count, void *to);
// Why relaxed node `d`'s weight operand `w` (as the kernel sees it) is not
// float16: "its weight is not a constant", ...; `readElsewhere`: another
// node is known to read the weight otherwise (said before type and range),
// else that is the reason left when nothing else is.
std::string relaxedFloat32Reason(const NodeDesc &d, int w, bool readElsewhere = false);

// Records dispatch `d` into `cmd`: a descriptor set from `pool` binding
// `buffers` in order (binding b = buffers[b]), the pipeline, the push
// constants, the dispatch, and a barrier after it so that later dispatches,
// transfers and host reads see its writes. The whole-graph program and the
// backend's per-node recording both go through it.
Status recordDispatch(const Device &device, VkCommandBuffer cmd, VkDescriptorPool pool, const Pipeline &pipeline,
                      const Dispatch &d, const std::vector<VkDescriptorBufferInfo> &buffers);

class Program {
 public:
  static Status create(std::shared_ptr<Device> device, std::vector<ProgramTensor> tensors,
                       const std::vector<ProgramNode> &nodes, std::unique_ptr<Program> *out);
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  // Input tensor `t`'s bytes, copied into the staging buffer now.
  Status setInput(int32_t t, const void *data, uint64_t bytes);
  // One submit, one wait. Fails with the validation layer's messages when
  // validation is on and it reported any.
  Status run();
  // Output tensor `t`'s bytes after run() (host memory, valid until the next run).
  const void *outputData(int32_t t) const;
  const ProgramStats &stats() const { return stats_; }
  const Device &device() const { return *device_; }

 private:
  Program() = default;
  Status build(const std::vector<ProgramNode> &nodes);
  Status uploadConstants();
  Status record(const std::vector<ProgramNode> &nodes, const std::vector<KernelPlan> &plans);

  std::shared_ptr<Device> device_;
  std::vector<ProgramTensor> tensors_;
  std::vector<uint64_t> bytes_;        // per tensor
  std::vector<uint64_t> offset_;       // in the arena or the constant buffer
  std::vector<uint64_t> stagingOffset_;  // inputs and outputs: in staging_, else UINT64_MAX
  std::vector<bool> halved_;             // float32 constants stored as float16 (relaxed weights)
  DeviceBuffer arena_, constants_, staging_;
  VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  ProgramStats stats_;
};

}  // namespace webnn::vk

#endif
