// matmul (batched, broadcasting batch dims), fusedMatmul and gemm:
// shaders/matmul.comp.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

constexpr uint32_t kTile = 16;

// Outputs per invocation (matmul.comp's TM x TN): 4 x 4 (64 x 64 blocks)
// where both dimensions fill a block, fewer along a short one; halved until
// the blocks fit the device's shared memory.
void registerBlock(const DeviceInfo &device, uint64_t M, uint64_t N, uint32_t *tm, uint32_t *tn) {
  *tm = M >= 4 * kTile ? 4 : M >= 2 * kTile ? 2 : 1;
  *tn = N >= 4 * kTile ? 4 : N >= 2 * kTile ? 2 : 1;
  while ((*tm + *tn) * kTile * kTile * 4 > device.maxSharedMemory && (*tm > 1 || *tn > 1)) {
    if (*tm >= *tn) *tm /= 2;
    else *tn /= 2;
  }
}

bool floatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

// matmul_coopmat.comp's shared memory for a grid of sgM x sgN subgroups
// (its tileA, tileB and scratch arrays; WM = WN = 2, BK = 32).
uint64_t coopmatSharedBytes(uint32_t sgM, uint32_t sgN) {
  const uint64_t bm = sgM * 32, bn = sgN * 32, bk = 32;
  return bm * (bk + 8) * 2 + bk * (bn + 8) * 2 + uint64_t(sgM) * sgN * 256 * 4;
}

// The spec constants and groups of either shader: matmul.comp's
// (TM x TN outputs per invocation) or matmul_coopmat.comp's (TM x TN
// subgroups per workgroup).
void setShader(const MatmulKernelChoice &choice, const DeviceInfo &device, uint64_t M, uint64_t N, Dispatch *d,
               uint32_t *tm, uint32_t *tn, uint32_t *blockM, uint32_t *blockN) {
  if (choice.coopmat) {
    d->shader = &shaders::matmul_coopmat;
    *tm = choice.subgroupsM;
    *tn = choice.subgroupsN;
    d->localSize = *tm * *tn * device.subgroupSize;
    *blockM = *tm * 32;
    *blockN = *tn * 32;
    return;
  }
  d->shader = &shaders::matmul;
  registerBlock(device, M, N, tm, tn);
  d->localSize = kTile * kTile;
  *blockM = kTile * *tm;
  *blockN = kTile * *tn;
}

// B's type as the shader reads it: a's, or float16 under float32 data for a
// relaxed-precision node's constant B (VulkanProgram's relaxed weights).
bool bTypeAccepted(const NodeDesc &node, DataType a, DataType b) {
  return b == a || (node.relaxedPrecision && a == DataType::kFloat32 && b == DataType::kFloat16);
}

