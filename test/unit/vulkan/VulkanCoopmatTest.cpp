// Cooperative matrices (docs/GPU.md "Cooperative matrices"): the embedded
// matmul_coopmat.comp, the choice between it and matmul.comp (a pure
// function of DeviceInfo, the artifact's precision and the sizes, tested
// with made-up devices), and the kernel factories' dispatches for it. The
// shader itself runs only on a device with VK_NV_cooperative_matrix
// (bench/gpu_coopmat_check.sh); here, on a device without it, relaxed
// matmuls must keep matmul.comp.
#include <gtest/gtest.h>

#include "Shaders.h"
#include "VulkanTestUtil.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk::test {
namespace {

// A device like an NVIDIA GPU reporting VK_NV_cooperative_matrix.
DeviceInfo coopmatDevice() {
  DeviceInfo d;
  d.name = "made-up tensor-core GPU";
  d.coopmat = true;
  d.subgroupSize = 32;
  d.maxSharedMemory = 48 * 1024;
  d.maxWorkGroupInvocations = 1024;
  d.maxWorkGroupCount[0] = d.maxWorkGroupCount[1] = d.maxWorkGroupCount[2] = 65535;
  d.maxStorageBufferRange = uint64_t(1) << 32;
  d.maxPushConstantsSize = 256;
  d.usable = true;
  return d;
}

// Whether the SPIR-V module declares OpCapability `capability`.
bool declaresCapability(const shaders::Spirv &s, uint32_t capability) {
  for (size_t i = 5; i < s.count;) {
    const uint32_t op = s.words[i] & 0xffff, words = s.words[i] >> 16;
    if (words == 0) return false;
    if (op == 17 /* OpCapability */ && i + 1 < s.count && s.words[i + 1] == capability) return true;
    i += words;
  }
  return false;
}
constexpr uint32_t kCooperativeMatrixNV = 5357;
constexpr uint32_t kVulkanMemoryModel = 5345;

TEST(VulkanCoopmat, ShaderIsEmbeddedAndDeclaresCooperativeMatrices) {
  ASSERT_GT(shaders::matmul_coopmat.count, 5u);
  EXPECT_EQ(shaders::matmul_coopmat.words[0], 0x07230203u);  // the SPIR-V magic number
  EXPECT_TRUE(declaresCapability(shaders::matmul_coopmat, kCooperativeMatrixNV));
  EXPECT_TRUE(declaresCapability(shaders::matmul_coopmat, kVulkanMemoryModel));
  // The fallback stays free of both: it runs on every device.
  EXPECT_FALSE(declaresCapability(shaders::matmul, kCooperativeMatrixNV));
  EXPECT_FALSE(declaresCapability(shaders::matmul, kVulkanMemoryModel));
}

TEST(VulkanCoopmat, ChoiceNeedsDeviceRelaxedPrecisionAndSize) {
  const DeviceInfo dev = coopmatDevice();
  const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;
  // Large relaxed products, float16 or float32 weights, float16 data.
  EXPECT_TRUE(chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, 4096, 1).coopmat);
  EXPECT_TRUE(chooseMatmulKernel(dev, true, f32, f32, false, 128, 768, 3072, 1).coopmat);
  EXPECT_TRUE(chooseMatmulKernel(dev, true, f16, f16, false, 128, 768, 768, 1).coopmat);
  // Exact artifacts keep float32 arithmetic.
  EXPECT_FALSE(chooseMatmulKernel(dev, false, f32, f16, false, 4096, 4096, 4096, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, false, f32, f32, false, 4096, 4096, 4096, 1).coopmat);
  // A device without cooperative matrices (or with WEBNN_VULKAN_COOPMAT=0).
  DeviceInfo plain = dev;
  plain.coopmat = false;
  EXPECT_FALSE(chooseMatmulKernel(plain, true, f32, f16, false, 4096, 4096, 4096, 1).coopmat);
  DeviceInfo noSubgroup = dev;
  noSubgroup.subgroupSize = 0;
  EXPECT_FALSE(chooseMatmulKernel(noSubgroup, true, f32, f16, false, 4096, 4096, 4096, 1).coopmat);
  noSubgroup.subgroupSize = 16;  // the shader's register staging assumes 32 or more
  EXPECT_FALSE(chooseMatmulKernel(noSubgroup, true, f32, f16, false, 4096, 4096, 4096, 1).coopmat);
  // Too small: K, M, N, M * N.
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, kCoopmatMinK - 1, 1).coopmat);
  EXPECT_TRUE(chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, kCoopmatMinK, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 1, 4096, 4096, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 4096, 16, 4096, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 32, 64, 4096, 1).coopmat);
  EXPECT_TRUE(chooseMatmulKernel(dev, true, f32, f16, false, 64, 64, 4096, 1).coopmat);
  // Transposed operands (gemm), K or N not a multiple of 4: element-by-element
  // staging, slower than matmul.comp.
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, true, 4096, 4096, 4096, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 333, 772, 517, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 333, 771, 516, 1).coopmat);
  EXPECT_TRUE(chooseMatmulKernel(dev, true, f32, f16, false, 333, 772, 516, 1).coopmat);
  // Types the shader does not read as floats.
  EXPECT_FALSE(chooseMatmulKernel(dev, true, DataType::kInt32, DataType::kInt32, false, 4096, 4096, 4096, 1).coopmat);
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f16, f32, false, 4096, 4096, 4096, 1).coopmat);
}

