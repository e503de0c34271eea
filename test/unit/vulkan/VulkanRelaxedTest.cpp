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

#include "TestArtifact.h"
#include "VulkanTestUtil.h"
#include "backends/vulkan/VulkanBackend.h"
#include "core/Backend.h"
#include "core/Executor.h"
#include "core/PlacementPlan.h"

namespace webnn::vk::test {
namespace {

using cpu::test::f32;
using cpu::test::outSpec;
using cpu::test::uniformFloats;

TestTensor random(Shape shape, uint32_t seed, bool constant = false) {
  std::vector<float> v = uniformFloats(elementsOf(shape), seed);
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

class VulkanRelaxed : public VulkanDeviceFixture {
 protected:
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

// The executor's path (an artifact compiled --target gpu): nodes placed on
// the GPU next to CPU nodes, the Vulkan backend behind Backend. Graph:
//   mm1 (gpu) h = x W1        W1 also read by neg (cpu): still float16 there
//   relu (cpu) r = relu(h)
//   neg (cpu) z = -W1         the CPU reads the artifact's float32 bytes
//   mm2 (gpu) y = r W2        a partition of three with mm3 and mm33
//   mm3 (gpu) y3 = y W3       W3 is also mm33's A: float32 for both
//   mm33 (gpu) y5 = W3 W3
// Relaxed: mm1 and mm2 get float16 weights (the constants' device bytes
// shrink by W1's and W2's halves), mm3 and mm33 stay float32 with the
// reason counted; y is within float16's rounding of the weights of a
// float64 reference and differs from the exact artifact's; y5 and z are
// the exact artifact's bit for bit. Under WEBNN_VULKAN_FP16=0 the
// relaxed artifact's outputs are the exact one's bit for bit.
struct PlacedRun {
  std::vector<std::vector<float>> outputs;  // y, y3, y5, z
  BackendCounters made;                     // the session's and first run's counts
  size_t partitions = 0;
  std::vector<std::string> backends;
  uint64_t plannedConstantBytes = 0;  // webnnc inspect --plan's figure for the GPU
};

void runPlaced(bool relaxed, PlacedRun *out) {
  using webnn::test::floatBytes;
  webnn::test::TGraph g;
  g.name = relaxed ? "placed_relaxed" : "placed_exact";
  g.precision = relaxed ? 1 : 0;
  const DataType f = DataType::kFloat32;
  g.tensors = {{"x", f, {16, 32}}, {"w1", f, {32, 32}}, {"h", f, {16, 32}}, {"r", f, {16, 32}},
               {"z", f, {32, 32}}, {"w2", f, {32, 8}},  {"y", f, {16, 8}},  {"w3", f, {8, 8}},
               {"y3", f, {16, 8}}, {"y5", f, {8, 8}}};
  g.constants = {{1, floatBytes(uniformFloats(32 * 32, 11)), "w1"},
                 {5, floatBytes(uniformFloats(32 * 8, 12)), "w2"},
                 {7, floatBytes(uniformFloats(8 * 8, 13)), "w3"}};
  g.nodes = {{"matmul", {0, 1}, {2}, "mm1", {}, {}, "gpu"}, {"relu", {2}, {3}, "relu"},
             {"neg", {1}, {4}, "neg"},                      {"matmul", {3, 5}, {6}, "mm2", {}, {}, "gpu"},
             {"matmul", {6, 7}, {8}, "mm3", {}, {}, "gpu"}, {"matmul", {7, 7}, {9}, "mm33", {}, {}, "gpu"}};
  g.inputs = {0};
  g.outputs = {6, 8, 9, 4};
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = webnn::test::writeAndPrepare(g, "vulkan_relaxed_placed", &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  rt::PlacementPlan plan;
  ASSERT_TRUE(rt::planPlacement(*p, &plan).isOk());
  for (const rt::BackendMemory &m : plan.memory)
    if (m.backend == "vulkan") out->plannedConstantBytes = m.constantBytes;
  BackendCounters before = backendCounters();
  std::unique_ptr<rt::Executor> e;
  s = rt::Executor::create(p, 1, &e, true, "");
  ASSERT_TRUE(s.isOk()) << s.message();
  const std::vector<float> x = uniformFloats(16 * 32, 10);
  ASSERT_TRUE(e->setInput(0, x.data(), x.size() * sizeof(float), true).isOk());
  s = e->run();
  ASSERT_TRUE(s.isOk()) << s.message();
  BackendCounters after = backendCounters();
  out->made = after;
  out->made.constantBytes = after.constantBytes - before.constantBytes;
  out->made.fp16WeightBytes = after.fp16WeightBytes - before.fp16WeightBytes;
  out->made.fp16Nodes = after.fp16Nodes - before.fp16Nodes;
  out->made.relaxedFloat32Nodes = after.relaxedFloat32Nodes - before.relaxedFloat32Nodes;
  out->partitions = e->numPartitions();
  for (size_t i = 0; i < 6; ++i) out->backends.emplace_back(e->nodeBackend(i).name());
  const size_t counts[] = {16 * 8, 16 * 8, 8 * 8, 32 * 32};
  for (size_t k = 0; k < 4; ++k) {
    const float *o = static_cast<const float *>(e->outputData(k));
    out->outputs.emplace_back(o, o + counts[k]);
  }
}

TEST_F(VulkanRelaxed, ExecutorPartitionsUseFloat16Weights) {
  PlacedRun relaxed, exact, off;
  ASSERT_NO_FATAL_FAILURE(runPlaced(true, &relaxed));
  ASSERT_NO_FATAL_FAILURE(runPlaced(false, &exact));
  {
    ScopedFp16Env env("0");
    ASSERT_NO_FATAL_FAILURE(runPlaced(true, &off));
  }
  const std::vector<std::string> where = {"vulkan", "cpu", "cpu", "vulkan", "vulkan", "vulkan"};
  EXPECT_EQ(relaxed.backends, where);
  EXPECT_EQ(relaxed.partitions, 1u);  // mm2, mm3, mm33; mm1 alone between CPU nodes
  const uint64_t w1 = 32 * 32, w2 = 32 * 8, w3 = 8 * 8;
  EXPECT_EQ(relaxed.made.fp16Nodes, 2u);
  EXPECT_EQ(relaxed.made.fp16WeightBytes, (w1 + w2) * 2);
  EXPECT_EQ(relaxed.made.constantBytes, (w1 + w2) * 2 + w3 * 4);
  EXPECT_EQ(relaxed.made.relaxedFloat32Nodes, 2u);
  EXPECT_EQ(exact.made.constantBytes, (w1 + w2 + w3) * 4);
  EXPECT_EQ(exact.made.fp16Nodes + exact.made.fp16WeightBytes + exact.made.relaxedFloat32Nodes, 0u);
  EXPECT_EQ(off.made.fp16Nodes, 0u);
  EXPECT_EQ(off.made.relaxedFloat32Nodes, 4u);
  EXPECT_EQ(off.made.constantBytes, exact.made.constantBytes);
  // The plan (webnnc inspect --plan) counts what the session uploaded.
  EXPECT_EQ(relaxed.plannedConstantBytes, relaxed.made.constantBytes);
  EXPECT_EQ(exact.plannedConstantBytes, exact.made.constantBytes);
  EXPECT_EQ(off.plannedConstantBytes, off.made.constantBytes);
  // The first relaxed float32 kernel of the process is mm3's (the relaxed
  // run came first): W3 is also mm33's A.
  EXPECT_EQ(relaxed.made.relaxedFloat32Note, "matmul 'mm3': its weight is also read by another op");

  // y against float64: |relaxed - ref| <= 2^-10 (sum |r||w2| + sum (sum |x||w1|) |w2|) + 1e-5,
  // the weights of both layers rounded to 11 significant bits.
  const std::vector<float> x = uniformFloats(16 * 32, 10), v1 = uniformFloats(32 * 32, 11), v2 = uniformFloats(32 * 8, 12);
  double maxErr = 0, maxDiffExact = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double ref = 0, bound = 0;
      for (int k = 0; k < 32; ++k) {
        double h = 0, habs = 0;
        for (int m = 0; m < 32; ++m) {
          h += double(x[i * 32 + m]) * v1[m * 32 + k];
          habs += std::fabs(double(x[i * 32 + m]) * v1[m * 32 + k]);
        }
        ref += std::max(h, 0.0) * v2[k * 8 + j];
        bound += (std::max(h, 0.0) + habs) * std::fabs(v2[k * 8 + j]);
      }
      double got = relaxed.outputs[0][size_t(i * 8 + j)];
      EXPECT_LE(std::fabs(got - ref), std::ldexp(bound, -10) + 1e-5) << i << "," << j;
      maxErr = std::max(maxErr, std::fabs(got - ref));
      maxDiffExact = std::max(maxDiffExact, std::fabs(got - double(exact.outputs[0][size_t(i * 8 + j)])));
    }
  EXPECT_GT(maxDiffExact, 0.0);  // the rounding is really there
  std::printf("executor path: y max |relaxed - float64| %.3g, max |relaxed - exact| %.3g\n", maxErr, maxDiffExact);
  // mm33 and the CPU's neg read the exact bytes.
  EXPECT_EQ(relaxed.outputs[2], exact.outputs[2]);
  EXPECT_EQ(relaxed.outputs[3], exact.outputs[3]);
  for (size_t k = 0; k < 32 * 32; ++k) ASSERT_EQ(relaxed.outputs[3][k], -v1[k]) << k;
  // WEBNN_VULKAN_FP16=0: every output the exact artifact's, bit for bit.
  for (size_t o = 0; o < 4; ++o) EXPECT_EQ(off.outputs[o], exact.outputs[o]) << o;
}

}  // namespace
}  // namespace webnn::vk::test
