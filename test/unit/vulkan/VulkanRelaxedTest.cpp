// Relaxed precision on the GPU (docs/GPU.md "Relaxed precision"): a relaxed
// conv2d/matmul/gemm's constant float32 weights live as float16 on the
// device. Each case runs the node three ways: relaxed on the GPU, exact on
// the GPU, exact on the CPU kernel. The relaxed GPU output must be within
// float16's rounding of the weights of the CPU's float32 result, per output
// |relaxed - cpu| <= (2^-11 + 1e-5) * sum |x| |w| + 1e-6 (the sum from the CPU
// kernel run on the operands' absolute values), and must differ from the
// exact GPU output (the rounding is really there); the weights take half
// their float32 bytes on the device. Validation layers on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "VulkanTestUtil.h"

namespace webnn::vk::test {
namespace {

using cpu::test::f32;
using cpu::test::outSpec;

TestTensor random(Shape shape, uint32_t seed, bool constant = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(size_t(elementsOf(shape)));
  for (float &x : v) x = d(rng);
  return f32(std::move(shape), v, constant);
}

TestTensor absolute(const TestTensor &t) {
  TestTensor a = t;
  float *v = reinterpret_cast<float *>(a.bytes.data());
  for (int64_t i = 0; i < a.count(); ++i) v[i] = std::fabs(v[i]);
  return a;
}

// Restores WEBNN_VULKAN_FP16 when a test that sets it ends.
class ScopedFp16Env {
 public:
  explicit ScopedFp16Env(const char *value) { setenv("WEBNN_VULKAN_FP16", value, 1); }
  ~ScopedFp16Env() { unsetenv("WEBNN_VULKAN_FP16"); }
};

class VulkanRelaxed : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    device_ = sharedDevice(&why);
    ASSERT_TRUE(device_) << why;
  }

  struct Runs {
    std::vector<double> relaxed, exact;
    ProgramStats relaxedStats, exactStats;
  };
  // `c` relaxed and exact on the GPU.
  void runGpu(const OpCase &c, Runs *out) {
    OpCase r = c, e = c;
    r.relaxed = true;
    e.relaxed = false;
    Status s = runGpuOp(device_, r, &out->relaxedStats);
    ASSERT_TRUE(s.isOk()) << s.message();
    s = runGpuOp(device_, e, &out->exactStats);
    ASSERT_TRUE(s.isOk()) << s.message();
    out->relaxed = r.outputs[0].values();
    out->exact = e.outputs[0].values();
  }

  // The whole check for a node whose operand 1 is a constant weight of
  // `weightElements` elements (no activation: the bound needs a linear op).
  void expectFloat16Weights(const OpCase &c, int64_t weightElements) {
    Runs g;
    ASSERT_NO_FATAL_FAILURE(runGpu(c, &g));
    OpCase ref = c, bound = c;
    ASSERT_TRUE(cpu::test::runOp(ref).isOk());
    for (auto &in : bound.inputs)
      if (in) in = absolute(*in);
    ASSERT_TRUE(cpu::test::runOp(bound).isOk());
    std::vector<double> want = ref.outputs[0].values(), sum = bound.outputs[0].values();
    ASSERT_EQ(g.relaxed.size(), want.size());
    int outside = 0, differ = 0;
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      double err = std::fabs(g.relaxed[i] - want[i]);
      double tol = (std::ldexp(1.0, -11) + 1e-5) * sum[i] + 1e-6;
      if (err > tol && outside++ < 3)
        ADD_FAILURE() << c.op << "[" << i << "]: relaxed GPU " << g.relaxed[i] << " CPU " << want[i] << " (bound "
                      << tol << ")";
      worst = std::max(worst, err / (sum[i] + 1e-30));
      if (g.relaxed[i] != g.exact[i]) ++differ;
    }
    EXPECT_EQ(outside, 0) << "worst error / sum|x||w| = " << worst;
    // float16 weights change nearly every output in its last bits.
    EXPECT_GT(differ, int(want.size() / 2)) << differ << " of " << want.size() << " outputs differ from exact";
    EXPECT_EQ(g.relaxedStats.fp16Nodes, 1u);
    EXPECT_EQ(g.relaxedStats.relaxedFloat32Nodes, 0u);
    EXPECT_EQ(g.relaxedStats.fp16WeightBytes, uint64_t(weightElements) * 2);
    EXPECT_EQ(g.exactStats.fp16Nodes, 0u);
    EXPECT_EQ(g.exactStats.fp16WeightBytes, 0u);
    // Constants are 64-byte aligned, so the saving is half the weight's
    // bytes give or take one alignment.
    int64_t saved = int64_t(g.exactStats.constantBytes) - int64_t(g.relaxedStats.constantBytes);
    EXPECT_NEAR(double(saved), double(weightElements * 2), 256.0);
    EXPECT_EQ(g.relaxedStats.dispatches, g.exactStats.dispatches);
  }

  std::shared_ptr<Device> device_;
};

