// gru, gruCell, lstm and lstmCell on the GPU against the CPU kernels: hidden
// sizes below and above the 64-invocation workgroup (an invocation owning
// one or two units), every direction, both gate layouts, resetAfter both
// ways, non-default activations, and each optional operand present and
// absent. Validation layers are on; any message fails.
#include <gtest/gtest.h>

#include <random>

#include "VulkanTestUtil.h"

namespace webnn::vk::test {
namespace {

using cpu::test::fromDoubles;
using cpu::test::outSpec;

TestTensor random(DataType dt, Shape shape, uint32_t seed, bool constant = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-0.6, 0.6);
  std::vector<double> v(size_t(elementsOf(shape)));
  for (double &x : v) x = d(rng);
  return fromDoubles(dt, std::move(shape), v, constant);
}

double rtolFor(DataType dt) { return dt == DataType::kFloat16 ? 4e-3 : 1e-4; }
double atolFor(DataType dt) { return dt == DataType::kFloat16 ? 2e-3 : 1e-5; }

class VulkanRecurrent : public VulkanDeviceFixture {
 protected:
  void expectMatch(const OpCase &c, DataType dt, const std::string &what) {
    std::string diff = compareWithCpu(device_, c, rtolFor(dt), atolFor(dt));
    EXPECT_TRUE(diff.empty()) << what << ": " << diff;
  }
};

// Which optional operands a case passes (bit i: the i-th optional one).
bool has(unsigned mask, int i) { return (mask >> i) & 1u; }

constexpr DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;

// Each case is a pipeline lavapipe compiles (a few hundred ms): a list of
// cases covering every variant rather than their full cross product.
TEST_F(VulkanRecurrent, GruCell) {
  struct Case {
    DataType dt;
    int64_t H;
    unsigned mask;  // bias, recurrentBias
    bool resetAfter;
  } cases[] = {{f32, 5, 0u, true}, {f32, 67, 3u, false}, {f16, 67, 1u, false}, {f16, 5, 2u, true}};
  uint32_t seed = 1;
  for (const Case &k : cases) {
    const DataType dt = k.dt;
    const int64_t B = 3, I = 7, H = k.H;
    std::vector<std::optional<TestTensor>> ins{random(dt, {B, I}, seed++), random(dt, {3 * H, I}, seed++, true),
                                               random(dt, {3 * H, H}, seed++, true), random(dt, {B, H}, seed++)};
    ins.push_back(has(k.mask, 0) ? std::optional<TestTensor>(random(dt, {3 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 1) ? std::optional<TestTensor>(random(dt, {3 * H}, seed++, true)) : std::nullopt);
    OpCase c{"gruCell", ins, {outSpec(dt, {B, H})}};
    c.attrInt("hiddenSize", H).attrBool("resetAfter", k.resetAfter);
    if (k.mask == 1u) c.attrString("layout", "rzn").attrString("activations", "sigmoid,relu");
    expectMatch(c, dt, "gruCell H=" + std::to_string(H) + " mask " + std::to_string(k.mask));
  }
}

TEST_F(VulkanRecurrent, LstmCell) {
  struct Case {
    DataType dt;
    int64_t H;
    unsigned mask;  // bias, recurrentBias, peepholeWeight
  } cases[] = {{f32, 5, 0u}, {f32, 67, 7u}, {f16, 67, 6u}, {f16, 5, 1u}};
  uint32_t seed = 100;
  for (const Case &k : cases) {
    const DataType dt = k.dt;
    const int64_t B = 2, I = 9, H = k.H;
    std::vector<std::optional<TestTensor>> ins{random(dt, {B, I}, seed++), random(dt, {4 * H, I}, seed++, true),
                                               random(dt, {4 * H, H}, seed++, true), random(dt, {B, H}, seed++),
                                               random(dt, {B, H}, seed++)};
    ins.push_back(has(k.mask, 0) ? std::optional<TestTensor>(random(dt, {4 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 1) ? std::optional<TestTensor>(random(dt, {4 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 2) ? std::optional<TestTensor>(random(dt, {3 * H}, seed++, true)) : std::nullopt);
    OpCase c{"lstmCell", ins, {outSpec(dt, {B, H}), outSpec(dt, {B, H})}};
    c.attrInt("hiddenSize", H);
    if (k.mask == 6u) c.attrString("layout", "ifgo").attrString("activations", "sigmoid,relu,tanh");
    expectMatch(c, dt, "lstmCell H=" + std::to_string(H) + " mask " + std::to_string(k.mask));
  }
}

TEST_F(VulkanRecurrent, Gru) {
  struct Case {
    DataType dt;
    int64_t H;
    const char *direction;
    unsigned mask;  // bias, recurrentBias, initialHiddenState; 5: rzn, resetAfter false; 2: no sequence
  } cases[] = {{f32, 67, "both", 7u}, {f32, 6, "backward", 5u}, {f16, 67, "forward", 2u}, {f32, 6, "forward", 0u},
               {f16, 6, "both", 5u}};
  uint32_t seed = 200;
  for (const Case &k : cases) {
    const DataType dt = k.dt;
    const int64_t T = 4, B = 3, I = 5, H = k.H, D = std::string(k.direction) == "both" ? 2 : 1;
    const bool sequence = k.mask != 2u;
    std::vector<std::optional<TestTensor>> ins{random(dt, {T, B, I}, seed++), random(dt, {D, 3 * H, I}, seed++, true),
                                               random(dt, {D, 3 * H, H}, seed++, true)};
    ins.push_back(has(k.mask, 0) ? std::optional<TestTensor>(random(dt, {D, 3 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 1) ? std::optional<TestTensor>(random(dt, {D, 3 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 2) ? std::optional<TestTensor>(random(dt, {D, B, H}, seed++)) : std::nullopt);
    std::vector<TestTensor> outs{outSpec(dt, {D, B, H})};
    if (sequence) outs.push_back(outSpec(dt, {T, D, B, H}));
    OpCase c{"gru", ins, outs};
    c.attrInt("hiddenSize", H).attrInt("steps", T).attrString("direction", k.direction);
    c.attrBool("returnSequence", sequence).attrBool("resetAfter", k.mask != 5u);
    if (k.mask == 5u) c.attrString("layout", "rzn");
    expectMatch(c, dt, std::string("gru ") + k.direction + " H=" + std::to_string(H) + " mask " +
                           std::to_string(k.mask));
  }
}

TEST_F(VulkanRecurrent, Lstm) {
  struct Case {
    DataType dt;
    int64_t H;
    const char *direction;
    // bias, recurrentBias, peepholeWeight, initialHiddenState,
    // initialCellState; 21: ifgo with relu; 10: no sequence
    unsigned mask;
  } cases[] = {{f32, 67, "both", 31u}, {f32, 6, "backward", 21u}, {f16, 67, "forward", 10u}, {f32, 6, "forward", 0u},
               {f16, 6, "both", 21u}};
  uint32_t seed = 300;
  for (const Case &k : cases) {
    const DataType dt = k.dt;
    const int64_t T = 3, B = 2, I = 7, H = k.H, D = std::string(k.direction) == "both" ? 2 : 1;
    const bool sequence = k.mask != 10u;
    std::vector<std::optional<TestTensor>> ins{random(dt, {T, B, I}, seed++), random(dt, {D, 4 * H, I}, seed++, true),
                                               random(dt, {D, 4 * H, H}, seed++, true)};
    ins.push_back(has(k.mask, 0) ? std::optional<TestTensor>(random(dt, {D, 4 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 1) ? std::optional<TestTensor>(random(dt, {D, 4 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 2) ? std::optional<TestTensor>(random(dt, {D, 3 * H}, seed++, true)) : std::nullopt);
    ins.push_back(has(k.mask, 3) ? std::optional<TestTensor>(random(dt, {D, B, H}, seed++)) : std::nullopt);
    ins.push_back(has(k.mask, 4) ? std::optional<TestTensor>(random(dt, {D, B, H}, seed++)) : std::nullopt);
    std::vector<TestTensor> outs{outSpec(dt, {D, B, H}), outSpec(dt, {D, B, H})};
    if (sequence) outs.push_back(outSpec(dt, {T, D, B, H}));
    OpCase c{"lstm", ins, outs};
    c.attrInt("hiddenSize", H).attrInt("steps", T).attrString("direction", k.direction);
    c.attrBool("returnSequence", sequence);
    if (k.mask == 21u) c.attrString("layout", "ifgo").attrString("activations", "sigmoid,tanh,relu");
    expectMatch(c, dt, std::string("lstm ") + k.direction + " H=" + std::to_string(H) + " mask " +
                           std::to_string(k.mask));
  }
}

// A hidden state too large for the device's shared memory is one clear
// refusal (the node then runs elsewhere), never a wrong answer.
TEST_F(VulkanRecurrent, HiddenSizeBeyondSharedMemoryIsRefused) {
  const DataType dt = DataType::kFloat32;
  const int64_t H = int64_t(device_->info().maxSharedMemory / 16 + 1), B = 1, I = 2;
  OpCase c{"gruCell",
           {TestTensor{dt, {B, I}, {}, false}, TestTensor{dt, {3 * H, I}, {}, false},
            TestTensor{dt, {3 * H, H}, {}, false}, TestTensor{dt, {B, H}, {}, false}},
           {outSpec(dt, {B, H})}};
  c.attrInt("hiddenSize", H);
  Status s = runGpuOp(device_, c);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("shared memory"), std::string::npos) << s.message();
  OpCase bad{"lstm", {random(dt, {2, 1, 3}, 1), random(dt, {1, 8, 3}, 2), random(dt, {1, 8, 2}, 3)},
             {outSpec(dt, {1, 1, 2}), outSpec(dt, {1, 1, 2})}};
  bad.attrInt("hiddenSize", 2).attrInt("steps", 2).attrString("direction", "sideways");
  s = runGpuOp(device_, bad);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("unknown direction 'sideways'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnn::vk::test
