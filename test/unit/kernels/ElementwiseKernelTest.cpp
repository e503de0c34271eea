// Unary kernels added with the later WebNN ops (tan, isNaN, isInfinite),
// against std:: references, float32 and float16, with odd sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

std::vector<float> specialValues(int64_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  const float base[] = {0.f, -0.f, 1.5f, -2.25f, inf, -inf, std::nanf(""), 65504.f, -1e-3f, 3.f};
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = base[i % 10] + (std::isfinite(base[i % 10]) ? float(i % 7) * 0.1f : 0.f);
  return v;
}

TEST(ElementwiseKernels, IsNaNAndIsInfiniteForFloat32AndFloat16) {
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
    for (int64_t n : {0, 1, 10, 37}) {
      std::vector<float> v = specialValues(n);
      for (const char *op : {"isNaN", "isInfinite"}) {
        OpCase c;
        c.op = op;
        c.inputs = {dt == DataType::kFloat32 ? f32({n}, v) : f16({n}, v)};
        c.outputs = {outSpec(DataType::kUint8, {n})};
        ASSERT_TRUE(runOp(c, 2).isOk()) << op;
        for (int64_t i = 0; i < n; ++i) {
          bool want = std::string(op) == "isNaN" ? std::isnan(v[size_t(i)]) : std::isinf(v[size_t(i)]);
          EXPECT_EQ(c.outputs[0].as<uint8_t>()[i], want ? 1 : 0) << op << " element " << i << " = " << v[size_t(i)];
        }
      }
    }
  }
}

TEST(ElementwiseKernels, IsNaNRejectsIntegersAndWrongOutputType) {
  OpCase c;
  c.op = "isNaN";
  c.inputs = {fromDoubles(DataType::kInt32, {2}, {1, 2})};
  c.outputs = {outSpec(DataType::kUint8, {2})};
  EXPECT_FALSE(runOp(c).isOk());
  OpCase d;
  d.op = "isInfinite";
  d.inputs = {f32({2}, {1, 2})};
  d.outputs = {outSpec(DataType::kFloat32, {2})};
  EXPECT_FALSE(runOp(d).isOk());
}

TEST(ElementwiseKernels, TanMatchesStdTan) {
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
    std::vector<float> v;
    for (int i = 0; i < 33; ++i) v.push_back(-1.4f + 0.09f * float(i));
    OpCase c;
    c.op = "tan";
    c.inputs = {dt == DataType::kFloat32 ? f32({3, 11}, v) : f16({3, 11}, v)};
    c.outputs = {outSpec(dt, {3, 11})};
    ASSERT_TRUE(runOp(c).isOk());
    std::vector<double> got = c.outputs[0].values();
    std::vector<double> in = c.inputs[0]->values();
    for (size_t i = 0; i < v.size(); ++i) {
      double want = std::tan(in[i]);
      EXPECT_NEAR(got[i], want, (dt == DataType::kFloat32 ? 1e-5 : 2e-3) * std::max(1.0, std::fabs(want))) << i;
    }
  }
  OpCase bad;
  bad.op = "tan";
  bad.inputs = {fromDoubles(DataType::kInt32, {1}, {1})};
  bad.outputs = {outSpec(DataType::kInt32, {1})};
  EXPECT_FALSE(runOp(bad).isOk());
}

// Unary float ops large enough to run in the pool's units, float32 and
// float16, at 1, 2 and 3 threads.
TEST(ElementwiseKernels, LargeUnaryInUnitsMatchesStd) {
  const int64_t n = 3 * 70001;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = -1.4f + 2.8f * float(i % 1000) / 1000.f;
  for (const char *op : {"tan", "sigmoid"})
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16})
      for (int threads : {1, 2, 3}) {
        OpCase c;
        c.op = op;
        c.inputs = {dt == DataType::kFloat32 ? f32({3, 70001}, v) : f16({3, 70001}, v)};
        c.outputs = {outSpec(dt, {3, 70001})};
        ASSERT_TRUE(runOp(c, threads).isOk()) << op;
        std::vector<double> got = c.outputs[0].values(), in = c.inputs[0]->values();
        for (size_t i = 0; i < got.size(); ++i) {
          double want = std::string(op) == "tan" ? std::tan(in[i]) : 1.0 / (1.0 + std::exp(-in[i]));
          ASSERT_NEAR(got[i], want, (dt == DataType::kFloat32 ? 1e-5 : 2e-3) * std::max(1.0, std::fabs(want)))
              << op << " threads=" << threads << " " << i;
        }
      }
}

// The spec broadcasts prelu's input and slope bidirectionally: the output can
// be larger than the input.
TEST(ElementwiseKernels, PreluBroadcastsBidirectionally) {
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kInt8}) {
    OpCase c;
    c.op = "prelu";
    c.inputs = {fromDoubles(dt, {3}, {-2, 0, 3}), fromDoubles(dt, {2, 1}, {2, -1})};
    c.outputs = {outSpec(dt, {2, 3})};
    ASSERT_TRUE(runOp(c).isOk());
    EXPECT_EQ(c.outputs[0].values(), (std::vector<double>{-4, 0, 3, 2, 0, 3}));
  }
}

}  // namespace
}  // namespace webnn::cpu::test