TEST(VulkanCoopmat, ChoiceOfSubgroupGrid) {
  DeviceInfo dev = coopmatDevice();
  const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;
  // Many workgroups even with the largest block (128 x 64).
  MatmulKernelChoice c = chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, 4096, 1);
  EXPECT_EQ(c.subgroupsM, 4u);
  EXPECT_EQ(c.subgroupsN, 2u);
  // BERT-base's 128 x 768: the smallest block, for 96 workgroups.
  c = chooseMatmulKernel(dev, true, f32, f16, false, 128, 768, 768, 1);
  EXPECT_EQ(c.subgroupsM, 1u);
  EXPECT_EQ(c.subgroupsN, 1u);
  // Batches count toward filling the device, but no block overhangs M or N.
  c = chooseMatmulKernel(dev, true, f32, f16, false, 64, 64, 64, 512);
  EXPECT_EQ(c.subgroupsM, 2u);
  EXPECT_EQ(c.subgroupsN, 2u);
  // 4 x 2 subgroups need 23 KiB of shared memory, 2 x 2 under 14 KiB.
  dev.maxSharedMemory = 16 * 1024;
  c = chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, 4096, 1);
  EXPECT_EQ(c.subgroupsM, 2u);
  EXPECT_EQ(c.subgroupsN, 2u);
  // Workgroup size limit: 2 x 2 subgroups of 64 lanes are 256 invocations.
  dev = coopmatDevice();
  dev.subgroupSize = 64;
  dev.maxWorkGroupInvocations = 256;
  c = chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, 4096, 1);
  EXPECT_EQ(c.subgroupsM, 2u);
  EXPECT_EQ(c.subgroupsN, 2u);
  // Not even 1 x 1 subgroups (6 KiB) fit: matmul.comp.
  dev.maxSharedMemory = 4 * 1024;
  EXPECT_FALSE(chooseMatmulKernel(dev, true, f32, f16, false, 4096, 4096, 4096, 1).coopmat);
}

// A matmul / gemm node over made-up operands.
struct Node {
  std::vector<OperandDesc> operands;
  NodeDesc desc;
  Node(const std::string &op, std::vector<std::pair<DataType, Shape>> ins, Shape out, bool relaxed) {
    operands.reserve(ins.size() + 1);
    for (auto &[t, s] : ins) operands.push_back({t, s, nullptr});
    operands.push_back({ins[0].first, out, nullptr});
    desc.op = op;
    desc.name = "mm";
    desc.relaxedPrecision = relaxed;
    for (size_t i = 0; i < ins.size(); ++i) desc.inputs.push_back(&operands[i]);
    desc.outputs.push_back(&operands.back());
  }
};