Status makeMatMul(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() < 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects two inputs and one output");
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1], &c = *node.outputs[0];
  if (!floatType(a.dtype) || !bTypeAccepted(node, a.dtype, b.dtype))
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(a.dtype)));
  if (a.shape.size() < 2 || b.shape.size() < 2 || c.shape.size() < 2)
    return nodeUnsupported(node, "operands of rank below 2");
  size_t batchRank = c.shape.size() - 2;
  if (batchRank > 4) return nodeUnsupported(node, "more than 4 batch dims");
  uint32_t M = uint32_t(c.shape[batchRank]), N = uint32_t(c.shape[batchRank + 1]);
  uint32_t K = uint32_t(a.shape.back());
  uint64_t batches = 1;
  for (size_t d = 0; d < batchRank; ++d) batches *= uint64_t(c.shape[d]);
  if (elementsOf(c.shape) == 0) return Status::ok();
  if (batches > 65535) return nodeUnsupported(node, "more than 65535 batches");
  // fusedMatmul (docs/FUSED_OPS.md): alpha, bias [N], residual, relu/gelu.
  bool fused = node.op == "fusedMatmul";
  const OperandDesc *bias = fused && node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  const OperandDesc *residual = fused && node.inputs.size() > 3 ? node.inputs[3] : nullptr;
  float alpha = float(node.attributes.getFloat("alpha", 1.0));
  std::string activation = node.attributes.getString("activation", "none");
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  uint32_t act = activation == "relu" ? 1 : activation == "gelu" ? 2 : 0;
  if (activation != "none" && act == 0) return nodeUnsupported(node, "unknown activation '" + activation + "'");
  if (bias && (bias->dtype != a.dtype || elementsOf(bias->shape) != N))
    return nodeUnsupported(node, "bias must have one value per output column");
  if (residual && (residual->dtype != c.dtype || residual->shape != c.shape))
    return nodeUnsupported(node, "residual differs from the output in shape or type");
  Dispatch d;
  uint32_t dt, bdt;
  shaderDataType(a.dtype, &dt);
  shaderDataType(b.dtype, &bdt);
  uint32_t tm, tn, blockM, blockN;
  setShader(chooseMatmulKernel(device, node.relaxedPrecision, a.dtype, b.dtype, false, M, N, K, batches), device, M,
            N, &d, &tm, &tn, &blockM, &blockN);
  d.spec = {dt, kTile, 0, 0, bias ? 1u : 0u, residual ? 1u : 0u, act, tm, tn, bdt};
  if (d.shader == &shaders::matmul_coopmat) d.spec.push_back(device.subgroupSize);
  d.bindings = {in(0), in(1), out(0), bias ? in(2) : in(0), residual ? in(3) : in(0)};
  d.pushU(M).pushU(N).pushU(K);
  // Batch strides in elements, 0 where an operand broadcasts.
  auto batchStrides = [&](const Shape &s, uint64_t matrix, uint32_t *st) {
    size_t r = s.size() - 2, off = 4 - r;
    uint64_t stride = matrix;
    for (int i = 0; i < 4; ++i) st[i] = 0;
    for (size_t i = r; i-- > 0;) {
      st[off + i] = s[i] == 1 ? 0 : uint32_t(stride);
      stride *= uint64_t(s[i]);
    }
  };
  uint32_t dims[4], sa[4], sb[4];
  size_t off = 4 - batchRank;
  for (size_t i = 0; i < 4; ++i) dims[i] = i < off ? 1 : uint32_t(c.shape[i - off]);
  batchStrides(a.shape, uint64_t(M) * K, sa);
  batchStrides(b.shape, uint64_t(K) * N, sb);
  for (uint32_t v : dims) d.pushU(v);
  for (uint32_t v : sa) d.pushU(v);
  for (uint32_t v : sb) d.pushU(v);
  d.pushF(alpha).pushF(1.0f).pushU(0).pushU(bias ? 1 : 0);
  d.groups[0] = (N + blockN - 1) / blockN;
  d.groups[1] = (M + blockM - 1) / blockM;
  d.groups[2] = uint32_t(batches);
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

Status makeGemm(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() < 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects two inputs and one output");
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1], &c = *node.outputs[0];
  const OperandDesc *bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  if (!floatType(a.dtype) || !bTypeAccepted(node, a.dtype, b.dtype) || (bias && bias->dtype != a.dtype))
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(a.dtype)));
  if (a.shape.size() != 2 || b.shape.size() != 2 || c.shape.size() != 2 || (bias && bias->shape.size() > 2))
    return nodeUnsupported(node, "gemm needs 2-D operands");
  bool aT = node.attributes.getBool("aTranspose", false), bT = node.attributes.getBool("bTranspose", false);
  float alpha = float(node.attributes.getFloat("alpha", 1.0)), beta = float(node.attributes.getFloat("beta", 1.0));
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  uint32_t M = uint32_t(c.shape[0]), N = uint32_t(c.shape[1]);
  uint32_t K = uint32_t(aT ? a.shape[0] : a.shape[1]);
  if (M == 0 || N == 0) return Status::ok();
  Dispatch d;
  uint32_t dt, bdt;
  shaderDataType(a.dtype, &dt);
  shaderDataType(b.dtype, &bdt);
  uint32_t tm, tn, blockM, blockN;
  setShader(chooseMatmulKernel(device, node.relaxedPrecision, a.dtype, b.dtype, aT || bT, M, N, K, 1), device, M, N,
            &d, &tm, &tn, &blockM, &blockN);
  d.spec = {dt, kTile, aT ? 1u : 0u, bT ? 1u : 0u, bias ? 1u : 0u, 0, 0, tm, tn, bdt};
  if (d.shader == &shaders::matmul_coopmat) d.spec.push_back(device.subgroupSize);
  d.bindings = {in(0), in(1), out(0), bias ? in(2) : in(0), in(0)};
  d.pushU(M).pushU(N).pushU(K);
  for (int i = 0; i < 4; ++i) d.pushU(1);
  for (int i = 0; i < 8; ++i) d.pushU(0);
  uint32_t rowStride = 0, colStride = 0;
  if (bias) {
    std::vector<uint64_t> st = broadcastStrides(bias->shape, 2);
    rowStride = uint32_t(st[0]);
    colStride = uint32_t(st[1]);
  }
  d.pushF(alpha).pushF(beta).pushU(rowStride).pushU(colStride);
  d.groups[0] = (N + blockN - 1) / blockN;
  d.groups[1] = (M + blockM - 1) / blockM;
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

