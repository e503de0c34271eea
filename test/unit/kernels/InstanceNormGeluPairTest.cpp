// nhwc instanceNormalization + gelu as one kernel (Normalization.cpp,
// makeInstanceNormGeluPair) against the two nodes' own kernels run one after
// the other at the same thread count: equal bit for bit, with and without
// scale/bias, channel counts that leave partial vectors; its output over x
// exactly and partly; and the pairs it does not take.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::test {
namespace {

struct NormCase {
  Shape shape;  // nhwc
  bool scale, bias;
};

OpCase instanceNorm(const NormCase &k, std::optional<TestTensor> x, const char *layout = "nhwc") {
  const int64_t C = k.shape[3];
  OpCase op{"instanceNormalization", {std::move(x)}, {outSpec(DataType::kFloat32, k.shape)}};
  if (k.scale || k.bias)
    op.inputs.push_back(k.scale ? std::optional<TestTensor>(f32({C}, uniformFloats(C, 4), true)) : std::nullopt);
  if (k.bias) op.inputs.push_back(f32({C}, uniformFloats(C, 5), true));
  op.attrString("layout", layout).attrFloat("epsilon", 1e-3);
  return op;
}

// The two kernels apart at `threads`: instanceNormalization, then gelu.
std::vector<double> apart(const NormCase &k, const std::vector<float> &x, int threads) {
  OpCase norm = instanceNorm(k, f32(k.shape, x));
  EXPECT_TRUE(runOp(norm, threads).isOk());
  OpCase gelu{"gelu", {norm.outputs[0]}, {outSpec(DataType::kFloat32, k.shape)}};
  EXPECT_TRUE(runOp(gelu, threads).isOk());
  return gelu.outputs[0].values();
}

TEST(InstanceNormGeluPair, EqualsTheTwoKernels) {
  const std::vector<NormCase> cases = {{{1, 37, 1, 512}, true, true},  // wav2vec2's GroupNorm, shorter
                                       {{2, 5, 7, 130}, true, true},
                                       {{1, 9, 4, 51}, false, false},
                                       {{1, 6, 1, 20}, false, true},  // bias without scale
                                       {{1, 1, 1, 3}, true, false}};
  for (const NormCase &k : cases) {
    const int64_t n = k.shape[0] * k.shape[1] * k.shape[2] * k.shape[3];
    std::vector<float> x = uniformFloats(n, 1);
    for (float &v : x) v *= 3.f;
    for (int threads : {1, 2}) {
      const std::vector<double> want = apart(k, x, threads);
      ScopedKernelChoices choices;
      OpCase a = instanceNorm(k, f32(k.shape, x));
      OpCase b{"gelu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
      bool fused = false;
      Status s = runPair(a, b, threads, &fused);
      ASSERT_TRUE(s.isOk()) << s.message();
      // AVX-512 only: elsewhere the nodes run apart.
      ASSERT_EQ(fused, kernels::avx512Available()) << shapeToString(k.shape);
      if (!fused) continue;
      EXPECT_EQ(choices.last("instanceNormalization + gelu").chosen, "instancenorm-gelu");
      const std::vector<double> got = b.outputs[0].values();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(double)), 0)
            << shapeToString(k.shape) << " threads " << threads << " element " << i << ": " << got[i] << " vs "
            << want[i];
    }
  }
}

// The arena plan may put the gelu's output over x (x dies at the
// normalization): exactly over it, or partly, starting before or after x.
TEST(InstanceNormGeluPair, OutputOverX) {
  const NormCase k{{1, 64, 1, 96}, true, true};
  const int64_t n = 64 * 96;
  std::vector<float> x = uniformFloats(n, 1);
  for (int64_t offset : {int64_t(0), int64_t(16), int64_t(-16), n / 2, -n / 2})
    for (int threads : {1, 2}) {
      const std::vector<double> want = apart(k, x, threads);
      OpCase a = instanceNorm(k, f32(k.shape, x));
      OpCase b{"gelu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
      std::vector<float> got;
      bool fused = false;
      Status s = runPairOverInput(a, b, threads, &got, &fused, offset);
      ASSERT_TRUE(s.isOk()) << s.message();
      ASSERT_EQ(fused, kernels::avx512Available());
      if (!fused) continue;
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(double(got[size_t(i)]), want[size_t(i)])
            << "y at x + " << offset << ", threads " << threads << ", element " << i;
    }
}

TEST(InstanceNormGeluPair, LeavesOtherPairsApart) {
  const NormCase k{{1, 2, 2, 8}, true, true};
  std::vector<float> x = uniformFloats(32, 1);
  bool fused = true;
  // nchw: the nodes run apart.
  OpCase nchw = instanceNorm(k, f32(k.shape, x), "nchw");
  OpCase g{"gelu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
  ASSERT_TRUE(runPair(nchw, g, 1, &fused).isOk());
  EXPECT_FALSE(fused);
  // Not a gelu after it.
  OpCase a = instanceNorm(k, f32(k.shape, x));
  OpCase relu{"relu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
  fused = true;
  ASSERT_TRUE(runPair(a, relu, 1, &fused).isOk());
  EXPECT_FALSE(fused);
  // A scale of the wrong size: no pair (the normalization's own factory reports it).
  OpCase bad = instanceNorm(k, f32(k.shape, x));
  bad.inputs[1] = f32({7}, uniformFloats(7, 2), true);
  OpCase bg{"gelu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
  fused = true;
  ASSERT_TRUE(runPair(bad, bg, 1, &fused).isOk());
  EXPECT_FALSE(fused);
}

}  // namespace
}  // namespace webnn::cpu::test
