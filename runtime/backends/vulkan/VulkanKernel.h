// What a GPU kernel is: a list of compute dispatches, decided once per node
// at load time from the node's static description (shapes, types, options).
//
// A factory checks everything it relies on and fails with a clear message
// (the node then cannot run on the GPU); it never reads tensor data, and the
// dispatches it returns refer to the node's operands by position, so the
// program that records them (VulkanProgram) decides where each tensor lives.
// Variants of a shader are specialization constants (data types, op codes,
// tile sizes), never copies of the GLSL.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANKERNEL_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANKERNEL_H

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/Kernel.h"
#include "backends/vulkan/VulkanDevice.h"
#include "webnn/status.h"

namespace webnn::vk {

namespace shaders {
struct Spirv;
}

using NodeDesc = rt::NodeDesc;
using OperandDesc = rt::OperandDesc;

// A dispatch's binding: the node's input or output `index`, the whole
// tensor, or `byteRange` bytes from `byteOffset` (a kernel splitting a
// tensor larger than maxStorageBufferRange over several dispatches; offsets
// are multiples of 256, which satisfies every minStorageBufferOffsetAlignment).
struct BindingRef {
  enum class Kind : uint8_t { kInput, kOutput } kind = Kind::kInput;
  uint32_t index = 0;
  uint64_t byteOffset = 0;
  uint64_t byteRange = 0;  // 0: to the end of the tensor
};
inline BindingRef in(uint32_t i, uint64_t offset = 0, uint64_t range = 0) {
  return {BindingRef::Kind::kInput, i, offset, range};
}
inline BindingRef out(uint32_t i, uint64_t offset = 0, uint64_t range = 0) {
  return {BindingRef::Kind::kOutput, i, offset, range};
}

struct Dispatch {
  const shaders::Spirv *shader = nullptr;
  // Specialization constants from id 1 (id 0, the workgroup size, is
  // `localSize`).
  std::vector<uint32_t> spec;
  uint32_t localSize = 64;
  std::vector<BindingRef> bindings;
  std::array<uint32_t, kPushConstantBytes / 4> push{};
  uint32_t groups[3] = {1, 1, 1};