TEST(VulkanCoopmat, FactoriesDispatchTheCoopmatShader) {
  const DeviceInfo dev = coopmatDevice();
  const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;
  {
    // Batched relaxed fusedMatmul with bias: 2 x (1024 x 512) x (512 x 2048).
    Node n("fusedMatmul", {{f32, {2, 1024, 512}}, {f16, {512, 2048}}, {f32, {2048}}}, {2, 1024, 2048}, true);
    KernelPlan plan;
    Status s = findVulkanKernel("fusedMatmul")(n.desc, dev, &plan);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_EQ(plan.dispatches.size(), 1u);
    const Dispatch &d = plan.dispatches[0];
    EXPECT_TRUE(usesCoopmat(plan));
    EXPECT_EQ(d.shader, &shaders::matmul_coopmat);
    // 32 x 8 x 2 workgroups of the 128 x 64 block fill the device.
    ASSERT_EQ(d.spec.size(), 11u);  // ids 1..10 as matmul.comp's, 11 the subgroup size
    EXPECT_EQ(d.spec[10], 32u);
    EXPECT_EQ(d.spec[7], 4u);  // SG_M
    EXPECT_EQ(d.spec[8], 2u);  // SG_N
    EXPECT_EQ(d.spec[9], 1u);  // B_DT: float16
    EXPECT_EQ(d.spec[4], 1u);  // HAS_BIAS
    EXPECT_EQ(d.localSize, 4u * 2u * 32u);
    EXPECT_EQ(d.groups[0], 2048u / 64u);
    EXPECT_EQ(d.groups[1], 1024u / 128u);
    EXPECT_EQ(d.groups[2], 2u);
  }
  {
    // The same exact: matmul.comp.
    Node n("matmul", {{f32, {2, 256, 512}}, {f32, {512, 1024}}}, {2, 256, 1024}, false);
    KernelPlan plan;
    ASSERT_TRUE(findVulkanKernel("matmul")(n.desc, dev, &plan).isOk());
    EXPECT_FALSE(usesCoopmat(plan));
    EXPECT_EQ(plan.dispatches.at(0).shader, &shaders::matmul);
    EXPECT_EQ(plan.dispatches.at(0).localSize, 256u);
  }
  {
    // Relaxed gemm with bias, no size a multiple of the block: M 200, N 300, K 100.
    Node n("gemm", {{f32, {200, 100}}, {f16, {100, 300}}, {f32, {300}}}, {200, 300}, true);
    n.desc.attributes.set("beta", {rt::AttributeValue::Kind::kFloat, 0, 2.0});
    KernelPlan plan;
    Status s = findVulkanKernel("gemm")(n.desc, dev, &plan);
    ASSERT_TRUE(s.isOk()) << s.message();
    const Dispatch &d = plan.dispatches.at(0);
    EXPECT_EQ(d.shader, &shaders::matmul_coopmat);
    EXPECT_EQ(d.spec[4], 1u);  // HAS_BIAS
    // 1 x 1 subgroups (32 x 32 blocks): 10 x 7 = 70 workgroups, fewer than
    // any larger block would need to fill the device.
    EXPECT_EQ(d.localSize, 32u);
    EXPECT_EQ(d.groups[0], (300u + 31) / 32);
    EXPECT_EQ(d.groups[1], (200u + 31) / 32);
    // push constants: M, N, K first.
    EXPECT_EQ(d.push[0], 200u);
    EXPECT_EQ(d.push[1], 300u);
    EXPECT_EQ(d.push[2], 100u);
  }
  {
    // The same with B transposed: matmul.comp.
    Node n("gemm", {{f32, {200, 100}}, {f16, {300, 100}}, {f32, {300}}}, {200, 300}, true);
    n.desc.attributes.set("bTranspose", {rt::AttributeValue::Kind::kBool, 1});
    KernelPlan plan;
    ASSERT_TRUE(findVulkanKernel("gemm")(n.desc, dev, &plan).isOk());
    EXPECT_EQ(plan.dispatches.at(0).shader, &shaders::matmul);
  }
}

// This machine's device (lavapipe in CI) has no cooperative matrices: its
// relaxed matmuls keep matmul.comp, with the outputs the other tests check.
class VulkanCoopmatDevice : public VulkanDeviceFixture {};

TEST_F(VulkanCoopmatDevice, DeviceWithoutCooperativeMatricesKeepsMatmul) {
  const DeviceInfo &info = device_->info();
  if (info.coopmat) GTEST_SKIP() << info.name << " has cooperative matrices (" << info.coopmatNote << ")";
  Node n("matmul", {{DataType::kFloat32, {256, 512}}, {DataType::kFloat16, {512, 256}}}, {256, 256}, true);
  KernelPlan plan;
  Status s = findVulkanKernel("matmul")(n.desc, info, &plan);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_FALSE(usesCoopmat(plan));
  EXPECT_EQ(plan.dispatches.at(0).shader, &shaders::matmul);
}

}  // namespace
}  // namespace webnn::vk::test
