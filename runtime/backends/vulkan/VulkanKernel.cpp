#include "backends/vulkan/VulkanKernel.h"

#include "backends/vulkan/kernels/ElementwiseChain.h"

#include <algorithm>
#include <mutex>

namespace webnn::vk {
namespace {

const std::vector<KernelEntry> &registry() {
  static std::vector<KernelEntry> entries;
  static std::once_flag once;
  std::call_once(once, [] {
    registerElementwiseKernels(&entries);
    registerCopyKernels(&entries);
    registerChannelShuffleKernels(&entries);
    registerMatMulKernels(&entries);
    registerConvolutionKernels(&entries);
    registerPoolingKernels(&entries);
    registerReductionKernels(&entries);
    registerSoftmaxKernels(&entries);
    registerNormalizationKernels(&entries);
    registerGatherKernels(&entries);
    registerScatterKernels(&entries);
    registerResampleKernels(&entries);
    registerQuantizationKernels(&entries);
    registerRmsNormalizationKernels(&entries);
    registerMatMulNBitsKernels(&entries);
    registerGroupQueryAttentionKernels(&entries);
    registerFusedAttentionKernels(&entries);
    registerRotaryEmbeddingKernels(&entries);
    registerQuantizedMatmulKernels(&entries);
    registerRecurrentKernels(&entries);
    std::sort(entries.begin(), entries.end(),
              [](const KernelEntry &a, const KernelEntry &b) { return std::string_view(a.op) < b.op; });
  });
  return entries;
}

}  // namespace

void Dispatch::coverElements(uint64_t count) {
  uint64_t g = (count + localSize - 1) / localSize;
  groups[0] = uint32_t(std::min<uint64_t>(g, 65535));
  groups[1] = uint32_t((g + 65534) / 65535);
  groups[2] = 1;
  if (groups[0] == 0) groups[0] = groups[1] = 1;
}

VulkanKernelFactory findVulkanKernel(std::string_view op) {
  // ChainFusion.cpp's nodes: not an artifact op, so not among the names.
  if (op == kElementwiseChainOp) return makeElementwiseChain;
  const auto &r = registry();
  auto it = std::lower_bound(r.begin(), r.end(), op,
                             [](const KernelEntry &e, std::string_view o) { return std::string_view(e.op) < o; });
  return it != r.end() && it->op == op ? it->factory : nullptr;
}

std::vector<std::string_view> vulkanKernelNames() {
  std::vector<std::string_view> names;
  for (const auto &e : registry()) names.push_back(e.op);
  return names;
}

bool shaderDataType(DataType t, uint32_t *code) {
  switch (t) {
    case DataType::kFloat32: case DataType::kFloat16: case DataType::kInt32: case DataType::kUint32:
    case DataType::kInt64: case DataType::kUint64: case DataType::kInt8: case DataType::kUint8:
      *code = uint32_t(t);
      return true;
    default:
      return false;
  }
}

Status pickFloat64Variant(const NodeDesc &node, const DeviceInfo &device, const shaders::Spirv *plain,
                          const shaders::Spirv *f64, DataType dtype, const shaders::Spirv **shader, uint32_t *dt) {
  if (dtype != DataType::kFloat64) {
    *shader = plain;
    return shaderDataType(dtype, dt) ? Status::ok()
                                     : nodeUnsupported(node, "data type " + std::string(dataTypeName(dtype)));
  }
  if (!f64) return nodeUnsupported(node, "float64 (GLSL has no double transcendentals for this op)");
  if (!device.float64) return nodeUnsupported(node, "float64 (the device has no shaderFloat64)");
  *shader = f64;
  *dt = uint32_t(DataType::kFloat64);
  return Status::ok();
}

uint32_t elementBytes(DataType t) {
  int bits = dataTypeBits(t);
  return bits % 8 ? 0 : uint32_t(bits / 8);
}

Status nodeUnsupported(const NodeDesc &node, const std::string &message) {
  return unsupported(node.op + " '" + node.name + "': " + message + " (GPU)");
}

int64_t elementsOf(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::vector<uint64_t> contiguousStrides(const Shape &s) {
  std::vector<uint64_t> st(s.size());
  uint64_t v = 1;
  for (size_t d = s.size(); d-- > 0;) {
    st[d] = v;
    v *= uint64_t(s[d]);
  }
  return st;
}

std::vector<uint64_t> broadcastStrides(const Shape &in, size_t outRank) {
  std::vector<uint64_t> st(outRank, 0);
  std::vector<uint64_t> c = contiguousStrides(in);
  size_t off = outRank - in.size();
  for (size_t d = 0; d < in.size(); ++d) st[off + d] = in[d] == 1 ? 0 : c[d];
  return st;
}

void coalesceDims(Shape *dims, const std::vector<std::vector<uint64_t> *> &strides) {
  Shape d;
  std::vector<std::vector<uint64_t>> st(strides.size());
  for (size_t i = 0; i < dims->size(); ++i) {
    int64_t n = (*dims)[i];
    if (n == 1) continue;
    bool merge = !d.empty();
    for (size_t k = 0; k < strides.size() && merge; ++k)
      merge = st[k].back() == (*strides[k])[i] * uint64_t(n);
    if (merge) {
      d.back() *= n;
      for (size_t k = 0; k < strides.size(); ++k) st[k].back() = (*strides[k])[i];
      continue;
    }
    d.push_back(n);
    for (size_t k = 0; k < strides.size(); ++k) st[k].push_back((*strides[k])[i]);
  }
  if (d.empty()) {
    d.push_back(1);
    for (auto &v : st) v.push_back(0);
  }
  *dims = std::move(d);
  for (size_t k = 0; k < strides.size(); ++k) *strides[k] = std::move(st[k]);
}

}  // namespace webnn::vk