OpCase conv(Shape x, Shape f, Shape y, const char *layout, const char *filterLayout, int64_t groups,
            std::vector<int64_t> padding, uint32_t seed) {
  int64_t O = y[std::string(layout) == "nhwc" ? 3 : 1];
  OpCase c{"conv2d", {random(x, seed), random(f, seed + 1, true), random({O}, seed + 2, true)}, {outSpec(DataType::kFloat32, y)}};
  c.attrString("inputLayout", layout).attrString("filterLayout", filterLayout).attrInt("groups", groups);
  c.attrInts("padding", padding);
  return c;
}

// Implicit GEMM (conv2d_gemm.comp) with 4x4 and partial register blocks,
// depthwise (depthwise_conv2d.comp) and grouped (conv2d.comp).
TEST_F(VulkanRelaxed, Conv2dWeightsAreFloat16) {
  expectFloat16Weights(conv({1, 8, 13, 11}, {24, 8, 3, 3}, {1, 24, 13, 11}, "nchw", "oihw", 1, {1, 1, 1, 1}, 10),
                       24 * 8 * 9);
  expectFloat16Weights(conv({1, 10, 9, 32}, {72, 1, 1, 32}, {1, 10, 9, 72}, "nhwc", "ohwi", 1, {0, 0, 0, 0}, 20),
                       72 * 32);
  expectFloat16Weights(conv({1, 9, 9, 16}, {16, 3, 3, 1}, {1, 9, 9, 16}, "nhwc", "ohwi", 16, {1, 1, 1, 1}, 30),
                       16 * 9);
  expectFloat16Weights(conv({1, 8, 7, 7}, {6, 4, 3, 3}, {1, 6, 5, 5}, "nchw", "oihw", 2, {0, 0, 0, 0}, 40), 6 * 4 * 9);
}

TEST_F(VulkanRelaxed, MatmulAndGemmWeightsAreFloat16) {
  OpCase mm{"matmul", {random({3, 40, 56}, 50), random({56, 70}, 51, true)}, {outSpec(DataType::kFloat32, {3, 40, 70})}};
  expectFloat16Weights(mm, 56 * 70);
  OpCase fm{"fusedMatmul", {random({17, 64}, 52), random({64, 33}, 53, true), random({33}, 54, true)},
            {outSpec(DataType::kFloat32, {17, 33})}};
  expectFloat16Weights(fm, 64 * 33);
  OpCase gemm{"gemm", {random({33, 48}, 55), random({80, 48}, 56, true), random({80}, 57, true)},
              {outSpec(DataType::kFloat32, {33, 80})}};
  gemm.attrBool("bTranspose", true);
  expectFloat16Weights(gemm, 80 * 48);
}

// An exact node ignores the path entirely: its output is the CPU's to
// float32 accuracy and no constant changes type.
TEST_F(VulkanRelaxed, ExactNodesKeepFloat32) {
  OpCase c = conv({1, 8, 13, 11}, {24, 8, 3, 3}, {1, 24, 13, 11}, "nchw", "oihw", 1, {1, 1, 1, 1}, 60);
  ProgramStats st;
  OpCase g = c;
  ASSERT_TRUE(runGpuOp(device_, g, &st).isOk());
  EXPECT_EQ(st.fp16Nodes, 0u);
  EXPECT_EQ(st.relaxedFloat32Nodes, 0u);
  std::string diff = compareWithCpu(device_, c, 1e-4, 1e-5);
  EXPECT_TRUE(diff.empty()) << diff;
}

