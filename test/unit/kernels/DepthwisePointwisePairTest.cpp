// A depthwise 3x3 stride-1 fusedConv2d and the narrow 1x1 after it as one
// kernel (conv/DepthwisePointwisePair.cpp) against the two nodes' own
// kernels (the depthwise one portable) run one after the other: within
// 1e-4 relative at 1 and 2 threads, with y apart from x and over it (the
// steps apart); and the pairs it does not take.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::test {
namespace {

// Our AVX-512 depthwise kernel on or off while in scope.
struct DepthwiseScope {
  explicit DepthwiseScope(bool enabled) : saved(kernels::depthwiseAvx512Enabled()) {
    kernels::setDepthwiseAvx512Enabled(enabled);
  }
  ~DepthwiseScope() { kernels::setDepthwiseAvx512Enabled(saved); }
  bool saved;
};

struct DwPwCase {
  int64_t N = 1, H = 112, W = 112, C = 32, O = 16;
  std::vector<int64_t> padding = {1, 1, 1, 1};
  int64_t stride = 1, ks = 3;
  bool dwBias = true, pwBias = true, residual = false;
  std::string dwActivation = "relu", pwActivation = "none";
  bool expectFused = true;
};

std::string caseName(const DwPwCase &c) {
  return std::to_string(c.N) + "x" + std::to_string(c.H) + "x" + std::to_string(c.W) + "x" + std::to_string(c.C) +
         " -> " + std::to_string(c.O) + " " + c.dwActivation + "/" + c.pwActivation + (c.residual ? " residual" : "");
}

OpCase depthwiseOp(const DwPwCase &c, std::optional<TestTensor> x, int64_t OH, int64_t OW) {
  OpCase op{"fusedConv2d",
            {std::move(x), f32({c.C, c.ks, c.ks, 1}, uniformFloats(c.ks * c.ks * c.C, 31), true),
             c.dwBias ? std::optional<TestTensor>(f32({c.C}, uniformFloats(c.C, 32), true)) : std::nullopt},
            {outSpec(DataType::kFloat32, {c.N, OH, OW, c.C})}};
  op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", c.C);
  op.attrInts("padding", c.padding).attrInts("strides", {c.stride, c.stride}).attrString("activation", c.dwActivation);
  if (c.dwActivation == "clamp") op.attrFloat("activationMinValue", 0).attrFloat("activationMaxValue", 6);
  return op;
}

OpCase pointwiseOp(const DwPwCase &c, std::optional<TestTensor> x, int64_t OH, int64_t OW) {
  OpCase op{c.residual || c.pwActivation != "none" ? "fusedConv2d" : "conv2d",
            {std::move(x), f32({c.O, 1, 1, c.C}, uniformFloats(c.O * c.C, 33), true),
             c.pwBias ? std::optional<TestTensor>(f32({c.O}, uniformFloats(c.O, 34), true)) : std::nullopt},
            {outSpec(DataType::kFloat32, {c.N, OH, OW, c.O})}};
  if (c.residual) op.inputs.push_back(f32({c.N, OH, OW, c.O}, uniformFloats(c.N * OH * OW * c.O, 35)));
  op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
  if (op.op == "fusedConv2d") op.attrString("activation", c.pwActivation);
  if (c.pwActivation == "clamp") op.attrFloat("activationMinValue", -0.5).attrFloat("activationMaxValue", 0.75);
  return op;
}

void expectNear(const std::vector<double> &got, const std::vector<double> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 5; ++i)
    if (std::fabs(got[i] - want[i]) > 1e-4 * (1.0 + std::fabs(want[i]))) {
      ADD_FAILURE() << what << ": element " << i << " got " << got[i] << " want " << want[i];
      ++bad;
    }
}

