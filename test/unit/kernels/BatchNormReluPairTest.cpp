// batchNormalization + relu as one kernel (BatchNormReluPair.cpp) against the
// two nodes' own kernels run one after the other: equal bit for bit, in both
// layouts, with and without scale/bias, NaN and -0 included; and the pairs it
// does not take.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "KernelChoices.h"
#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

struct BnCase {
  Shape shape;
  int64_t axis;
  bool scale, bias;
};

OpCase batchNorm(const BnCase &k, std::optional<TestTensor> x) {
  const int64_t C = k.shape[size_t(k.axis)];
  OpCase op{"batchNormalization",
            {std::move(x), f32({C}, uniformFloats(C, 2), true), f32({C}, [&] {
               std::vector<float> v = uniformFloats(C, 3);
               for (float &f : v) f = std::fabs(f) + 0.1f;
               return v;
             }(), true)},
            {outSpec(DataType::kFloat32, k.shape)}};
  if (k.scale || k.bias) op.inputs.push_back(k.scale ? std::optional<TestTensor>(f32({C}, uniformFloats(C, 4), true))
                                                       : std::nullopt);
  if (k.bias) op.inputs.push_back(f32({C}, uniformFloats(C, 5), true));
  op.attrInt("axis", k.axis).attrFloat("epsilon", 1e-3);
  return op;
}

TEST(BatchNormReluPair, EqualsTheTwoKernels) {
  const std::vector<BnCase> cases = {{{1, 7, 5, 96}, 3, true, true},   // DenseNet's nhwc blocks
                                     {{2, 6, 3, 5}, 1, true, true},    // nchw
                                     {{1, 3, 4, 13}, 3, false, false},
                                     {{2, 11, 3, 3}, 1, false, true},  // bias without scale
                                     {{4, 9}, 1, true, false}};
  for (const BnCase &k : cases) {
    int64_t n = 1;
    for (int64_t d : k.shape) n *= d;
    std::vector<float> x = uniformFloats(n, 1);
    for (float &v : x) v *= 4.f;
    x[0] = std::numeric_limits<float>::quiet_NaN();
    x[1] = -0.f;
    OpCase bn = batchNorm(k, f32(k.shape, x));
    ASSERT_TRUE(runOp(bn).isOk());
    OpCase relu{"relu", {bn.outputs[0]}, {outSpec(DataType::kFloat32, k.shape)}};
    ASSERT_TRUE(runOp(relu).isOk());
    const std::vector<double> want = relu.outputs[0].values();
    for (int threads : {1, 2}) {
      ScopedKernelChoices choices;
      OpCase a = batchNorm(k, f32(k.shape, x));
      OpCase b{"relu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
      bool fused = false;
      Status s = runPair(a, b, threads, &fused);
      ASSERT_TRUE(s.isOk()) << s.message();
      ASSERT_TRUE(fused) << shapeToString(k.shape);
      EXPECT_EQ(choices.last("batchNormalization + relu").chosen, "batchnorm-relu");
      const std::vector<double> got = b.outputs[0].values();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(double)), 0)
            << shapeToString(k.shape) << " threads " << threads << " element " << i << ": " << got[i] << " vs "
            << want[i];
    }
  }
}

// The arena plan may put the relu's output over x (x dies at the
// batchNormalization): exactly over it, or (tensors of other sizes around
// them) partly, starting before or after x. Each must give the two kernels'
// output bit for bit.
TEST(BatchNormReluPair, OutputOverX) {
  const BnCase k{{1, 28, 28, 128}, 3, true, true};  // DenseNet's first block
  const int64_t n = 28 * 28 * 128;
  std::vector<float> x = uniformFloats(n, 1);
  OpCase bn = batchNorm(k, f32(k.shape, x));
  ASSERT_TRUE(runOp(bn).isOk());
  OpCase relu{"relu", {bn.outputs[0]}, {outSpec(DataType::kFloat32, k.shape)}};
  ASSERT_TRUE(runOp(relu).isOk());
  const std::vector<double> want = relu.outputs[0].values();
  for (int64_t offset : {int64_t(0), int64_t(16), int64_t(-16), n / 2, -n / 2})
    for (int threads : {1, 2}) {
      OpCase a = batchNorm(k, f32(k.shape, x));
      OpCase b{"relu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
      std::vector<float> got;
      bool fused = false;
      Status s = runPairOverInput(a, b, threads, &got, &fused, offset);
      ASSERT_TRUE(s.isOk()) << s.message();
      ASSERT_TRUE(fused);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(double(got[size_t(i)]), want[size_t(i)])
            << "y at x + " << offset << ", threads " << threads << ", element " << i;
    }
}

TEST(BatchNormReluPair, LeavesOtherPairsApart) {
  const BnCase k{{1, 2, 2, 8}, 3, true, true};
  std::vector<float> x = uniformFloats(32, 1);
  bool fused = true;
  // Not a relu after it.
  OpCase a = batchNorm(k, f32(k.shape, x));
  OpCase sig{"sigmoid", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
  ASSERT_TRUE(runPair(a, sig, 1, &fused).isOk());
  EXPECT_FALSE(fused);
  // float16: the nodes run apart (their own float16 adapters).
  OpCase h{"batchNormalization",
           {f16(k.shape, x), f16({8}, uniformFloats(8, 2), true), f16({8}, std::vector<float>(8, 1.f), true)},
           {outSpec(DataType::kFloat16, k.shape)}};
  h.attrInt("axis", 3);
  OpCase hr{"relu", {outSpec(DataType::kFloat16, k.shape)}, {outSpec(DataType::kFloat16, k.shape)}};
  fused = true;
  ASSERT_TRUE(runPair(h, hr, 1, &fused).isOk());
  EXPECT_FALSE(fused);
  // A mean of the wrong size: no pair (batchNormalization's own factory reports it).
  OpCase bad = batchNorm(k, f32(k.shape, x));
  bad.inputs[1] = f32({7}, uniformFloats(7, 2), true);
  OpCase br{"relu", {outSpec(DataType::kFloat32, k.shape)}, {outSpec(DataType::kFloat32, k.shape)}};
  fused = true;
  ASSERT_TRUE(runPair(bad, br, 1, &fused).isOk());
  EXPECT_FALSE(fused);
}

}  // namespace
}  // namespace webnn::cpu::test