// Relaxed nodes that keep float32 weights compute exactly what the exact
// node does, bit for bit, and the program says which node and why.
TEST_F(VulkanRelaxed, Float32FallbacksMatchExactAndSayWhy) {
  struct Case {
    OpCase c;
    const char *why;
  };
  OpCase runtimeB{"matmul", {random({8, 24}, 70), random({24, 16}, 71)}, {outSpec(DataType::kFloat32, {8, 16})}};
  // 70000 rounds to infinity in float16.
  OpCase huge{"matmul", {random({8, 24}, 72), random({24, 16}, 73, true)}, {outSpec(DataType::kFloat32, {8, 16})}};
  reinterpret_cast<float *>(huge.inputs[1]->bytes.data())[5] = 70000.0f;
  std::vector<Case> cases = {{runtimeB, "its weight is not a constant"},
                             {huge, "its weight exceeds float16's range"}};
  for (Case &k : cases) {
    SCOPED_TRACE(k.why);
    Runs g;
    ASSERT_NO_FATAL_FAILURE(runGpu(k.c, &g));
    EXPECT_EQ(g.relaxed, g.exact);
    EXPECT_EQ(g.relaxedStats.fp16Nodes, 0u);
    EXPECT_EQ(g.relaxedStats.relaxedFloat32Nodes, 1u);
    EXPECT_EQ(g.relaxedStats.relaxedFloat32Note, "matmul 'test': " + std::string(k.why));
    EXPECT_EQ(g.relaxedStats.constantBytes, g.exactStats.constantBytes);
  }
  // WEBNN_VULKAN_FP16=0 turns the path off.
  ScopedFp16Env off("0");
  Runs g;
  ASSERT_NO_FATAL_FAILURE(
      runGpu(conv({1, 8, 13, 11}, {24, 8, 3, 3}, {1, 24, 13, 11}, "nchw", "oihw", 1, {1, 1, 1, 1}, 80), &g));
  EXPECT_EQ(g.relaxed, g.exact);
  EXPECT_EQ(g.relaxedStats.fp16Nodes, 0u);
  EXPECT_EQ(g.relaxedStats.relaxedFloat32Note, "conv2d 'test': WEBNN_VULKAN_FP16=0");
}

// A weight two relaxed matmuls share is stored float16 once; one that an
// add also reads stays float32 for the matmul too (the add needs float32).
TEST_F(VulkanRelaxed, SharedWeightsFollowEveryReader) {
  const Shape sq = {8, 8};
  TestTensor a = random(sq, 90), w = random(sq, 91, true);
  for (const char *second : {"matmul", "add"}) {
    SCOPED_TRACE(second);
    std::vector<OperandDesc> ops = {{DataType::kFloat32, sq, nullptr}, {DataType::kFloat32, sq, w.bytes.data()},
                                    {DataType::kFloat32, sq, nullptr}, {DataType::kFloat32, sq, nullptr}};
    // Tensors: 0 a (input), 1 w (constant), 2 first output, 3 second output.
    std::vector<ProgramTensor> tensors(4);
    for (size_t t = 0; t < 4; ++t) tensors[t].shape = sq;
    tensors[0].role = ProgramTensor::Role::kInput;
    tensors[1].role = ProgramTensor::Role::kConstant;
    tensors[1].constantData = w.bytes.data();
    tensors[2].role = tensors[3].role = ProgramTensor::Role::kOutput;
    NodeDesc first, other;
    first.op = "matmul";
    first.name = "first";
    first.inputs = {&ops[0], &ops[1]};
    first.outputs = {&ops[2]};
    other.op = second;
    other.name = "second";
    other.inputs = {&ops[0], &ops[1]};
    other.outputs = {&ops[3]};
    first.relaxedPrecision = other.relaxedPrecision = true;
    std::vector<ProgramNode> nodes(2);
    nodes[0] = {&first, {0, 1}, {2}};
    nodes[1] = {&other, {0, 1}, {3}};
    std::unique_ptr<Program> program;
    Status s = Program::create(device_, tensors, nodes, &program);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_TRUE(program->setInput(0, a.bytes.data(), a.bytes.size()).isOk());
    ASSERT_TRUE(program->run().isOk());
    const ProgramStats &st = program->stats();
    bool shared = std::string(second) == "matmul";
    EXPECT_EQ(st.fp16Nodes, shared ? 2u : 0u);
    EXPECT_EQ(st.fp16WeightBytes, shared ? 64u * 2 : 0u);
    EXPECT_EQ(st.relaxedFloat32Nodes, shared ? 0u : 1u);
    if (!shared) {
      EXPECT_EQ(st.relaxedFloat32Note, "matmul 'first': its weight is also read by another op");
      // The add read the weight as float32, exactly.
      const float *z = static_cast<const float *>(program->outputData(3));
      for (int i = 0; i < 64; ++i) EXPECT_EQ(z[i], a.as<float>()[i] + w.as<float>()[i]) << i;
    }
  }
}

}  // namespace
}  // namespace webnn::vk::test