void runCase(const DwPwCase &c) {
  const std::string name = caseName(c);
  const int64_t OH = (c.H + c.padding[0] + c.padding[1] - c.ks) / c.stride + 1;
  const int64_t OW = (c.W + c.padding[2] + c.padding[3] - c.ks) / c.stride + 1;
  const std::vector<float> x = uniformFloats(c.N * c.H * c.W * c.C, 30);
  OpCase first = depthwiseOp(c, f32({c.N, c.H, c.W, c.C}, x), OH, OW);
  {
    DepthwiseScope portable(false);
    ASSERT_TRUE(runOp(first).isOk()) << name;
  }
  OpCase second = pointwiseOp(c, first.outputs[0], OH, OW);
  ASSERT_TRUE(runOp(second).isOk()) << name;
  const std::vector<double> want = second.outputs[0].values();
  for (int threads : {1, 2}) {
    OpCase a = depthwiseOp(c, f32({c.N, c.H, c.W, c.C}, x), OH, OW);
    OpCase b = pointwiseOp(c, outSpec(DataType::kFloat32, {c.N, OH, OW, c.C}), OH, OW);
    bool fused = false;
    Status s = runPair(a, b, threads, &fused);
    ASSERT_TRUE(s.isOk()) << name << ": " << s.message();
    ASSERT_EQ(fused, c.expectFused && kernels::avx512Available()) << name;
    if (!fused) continue;
    expectNear(b.outputs[0].values(), want, name + " threads " + std::to_string(threads));
    // y over x (x dies at the depthwise node), and partly before or after
    // it: the steps apart through the intermediate's bytes.
    for (int64_t offset : {int64_t(0), c.W * c.C * 3 + 5, -(OW * c.O * 2 + 3)}) {
      OpCase oa = depthwiseOp(c, f32({c.N, c.H, c.W, c.C}, x), OH, OW);
      OpCase ob = pointwiseOp(c, outSpec(DataType::kFloat32, {c.N, OH, OW, c.C}), OH, OW);
      std::vector<float> got;
      ASSERT_TRUE(runPairOverInput(oa, ob, threads, &got, &fused, offset).isOk()) << name;
      ASSERT_TRUE(fused) << name;
      expectNear(std::vector<double>(got.begin(), got.end()), want,
                 name + " over x, offset " + std::to_string(offset) + ", threads " + std::to_string(threads));
    }
  }
}

TEST(DepthwisePointwisePair, EqualsTheTwoKernels) {
  runCase({});  // MnasNet's layers.5 + layers.6
  {
    DwPwCase c;  // MobileNetV2's features.1 (relu6)
    c.dwActivation = "clamp";
    runCase(c);
  }
  {
    // Odd sizes: two images, an odd row count (a last single-row block), a
    // masked 1x1 panel, no padding at the top and left, no biases, and a
    // clamp after the 1x1.
    DwPwCase c{.N = 2, .H = 81, .W = 61, .C = 56, .O = 20};
    c.padding = {0, 1, 0, 1};
    c.dwBias = c.pwBias = false;
    c.dwActivation = "none", c.pwActivation = "clamp";
    runCase(c);
  }
  {
    DwPwCase c{.H = 80, .W = 57, .C = 64, .O = 32};
    c.padding = {0, 0, 1, 1};
    c.pwActivation = "relu";
    runCase(c);
  }
}

TEST(DepthwisePointwisePair, RefusesWhereItDoesNotPay) {
  runCase({.O = 48, .expectFused = false});                                  // a wide 1x1
  runCase({.H = 56, .W = 56, .C = 64, .O = 24, .expectFused = false});      // 784 KiB of depthwise output
  runCase({.padding = {0, 1, 0, 1}, .stride = 2, .expectFused = false});    // stride 2
  runCase({.padding = {2, 2, 2, 2}, .ks = 5, .expectFused = false});        // 5x5
  runCase({.C = 24, .O = 24, .residual = true, .expectFused = false});       // a residual 1x1 (MobileNetV3 features.1)
  {
    DwPwCase c;
    c.dwActivation = "sigmoid";
    c.expectFused = false;
    runCase(c);
  }
}

}  // namespace
}  // namespace webnn::cpu::test