MatmulKernelChoice chooseMatmulKernel(const DeviceInfo &device, bool relaxedPrecision, DataType a, DataType b,
                                      bool transposed, uint64_t M, uint64_t N, uint64_t K, uint64_t batches) {
  MatmulKernelChoice c;
  // Rounding the operands to float16 is what relaxed precision allows;
  // exact artifacts keep matmul.comp's float32 arithmetic bit for bit.
  // Subgroups of 32 or more: the shader's per-invocation share of a block
  // (MAX_VECS vectors) assumes it.
  if (!device.coopmat || !relaxedPrecision || device.subgroupSize < 32) return c;
  if (!floatType(a) || !(b == a || b == DataType::kFloat16)) return c;
  // Below these sizes the 16 x 16 tiles are mostly padding and the float32
  // kernel is as fast.
  if (K < kCoopmatMinK || M < 32 || N < 32 || M * N < kCoopmatMinOutputs) return c;
  // The shader's 4-wide loads need rows of A and B along K and N in
  // multiples of 4; other shapes stage element by element, slower than
  // matmul.comp on a real GPU (docs/GPU.md "Cooperative matrices").
  if (transposed || K % 4 != 0 || N % 4 != 0) return c;
  // The largest block (subgroups along M x N) that still gives the device
  // enough workgroups to fill it; the smallest otherwise.
  static constexpr uint32_t kGrids[][2] = {{4, 2}, {2, 2}, {1, 1}};
  for (const auto &g : kGrids) {
    // A block past both ends of M or N only pads (1 x 1 never does: M, N >= 32).
    if (g[0] * 32 > M || g[1] * 32 > N) continue;
    const uint64_t threads = uint64_t(g[0]) * g[1] * device.subgroupSize;
    if (threads > device.maxWorkGroupInvocations || coopmatSharedBytes(g[0], g[1]) > device.maxSharedMemory) continue;
    const uint64_t gx = (N + g[1] * 32 - 1) / (g[1] * 32), gy = (M + g[0] * 32 - 1) / (g[0] * 32);
    if (gx > device.maxWorkGroupCount[0] || gy > device.maxWorkGroupCount[1]) continue;
    c.coopmat = true;
    c.subgroupsM = g[0];
    c.subgroupsN = g[1];
    if (gx * gy * batches >= kCoopmatFullGroups) break;
  }
  return c;
}

bool usesCoopmat(const KernelPlan &plan) {
  for (const Dispatch &d : plan.dispatches)
    if (d.shader == &shaders::matmul_coopmat) return true;
  return false;
}

void registerMatMulKernels(std::vector<KernelEntry> *out) {
  out->push_back({"matmul", makeMatMul});
  out->push_back({"fusedMatmul", makeMatMul});
  out->push_back({"gemm", makeGemm});
}

}  // namespace webnn::vk