  // Push-constant words in declaration order.
  Dispatch &pushU(uint32_t v) {
    push[pushWords++] = v;
    return *this;
  }
  Dispatch &pushF(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return pushU(u);
  }
  uint32_t pushWords = 0;
  // Groups for `count` invocations of `localSize`, spilling into y beyond
  // 65535 groups in x (common.glsl flatIndex()).
  void coverElements(uint64_t count);
};

// A GPU kernel: its dispatches run in order, each seeing the previous ones'
// writes. Scratch tensors a kernel needs between its dispatches are extra
// outputs past the node's own (scratchBytes, planned like intermediates).
struct KernelPlan {
  std::vector<Dispatch> dispatches;
};

// `device` gives the limits a kernel plans for (maxStorageBufferRange,
// shared memory, subgroup size).
using VulkanKernelFactory = Status (*)(const NodeDesc &node, const DeviceInfo &device, KernelPlan *out);

// The factory for `op`, or null when the GPU has no kernel for it.
VulkanKernelFactory findVulkanKernel(std::string_view op);
std::vector<std::string_view> vulkanKernelNames();

// The spec constant a shader's TENSOR_IN/TENSOR_OUT take for `t`
// (webnn::DataType's value), or false for a type the shaders do not handle
// (int4/uint4 and interface-only types).
bool shaderDataType(DataType t, uint32_t *code);
// The shader a kernel computing in its tensors' type runs: `plain`, or for
// float64 tensors `f64` (its WEBNN_FLOAT64 variant, arithmetic in double)
// with *dt set to float64's code; a refusal naming the op when the device
// lacks shaderFloat64 or `f64` is null (the op has no double arithmetic).
Status pickFloat64Variant(const NodeDesc &node, const DeviceInfo &device, const shaders::Spirv *plain,
                          const shaders::Spirv *f64, DataType dtype, const shaders::Spirv **shader, uint32_t *dt);
// Bytes per element of a GPU tensor (0 for sub-byte types).
uint32_t elementBytes(DataType t);
// "conv2d 'name': message" as an unsupported/invalid status.
Status nodeUnsupported(const NodeDesc &node, const std::string &message);
int64_t elementsOf(const Shape &s);
// Row-major strides (elements) of `s`.
std::vector<uint64_t> contiguousStrides(const Shape &s);
// Strides reading `in` broadcast (right-aligned, numpy rules) to a shape of
// rank `outRank`: 0 on broadcast and missing dims.
std::vector<uint64_t> broadcastStrides(const Shape &in, size_t outRank);

// Merges adjacent dims of an iteration space that every stride set walks as
// one (stride[d] == stride[d + 1] * dims[d + 1], broadcast dims included)
// and drops dims of size 1, so shapes of rank above 6 whose strides allow it
// fit the shaders' 6 dims. Leaves at least one dim.
void coalesceDims(Shape *dims, const std::vector<std::vector<uint64_t> *> &strides);

// Appends one strided copy (shaders/copy.comp) over `dims` (rank <= 6),
// strides and offsets in elements: nothing for an empty `dims`.
Status addCopy(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan, BindingRef src, BindingRef dst,
               DataType dtype, const Shape &dims, const std::vector<uint64_t> &inStride,
               const std::vector<uint64_t> &outStride, uint64_t inOffset, uint64_t outOffset);

// Which kernel a matmul/fusedMatmul/gemm node gets (kernels/MatMul.cpp):
// matmul_coopmat.comp (tensor cores, float16 operands, float32 sums) when
// the device has cooperative matrices (DeviceInfo::coopmat) and subgroups of
// at least 32 invocations, the artifact's
// precision is relaxed, A is float32 or float16 with B of its type or
// float16, neither operand is transposed (gemm), K and N are multiples of 4,
// and the product is large enough (K >= kCoopmatMinK, M and N >= 32,
// M * N >= kCoopmatMinOutputs); matmul.comp otherwise. subgroupsM x
// subgroupsN is the coopmat workgroup's grid of subgroups (32 x 32 outputs
// each): the largest that fits the device and still makes
// kCoopmatFullGroups workgroups, else the smallest that fits.
constexpr uint64_t kCoopmatMinK = 64;
constexpr uint64_t kCoopmatMinOutputs = 64 * 64;
constexpr uint64_t kCoopmatFullGroups = 256;
struct MatmulKernelChoice {
  bool coopmat = false;
  uint32_t subgroupsM = 0, subgroupsN = 0;
};
MatmulKernelChoice chooseMatmulKernel(const DeviceInfo &device, bool relaxedPrecision, DataType a, DataType b,
                                      bool transposed, uint64_t M, uint64_t N, uint64_t K, uint64_t batches);
// Whether a kernel runs matmul_coopmat.comp (the coopmat_nodes counts).
bool usesCoopmat(const KernelPlan &plan);

// Registration, one call per kernel file (VulkanKernel.cpp).
struct KernelEntry {
  const char *op;
  VulkanKernelFactory factory;
};
void registerElementwiseKernels(std::vector<KernelEntry> *out);
void registerCopyKernels(std::vector<KernelEntry> *out);
void registerChannelShuffleKernels(std::vector<KernelEntry> *out);
void registerMatMulKernels(std::vector<KernelEntry> *out);
void registerConvolutionKernels(std::vector<KernelEntry> *out);
void registerPoolingKernels(std::vector<KernelEntry> *out);
void registerReductionKernels(std::vector<KernelEntry> *out);
void registerSoftmaxKernels(std::vector<KernelEntry> *out);
void registerNormalizationKernels(std::vector<KernelEntry> *out);
void registerGatherKernels(std::vector<KernelEntry> *out);
void registerScatterKernels(std::vector<KernelEntry> *out);
void registerResampleKernels(std::vector<KernelEntry> *out);
void registerQuantizationKernels(std::vector<KernelEntry> *out);
void registerRmsNormalizationKernels(std::vector<KernelEntry> *out);
void registerMatMulNBitsKernels(std::vector<KernelEntry> *out);
void registerGroupQueryAttentionKernels(std::vector<KernelEntry> *out);
void registerFusedAttentionKernels(std::vector<KernelEntry> *out);
void registerRotaryEmbeddingKernels(std::vector<KernelEntry> *out);
void registerQuantizedMatmulKernels(std::vector<KernelEntry> *out);
void registerRecurrentKernels(std::vector<KernelEntry> *out);

}  // namespace webnn::vk

#endif
