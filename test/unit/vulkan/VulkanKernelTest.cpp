// Every GPU kernel against the CPU kernel on the same node: float32 and
// float16 (and integer types where the op takes them), odd sizes, broadcast
// and layout variants. Validation layers are on; any message fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "VulkanTestUtil.h"

namespace webnn::vk::test {
namespace {

using cpu::test::fromDoubles;
using cpu::test::outSpec;

TestTensor random(DataType dt, Shape shape, double lo, double hi, uint32_t seed, bool constant = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  bool integral = dt != DataType::kFloat32 && dt != DataType::kFloat16;
  std::vector<double> v(size_t(elementsOf(shape)));
  for (double &x : v) x = integral ? std::round(d(rng)) : d(rng);
  return fromDoubles(dt, std::move(shape), v, constant);
}

// Whole numbers drawn from [lo, hi].
std::vector<double> randomValues(const Shape &shape, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(size_t(elementsOf(shape)));
  for (double &x : v) x = std::round(d(rng));
  return v;
}

// An int4/uint4 tensor of `v`, packed two per byte (element 2k in the low nibble).
TestTensor packed4(DataType dt, Shape shape, const std::vector<double> &v) {
  TestTensor t{dt, std::move(shape), std::vector<uint8_t>((v.size() + 1) / 2, 0), false};
  for (size_t i = 0; i < v.size(); ++i) t.bytes[i / 2] |= uint8_t((int(v[i]) & 15) << (i % 2 * 4));
  return t;
}

double rtolFor(DataType dt) { return dt == DataType::kFloat16 ? 4e-3 : 2e-5; }
double atolFor(DataType dt) { return dt == DataType::kFloat16 ? 2e-3 : 2e-6; }

class VulkanKernels : public VulkanDeviceFixture {
 protected:
  void expectMatch(const OpCase &c, double rtol, double atol) {
    std::string diff = compareWithCpu(device_, c, rtol, atol);
    EXPECT_TRUE(diff.empty()) << diff;
  }
  void expectMatch(const OpCase &c, DataType dt) { expectMatch(c, rtolFor(dt), atolFor(dt)); }
};

const DataType kFloats[] = {DataType::kFloat32, DataType::kFloat16};

TEST_F(VulkanKernels, BinaryWithBroadcasting) {
  struct Shapes {
    Shape a, b, out;
  };
  const Shapes shapes[] = {{{17}, {17}, {17}}, {{3, 1, 5}, {4, 1}, {3, 4, 5}}, {{}, {2, 33}, {2, 33}},
                           {{5, 1, 1, 7}, {1, 6, 1, 1}, {5, 6, 1, 7}}, {{2, 1, 3, 1, 2, 3}, {3, 2, 1}, {2, 1, 3, 3, 2, 3}}};
  uint32_t seed = 1;
  for (DataType dt : kFloats)
    for (const char *op : {"add", "sub", "mul", "div", "max", "min", "pow"})
      for (const Shapes &s : shapes) {
        bool isPow = std::string(op) == "pow";
        OpCase c{op, {random(dt, s.a, isPow ? 0.1 : -5, 5, seed++), random(dt, s.b, isPow ? -2 : -5, isPow ? 2 : 5, seed++)},
                 {outSpec(dt, s.out)}};
        SCOPED_TRACE(std::string(op) + " " + std::string(dataTypeName(dt)));
        expectMatch(c, dt);
      }
  for (DataType dt : {DataType::kInt32, DataType::kInt64, DataType::kUint8})
    for (const char *op : {"add", "mul", "max", "min"}) {
      OpCase c{op, {random(dt, {3, 4}, 0, 9, seed++), random(dt, {4}, 0, 9, seed++)}, {outSpec(dt, {3, 4})}};
      SCOPED_TRACE(std::string(op) + " " + std::string(dataTypeName(dt)));
      expectMatch(c, 0, 0);
    }
  for (DataType dt : kFloats) {
    OpCase pr{"prelu", {random(dt, {2, 3, 5}, -3, 3, seed++), random(dt, {3, 1}, 0, 1, seed++, true)},
              {outSpec(dt, {2, 3, 5})}};
    expectMatch(pr, dt);
  }
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt64, DataType::kUint8}) {
    OpCase w{"where",
             {random(DataType::kUint8, {3, 1, 4}, 0, 1, seed++), random(dt, {5, 1}, 0, 9, seed++),
              random(dt, {3, 5, 4}, 0, 9, seed++)},
             {outSpec(dt, {3, 5, 4})}};
    SCOPED_TRACE(std::string("where ") + std::string(dataTypeName(dt)));
    expectMatch(w, 0, 0);
  }
  for (DataType dt : kFloats)
    for (const char *op : {"equal", "greater", "greaterOrEqual", "lesser", "lesserOrEqual"}) {
      OpCase c{op, {random(dt, {4, 5}, -3, 3, seed++), random(DataType(dt), {5}, -3, 3, seed++)},
               {outSpec(DataType::kUint8, {4, 5})}};
      SCOPED_TRACE(op);
      expectMatch(c, 0, 0);
    }
}

TEST_F(VulkanKernels, UnaryAndActivations) {
  uint32_t seed = 100;
  for (DataType dt : kFloats)
    for (const char *op : {"abs", "ceil", "floor", "exp", "neg", "relu", "sigmoid", "tanh", "erf", "gelu", "elu",
                           "hardSigmoid", "hardSwish", "leakyRelu", "linear", "identity", "sin", "cos", "softsign",
                           "reciprocal"}) {
      OpCase c{op, {random(dt, {3, 67}, -4, 4, seed++)}, {outSpec(dt, {3, 67})}};
      if (std::string(op) == "elu" || std::string(op) == "leakyRelu") c.attrFloat("alpha", 0.3);
      if (std::string(op) == "linear") c.attrFloat("alpha", 1.5).attrFloat("beta", -0.25);
      SCOPED_TRACE(std::string(op) + " " + std::string(dataTypeName(dt)));
      expectMatch(c, dt == DataType::kFloat16 ? 4e-3 : 2e-5, dt == DataType::kFloat16 ? 2e-3 : 2e-6);
    }
  for (DataType dt : kFloats)
    for (const char *op : {"log", "sqrt"}) {
      OpCase c{op, {random(dt, {131}, 0.01, 9, seed++)}, {outSpec(dt, {131})}};
      expectMatch(c, dt);
    }
  OpCase clamp{"clamp", {random(DataType::kFloat32, {50}, -3, 3, seed++)}, {outSpec(DataType::kFloat32, {50})}};
  clamp.attrFloat("minValue", -1).attrFloat("maxValue", 0.5);
  expectMatch(clamp, 0, 0);
  for (const char *op : {"abs", "neg", "relu"}) {
    OpCase c{op, {random(DataType::kInt32, {20}, -9, 9, seed++)}, {outSpec(DataType::kInt32, {20})}};
    expectMatch(c, 0, 0);
  }
  for (const char *op : {"isNaN", "isInfinite"}) {
    OpCase c{op, {cpu::test::f32({6}, {1.0f, NAN, INFINITY, -INFINITY, 0.0f, -3.5f})}, {outSpec(DataType::kUint8, {6})}};
    expectMatch(c, 0, 0);
  }
  OpCase notOp{"logicalNot", {random(DataType::kUint8, {9}, 0, 1, seed++)}, {outSpec(DataType::kUint8, {9})}};
  expectMatch(notOp, 0, 0);
}

TEST_F(VulkanKernels, Cast) {
  const std::pair<DataType, DataType> pairs[] = {
      {DataType::kFloat32, DataType::kInt32}, {DataType::kFloat32, DataType::kFloat16},
      {DataType::kFloat16, DataType::kFloat32}, {DataType::kInt32, DataType::kFloat32},
      {DataType::kFloat32, DataType::kUint8}, {DataType::kInt64, DataType::kInt32},
      {DataType::kInt32, DataType::kInt64}, {DataType::kUint8, DataType::kFloat16},
      {DataType::kInt8, DataType::kInt32}, {DataType::kFloat32, DataType::kInt64}};
  uint32_t seed = 200;
  for (auto [from, to] : pairs) {
    bool unsignedTarget = to == DataType::kUint8;
    OpCase c{"cast", {random(from, {37}, unsignedTarget ? 0 : -100, 100, seed++)}, {outSpec(to, {37})}};
    c.attrString("type", std::string(dataTypeName(to)));
    SCOPED_TRACE(std::string(dataTypeName(from)) + " -> " + std::string(dataTypeName(to)));
    expectMatch(c, 0, 0);
  }
}

// float64 <-> float32/float16 casts, converted with integer arithmetic in
// the shader: ties to even, float subnormals, overflow to infinity,
// underflow to zero, NaN, signed zeros, and exact widening of float
// subnormals. Other float64 casts are refused.
TEST_F(VulkanKernels, Float64Casts) {
  const double tiny = std::ldexp(1.0, -149);  // the smallest float subnormal
  std::vector<double> v = {0.0, -0.0, 1.0, -2.5, 1.0 / 3.0, 1e10, -1e-10, 3.4028234663852886e38,
                           3.5e38, -1e300, 1e-300, 1e-40, -1e-44, tiny, tiny / 2, tiny * 0.75, tiny * 1.5,
                           1.0 + std::ldexp(1.0, -24), 1.0 + 3 * std::ldexp(1.0, -24),
                           1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -52), 65504.0, 65520.0, 1e-8,
                           INFINITY, -INFINITY, NAN, 123456789.123, std::ldexp(1.0, -126) * (1 - std::ldexp(1.0, -30))};
  Shape shape = {int64_t(v.size())};
  for (DataType to : {DataType::kFloat32, DataType::kFloat16}) {
    SCOPED_TRACE(std::string("float64 -> ") + std::string(dataTypeName(to)));
    OpCase c{"cast", {fromDoubles(DataType::kFloat64, shape, v)}, {outSpec(to, shape)}};
    c.attrString("type", std::string(dataTypeName(to)));
    expectMatch(c, 0, 0);
  }
  for (DataType from : {DataType::kFloat32, DataType::kFloat16}) {
    SCOPED_TRACE(std::string(dataTypeName(from)) + " -> float64");
    OpCase c{"cast", {fromDoubles(from, shape, v)}, {outSpec(DataType::kFloat64, shape)}};
    c.attrString("type", "float64");
    expectMatch(c, 0, 0);
  }
  OpCase bad{"cast", {fromDoubles(DataType::kFloat64, {2}, {1.0, 2.0})}, {outSpec(DataType::kInt32, {2})}};
  bad.attrString("type", "int32");
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("float64"), std::string::npos) << st.message();
}

// float64 arithmetic in double (the WEBNN_FLOAT64 shader variants) on
// devices with shaderFloat64: binary ops and comparisons, reductions,
// cumulativeSum. pow and the log/exp reductions (no double transcendentals
// in GLSL) are refused.
TEST_F(VulkanKernels, Float64Arithmetic) {
  if (!device_->info().float64) GTEST_SKIP() << "no shaderFloat64 on " << device_->info().name;
  const DataType f64 = DataType::kFloat64;
  uint32_t seed = 250;
  for (const char *op : {"add", "sub", "mul", "div", "max", "min"}) {
    SCOPED_TRACE(op);
    OpCase c{op, {random(f64, {3, 1, 5}, -5, 5, seed++), random(f64, {4, 1}, 0.5, 5, seed++)}, {outSpec(f64, {3, 4, 5})}};
    expectMatch(c, 1e-15, 0);
  }
  for (const char *op : {"equal", "greater", "lesserOrEqual"}) {
    OpCase c{op, {random(f64, {4, 5}, -2, 2, seed++), random(f64, {5}, -2, 2, seed++)},
             {outSpec(DataType::kUint8, {4, 5})}};
    expectMatch(c, 0, 0);
  }
  for (const char *op : {"reduceSum", "reduceMean", "reduceMax", "reduceMin", "reduceProduct", "reduceL1", "reduceL2",
                         "reduceSumSquare"}) {
    SCOPED_TRACE(op);
    OpCase r{op, {random(f64, {3, 4, 5}, 0.5, 1.5, seed++)}, {outSpec(f64, {4})}};
    r.attrInts("axes", {0, 2});
    expectMatch(r, 1e-13, 0);
  }
  OpCase am{"argMax", {random(f64, {3, 7}, -4, 4, seed++)}, {outSpec(DataType::kInt64, {3})}};
  am.attrInt("axis", 1).attrString("outputDataType", "int64");
  expectMatch(am, 0, 0);
  for (bool exclusive : {false, true}) {
    OpCase c{"cumulativeSum", {random(f64, {3, 6, 4}, -5, 5, seed++)}, {outSpec(f64, {3, 6, 4})}};
    c.attrInt("axis", 1).attrBool("exclusive", exclusive).attrBool("reversed", !exclusive);
    expectMatch(c, 1e-13, 0);
  }
  OpCase pw{"pow", {random(f64, {4}, 1, 2, seed++), random(f64, {4}, 1, 2, seed++)}, {outSpec(f64, {4})}};
  Status st = runGpuOp(device_, pw);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("float64"), std::string::npos) << st.message();
  OpCase lse{"reduceLogSumExp", {random(f64, {4, 3}, 1, 2, seed++)}, {outSpec(f64, {})}};
  st = runGpuOp(device_, lse);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("float64"), std::string::npos) << st.message();
}

TEST_F(VulkanKernels, DataMovement) {
  uint32_t seed = 300;
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt64, DataType::kUint8}) {
    SCOPED_TRACE(dataTypeName(dt));
    OpCase r{"reshape", {random(dt, {2, 3, 5}, -9, 9, seed++)}, {outSpec(dt, {6, 5})}};
    r.attrInts("newShape", {6, 5});
    expectMatch(r, 0, 0);
    OpCase t{"transpose", {random(dt, {2, 3, 4, 5}, -9, 9, seed++)}, {outSpec(dt, {5, 2, 4, 3})}};
    t.attrInts("permutation", {3, 0, 2, 1});
    expectMatch(t, 0, 0);
    OpCase e{"expand", {random(dt, {3, 1}, -9, 9, seed++)}, {outSpec(dt, {2, 3, 4})}};
    e.attrInts("newShape", {2, 3, 4});
    expectMatch(e, 0, 0);
    OpCase s{"slice", {random(dt, {7, 9}, -9, 9, seed++)}, {outSpec(dt, {3, 4})}};
    s.attrInts("starts", {1, 2}).attrInts("sizes", {5, 7}).attrInts("strides", {2, 2});
    expectMatch(s, 0, 0);
    OpCase cc{"concat",
              {random(dt, {2, 3, 2}, -9, 9, seed++), random(dt, {2, 1, 2}, -9, 9, seed++),
               random(dt, {2, 4, 2}, -9, 9, seed++, true)},
              {outSpec(dt, {2, 8, 2})}};
    cc.attrInt("axis", 1);
    expectMatch(cc, 0, 0);
    for (const char *mode : {"constant", "edge", "reflection", "symmetric"}) {
      OpCase pd{"pad", {random(dt, {3, 4, 5}, -9, 9, seed++)}, {outSpec(dt, {5, 4, 9})}};
      pd.attrInts("beginningPadding", {1, 0, 2}).attrInts("endingPadding", {1, 0, 2}).attrString("mode", mode);
      pd.attrFloat("value", 3.0);
      SCOPED_TRACE(mode);
      expectMatch(pd, 0, 0);
    }
    OpCase tl{"tile", {random(dt, {2, 3, 1}, -9, 9, seed++)}, {outSpec(dt, {4, 3, 5})}};
    tl.attrInts("repetitions", {2, 1, 5});
    expectMatch(tl, 0, 0);
    OpCase rv{"reverse", {random(dt, {3, 4, 5}, -9, 9, seed++)}, {outSpec(dt, {3, 4, 5})}};
    rv.attrInts("axes", {0, 2});
    expectMatch(rv, 0, 0);
    for (bool upper : {true, false}) {
      OpCase tr{"triangular", {random(dt, {2, 5, 6}, -9, 9, seed++)}, {outSpec(dt, {2, 5, 6})}};
      tr.attrBool("upper", upper).attrInt("diagonal", upper ? 1 : -2);
      expectMatch(tr, 0, 0);
    }
    OpCase sp{"split", {random(dt, {4, 6}, -9, 9, seed++)}, {outSpec(dt, {4, 2}), outSpec(dt, {4, 4})}};
    sp.attrInt("axis", 1).attrInts("splits", {2, 4});
    expectMatch(sp, 0, 0);
  }
}

TEST_F(VulkanKernels, Gather) {
  uint32_t seed = 400;
  for (DataType idx : {DataType::kInt32, DataType::kInt64, DataType::kUint32})
    for (int64_t axis : {0, 1}) {
      OpCase c{"gather",
               {random(DataType::kFloat32, {4, 5, 3}, -9, 9, seed++),
                random(idx, {2, 3}, idx == DataType::kUint32 ? 0 : -4, 3, seed++)},
               {outSpec(DataType::kFloat32, axis == 0 ? Shape{2, 3, 5, 3} : Shape{4, 2, 3, 3})}};
      c.attrInt("axis", axis);
      expectMatch(c, 0, 0);
      OpCase e{"gatherElements",
               {random(DataType::kFloat16, {4, 5, 3}, -9, 9, seed++),
                random(idx, axis == 0 ? Shape{2, 5, 3} : Shape{4, 7, 3}, idx == DataType::kUint32 ? 0 : -4, 3, seed++)},
               {outSpec(DataType::kFloat16, axis == 0 ? Shape{2, 5, 3} : Shape{4, 7, 3})}};
      e.attrInt("axis", axis);
      expectMatch(e, 0, 0);
    }
}

// gatherND, scatterND, scatterElements: every index type, negative indices
// (from the end), out-of-range ones (clamped, the CPU kernels' rule: int64
// beyond the int32 range included), repeated coordinates (the last update
// wins), empty indices and slices.
TEST_F(VulkanKernels, GatherNdAndScatter) {
  using cpu::test::f32;
  uint32_t seed = 450;
  const DataType kIndexTypes[] = {DataType::kInt32, DataType::kInt64, DataType::kUint32, DataType::kInt8};
  for (DataType it : kIndexTypes) {
    SCOPED_TRACE(dataTypeName(it));
    bool isSigned = it != DataType::kUint32;
    std::vector<double> coords = isSigned ? std::vector<double>{0, 1, -1, 2, 3, -4, 9, -9, 1, 1, 0, 2}
                                          : std::vector<double>{0, 1, 3, 2, 3, 0, 9, 7, 1, 1, 0, 2};
    if (it == DataType::kInt64) coords[6] = 1099511627776.0, coords[7] = -1099511627776.0;  // +-2^40
    // K = 2 of a rank-3 input: slices of 5.
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt64, DataType::kUint8}) {
      OpCase g{"gatherND", {random(dt, {4, 3, 5}, -9, 9, seed++), fromDoubles(it, {2, 3, 2}, coords)},
               {outSpec(dt, {2, 3, 5})}};
      expectMatch(g, 0, 0);
    }
    // K = rank: single elements; K = 1: whole rows.
    OpCase g1{"gatherND", {random(DataType::kFloat32, {4, 3}, -9, 9, seed++), fromDoubles(it, {6, 2}, coords)},
              {outSpec(DataType::kFloat32, {6})}};
    expectMatch(g1, 0, 0);
    OpCase g2{"gatherND", {random(DataType::kFloat32, {4, 3}, -9, 9, seed++), fromDoubles(it, {3, 4, 1}, coords)},
              {outSpec(DataType::kFloat32, {3, 4, 3})}};
    expectMatch(g2, 0, 0);
    // scatterND with repeated coordinates ({1, 1} twice among the tuples).
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kInt8}) {
      OpCase sc{"scatterND",
                {random(dt, {4, 3, 5}, -9, 9, seed++), fromDoubles(it, {6, 2}, coords),
                 random(dt, {6, 5}, -9, 9, seed++)},
                {outSpec(dt, {4, 3, 5})}};
      expectMatch(sc, 0, 0);
      OpCase se{"scatterND",
                {random(dt, {4, 3}, -9, 9, seed++), fromDoubles(it, {4, 3, 1}, coords), random(dt, {4, 3, 3}, -9, 9, seed++)},
                {outSpec(dt, {4, 3})}};
      expectMatch(se, 0, 0);
    }
    OpCase s1{"scatterND",
              {random(DataType::kFloat32, {4, 3}, -9, 9, seed++), fromDoubles(it, {6, 2}, coords),
               random(DataType::kFloat32, {6}, -9, 9, seed++)},
              {outSpec(DataType::kFloat32, {4, 3})}};
    expectMatch(s1, 0, 0);
    // scatterElements / gatherElements along each axis, repeated indices.
    for (int64_t axis : {0, 1, -1}) {
      Shape ind = axis == 0 ? Shape{3, 4} : Shape{4, 3};
      std::vector<double> v(coords.begin(), coords.end());
      for (double &c : v)
        if (axis == 0 && c > 3) c = 3;  // keep some in range along the short axis, others clamped
      OpCase se{"scatterElements",
                {random(DataType::kFloat32, {4, 4}, -9, 9, seed++), fromDoubles(it, ind, v),
                 random(DataType::kFloat32, ind, -9, 9, seed++)},
                {outSpec(DataType::kFloat32, {4, 4})}};
      se.attrInt("axis", axis);
      expectMatch(se, 0, 0);
      OpCase ge{"gatherElements", {random(DataType::kInt64, {4, 4}, -9, 9, seed++), fromDoubles(it, ind, v)},
                {outSpec(DataType::kInt64, ind)}};
      ge.attrInt("axis", axis);
      expectMatch(ge, 0, 0);
    }
  }
  // Empty indices: gatherND gives an empty output, scatters copy the input.
  OpCase ge{"gatherND", {random(DataType::kFloat32, {4, 3}, -9, 9, seed++), fromDoubles(DataType::kInt32, {0, 2}, {})},
            {outSpec(DataType::kFloat32, {0})}};
  expectMatch(ge, 0, 0);
  OpCase se{"scatterND",
            {random(DataType::kFloat32, {4, 3}, -9, 9, seed++), fromDoubles(DataType::kInt32, {0, 1}, {}),
             fromDoubles(DataType::kFloat32, {0, 3}, {})},
            {outSpec(DataType::kFloat32, {4, 3})}};
  expectMatch(se, 0, 0);
  OpCase ee{"scatterElements",
            {random(DataType::kFloat32, {4, 3}, -9, 9, seed++), fromDoubles(DataType::kInt32, {0, 3}, {}),
             fromDoubles(DataType::kFloat32, {0, 3}, {})},
            {outSpec(DataType::kFloat32, {4, 3})}};
  expectMatch(ee, 0, 0);
  // A slice of zero elements (input [4, 0]).
  OpCase sz{"gatherND", {fromDoubles(DataType::kFloat32, {4, 0}, {}), fromDoubles(DataType::kInt32, {2, 1}, {1, 3})},
            {outSpec(DataType::kFloat32, {2, 0})}};
  expectMatch(sz, 0, 0);
  // Many tuples onto few slice elements: one invocation walks them all in order.
  std::vector<double> many(2000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = double((i * 7) % 5);
  OpCase sm{"scatterND",
            {random(DataType::kFloat32, {5}, -9, 9, seed++), fromDoubles(DataType::kInt32, {2000, 1}, many),
             random(DataType::kFloat32, {2000}, -9, 9, seed++)},
            {outSpec(DataType::kFloat32, {5})}};
  expectMatch(sm, 0, 0);
  (void)f32;
}

// resample2d: both modes, up and down, non-integer scales, each axis pair
// (nchw, nhwc, and descending axes), float16 and 8-bit integers.
TEST_F(VulkanKernels, Resample2d) {
  uint32_t seed = 470;
  struct Case {
    Shape x, y;
    std::vector<int64_t> axes;
  };
  const Case cases[] = {{{1, 2, 3, 4}, {1, 2, 6, 8}, {2, 3}},   {{2, 3, 7, 5}, {2, 3, 3, 11}, {2, 3}},
                        {{1, 5, 4, 3}, {1, 10, 9, 3}, {1, 2}},  {{1, 4, 6, 2}, {1, 3, 3, 2}, {1, 2}},
                        {{2, 3, 4, 5}, {2, 3, 7, 5}, {2, 1}},  {{3, 1, 2, 4}, {5, 1, 2, 4}, {0, 3}},
                        {{1, 1, 1, 1}, {1, 1, 3, 2}, {2, 3}},  {{1, 2, 9, 9}, {1, 2, 4, 2}, {2, 3}}};
  for (const char *mode : {"nearest-neighbor", "linear"})
    for (const Case &c : cases)
      for (DataType dt : kFloats) {
        SCOPED_TRACE(std::string(mode) + " " + webnn::shapeToString(c.y) + " " + std::string(dataTypeName(dt)));
        OpCase r{"resample2d", {random(dt, c.x, -5, 5, seed++)}, {outSpec(dt, c.y)}};
        r.attrString("mode", mode).attrInts("axes", c.axes);
        r.attrInts("sizes", {c.y[size_t(c.axes[0])], c.y[size_t(c.axes[1])]});
        if (std::string(mode) == "linear") expectMatch(r, dt);
        else expectMatch(r, 0, 0);
      }
  // 8-bit: 2x scales give weights in quarters, so the blends are exact and
  // round half to even the same way on both.
  for (const char *mode : {"nearest-neighbor", "linear"})
    for (DataType dt : {DataType::kInt8, DataType::kUint8}) {
      SCOPED_TRACE(std::string(mode) + " " + std::string(dataTypeName(dt)));
      OpCase r{"resample2d", {random(dt, {1, 3, 4, 5}, dt == DataType::kInt8 ? -128 : 0, dt == DataType::kInt8 ? 127 : 255, seed++)},
               {outSpec(dt, {1, 3, 8, 10})}};
      r.attrString("mode", mode).attrInts("sizes", {8, 10});
      expectMatch(r, 0, 0);
    }
  // An empty resampled dimension is refused (as on the CPU), naming it.
  OpCase z{"resample2d", {fromDoubles(DataType::kFloat32, {1, 1, 0, 2}, {})}, {outSpec(DataType::kFloat32, {1, 1, 0, 4})}};
  z.attrInts("sizes", {0, 4});
  Status st = runGpuOp(device_, z);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("non-empty"), std::string::npos) << st.message();
}

// quantizeLinear / dequantizeLinear: per-tensor, per-axis, block-wise and
// lower-rank scales; every integer type; saturation, NaN and infinities,
// int32 zero points near the type's limits (the 64-bit sum and difference).
TEST_F(VulkanKernels, Quantization) {
  uint32_t seed = 490;
  struct Case {
    Shape x, scale;
  };
  const Case cases[] = {{{2, 3, 8}, {}}, {{2, 3, 8}, {1, 3, 1}}, {{2, 3, 8}, {3, 1}}, {{2, 3, 8}, {2, 3, 2}},
                        {{4, 6}, {2, 3}}, {{7}, {7}}, {{}, {}}};
  for (DataType q : {DataType::kInt8, DataType::kUint8, DataType::kInt32, DataType::kUint32})
    for (DataType f : kFloats)
      for (const Case &c : cases) {
        SCOPED_TRACE(std::string(dataTypeName(q)) + " " + std::string(dataTypeName(f)) + " scale " +
                     webnn::shapeToString(c.scale));
        bool s = q == DataType::kInt8 || q == DataType::kInt32;
        double zlo = s ? -20 : 0, zhi = 20;
        OpCase qz{"quantizeLinear",
                  {random(f, c.x, -300, 300, seed++), random(f, c.scale, 0.05, 2, seed++),
                   random(q, c.scale, zlo, zhi, seed++)},
                  {outSpec(q, c.x)}};
        expectMatch(qz, 0, 0);
        OpCase dq{"dequantizeLinear",
                  {random(q, c.x, s ? -100 : 0, 200, seed++), random(f, c.scale, 0.05, 2, seed++),
                   random(q, c.scale, zlo, zhi, seed++)},
                  {outSpec(f, c.x)}};
        expectMatch(dq, f);
      }
  // Edge values: NaN -> zero point, infinities and large values saturate, a
  // zero scale; int32/uint32 zero points at their limits.
  std::vector<double> xs = {NAN, INFINITY, -INFINITY, 1e30, -1e30, 2.5, -2.5, 3.5, 0.0, 4e9, -4e9, 2147483520.0};
  for (DataType q : {DataType::kInt8, DataType::kUint8, DataType::kInt32, DataType::kUint32})
    for (double zp : {0.0, 1.0, -1.0, 2147483647.0, -2147483648.0, 4294967295.0}) {
      bool s = q == DataType::kInt8 || q == DataType::kInt32;
      double lo = q == DataType::kInt8 ? -128 : q == DataType::kUint8 ? 0 : q == DataType::kInt32 ? -2147483648.0 : 0;
      double hi = q == DataType::kInt8 ? 127 : q == DataType::kUint8 ? 255 : q == DataType::kInt32 ? 2147483647.0 : 4294967295.0;
      if (zp < lo || zp > hi || (!s && zp < 0)) continue;
      SCOPED_TRACE(std::string(dataTypeName(q)) + " zp " + std::to_string(zp));
      OpCase qz{"quantizeLinear",
                {fromDoubles(DataType::kFloat32, {12}, xs), fromDoubles(DataType::kFloat32, {1}, {1.0}),
                 fromDoubles(q, {1}, {zp})},
                {outSpec(q, {12})}};
      expectMatch(qz, 0, 0);
      OpCase zs{"quantizeLinear",
                {fromDoubles(DataType::kFloat32, {3}, {1.0, -1.0, 0.0}), fromDoubles(DataType::kFloat32, {1}, {0.0}),
                 fromDoubles(q, {1}, {zp})},
                {outSpec(q, {3})}};
      expectMatch(zs, 0, 0);
      std::vector<double> ints = {lo, hi, 0, lo + 1, hi - 1};
      OpCase dq{"dequantizeLinear",
                {fromDoubles(q, {5}, ints), fromDoubles(DataType::kFloat32, {1}, {0.5}), fromDoubles(q, {1}, {zp})},
                {outSpec(DataType::kFloat32, {5})}};
      expectMatch(dq, 1e-7, 0);
    }
  // int4/uint4, packed two per byte: odd and even element counts (a 4-bit
  // output is written a byte per invocation; its last high nibble is 0),
  // per-tensor, per-axis and block-wise zero points, saturation at -8..7 and
  // 0..15, NaN to the zero point.
  for (DataType q : {DataType::kInt4, DataType::kUint4}) {
    bool s = q == DataType::kInt4;
    for (const Case &c : {Case{{7}, {}}, Case{{2, 3, 4}, {3, 1}}, Case{{3, 6}, {3, 2}}, Case{{5, 3}, {1, 3}}}) {
      SCOPED_TRACE(std::string(dataTypeName(q)) + " scale " + webnn::shapeToString(c.scale) + " input " +
                   webnn::shapeToString(c.x));
      std::vector<double> xs = randomValues(c.x, -12, 12, seed++);
      if (!xs.empty()) xs[0] = NAN;
      OpCase qz{"quantizeLinear",
                {fromDoubles(DataType::kFloat32, c.x, xs), random(DataType::kFloat32, c.scale, 0.4, 1.5, seed++),
                 packed4(q, c.scale, randomValues(c.scale, s ? -3 : 0, 3, seed++))},
                {outSpec(q, c.x)}};
      expectMatch(qz, 0, 0);
      for (DataType f : kFloats) {
        OpCase dq{"dequantizeLinear",
                  {packed4(q, c.x, randomValues(c.x, s ? -8 : 0, s ? 7 : 15, seed++)),
                   random(f, c.scale, 0.05, 2, seed++), packed4(q, c.scale, randomValues(c.scale, s ? -8 : 0, s ? 7 : 15, seed++))},
                  {outSpec(f, c.x)}};
        expectMatch(dq, f);
      }
    }
  }
  // An empty input (no dispatch) and a per-axis scale over an empty dim.
  OpCase e{"dequantizeLinear",
           {fromDoubles(DataType::kUint8, {0, 4}, {}), random(DataType::kFloat32, {4}, 0.5, 1, seed++),
            random(DataType::kUint8, {4}, 0, 9, seed++)},
           {outSpec(DataType::kFloat32, {0, 4})}};
  expectMatch(e, 0, 0);
  // A scale that does not tile the input is refused with a clear message.
  OpCase bad{"quantizeLinear",
             {random(DataType::kFloat32, {2, 5}, -1, 1, seed++), random(DataType::kFloat32, {2}, 0.5, 1, seed++),
              random(DataType::kUint8, {2}, 0, 9, seed++)},
             {outSpec(DataType::kUint8, {2, 5})}};
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("block-wise"), std::string::npos) << st.message();
}

// Ranks above 6: dims every operand walks as one are merged (binary, where,
// copies); copies walk what still exceeds 6 dims in dispatches of their own
// (a rank-4 tile is 8 dims); a binary op that cannot merge is refused.
TEST_F(VulkanKernels, RanksAboveSix) {
  uint32_t seed = 480;
  OpCase b{"sub", {random(DataType::kFloat32, {2, 3, 2, 2, 1, 2, 3, 2}, -9, 9, seed++),
                   random(DataType::kFloat32, {3, 2, 2, 1, 1, 1, 1}, -9, 9, seed++)},
           {outSpec(DataType::kFloat32, {2, 3, 2, 2, 1, 2, 3, 2})}};
  expectMatch(b, 0, 0);
  OpCase e{"equal", {random(DataType::kInt64, {2, 2, 1, 2, 2, 2, 2}, 0, 2, seed++),
                     random(DataType::kInt64, {1}, 0, 2, seed++)},
           {outSpec(DataType::kUint8, {2, 2, 1, 2, 2, 2, 2})}};
  expectMatch(e, 0, 0);
  OpCase w{"where",
           {random(DataType::kUint8, {2, 1, 2, 2, 2, 2, 3}, 0, 1, seed++), random(DataType::kFloat32, {1}, -9, 9, seed++),
            random(DataType::kFloat32, {2, 2, 2, 2, 2, 2, 3}, -9, 9, seed++)},
           {outSpec(DataType::kFloat32, {2, 2, 2, 2, 2, 2, 3})}};
  expectMatch(w, 0, 0);
  OpCase t{"transpose", {random(DataType::kFloat16, {2, 3, 2, 2, 3, 2, 2}, -9, 9, seed++)},
           {outSpec(DataType::kFloat16, {2, 2, 3, 2, 2, 3, 2})}};
  t.attrInts("permutation", {6, 5, 4, 3, 2, 1, 0});
  expectMatch(t, 0, 0);
  OpCase tl{"tile", {random(DataType::kInt32, {2, 3, 2, 3}, -9, 9, seed++)}, {outSpec(DataType::kInt32, {4, 6, 4, 9})}};
  tl.attrInts("repetitions", {2, 2, 2, 3});
  expectMatch(tl, 0, 0);
  // Alternating broadcast dims cannot merge: 8 dims stay 8.
  OpCase bad{"add", {random(DataType::kFloat32, {2, 1, 2, 1, 2, 1, 2, 1}, -9, 9, seed++),
                     random(DataType::kFloat32, {2, 1, 2, 1, 2, 1, 2}, -9, 9, seed++)},
             {outSpec(DataType::kFloat32, {2, 2, 2, 2, 2, 2, 2, 2})}};
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("rank above 6"), std::string::npos) << st.message();
}

TEST_F(VulkanKernels, MatMulAndGemm) {
  uint32_t seed = 500;
  for (DataType dt : kFloats) {
    SCOPED_TRACE(dataTypeName(dt));
    double rtol = dt == DataType::kFloat16 ? 1e-2 : 1e-4, atol = dt == DataType::kFloat16 ? 1e-2 : 1e-4;
    OpCase m{"matmul", {random(dt, {3, 5}, -1, 1, seed++), random(dt, {5, 7}, -1, 1, seed++)}, {outSpec(dt, {3, 7})}};
    expectMatch(m, rtol, atol);
    OpCase b{"matmul", {random(dt, {2, 1, 17, 33}, -1, 1, seed++), random(dt, {3, 33, 18}, -1, 1, seed++, true)},
             {outSpec(dt, {2, 3, 17, 18})}};
    expectMatch(b, rtol, atol);
    OpCase g{"gemm",
             {random(dt, {40, 19}, -1, 1, seed++), random(dt, {21, 40}, -1, 1, seed++, true),
              random(dt, {21}, -1, 1, seed++, true)},
             {outSpec(dt, {19, 21})}};
    g.attrBool("aTranspose", true).attrBool("bTranspose", true).attrFloat("alpha", 0.5).attrFloat("beta", 2.0);
    expectMatch(g, rtol, atol);
    for (const char *act : {"none", "relu", "gelu"}) {
      SCOPED_TRACE(act);
      OpCase f{"fusedMatmul",
               {random(dt, {2, 5, 19}, -1, 1, seed++), random(dt, {19, 21}, -1, 1, seed++, true),
                random(dt, {21}, -1, 1, seed++, true), random(dt, {2, 5, 21}, -1, 1, seed++)},
               {outSpec(dt, {2, 5, 21})}};
      f.attrFloat("alpha", 0.5).attrString("activation", act);
      expectMatch(f, rtol, atol);
    }
    // Register blocks (matmul.comp's TM x TN): 4 x 4 with partial blocks
    // in both dimensions and a batch, 4 x 2, and transposed gemm operands
    // with a per-row bias on 4 x 4 blocks (float32: float16 differs only in
    // loads and stores, covered above; lavapipe's pipeline builds are slow).
    if (dt == DataType::kFloat16) continue;
    OpCase big{"matmul", {random(dt, {2, 70, 45}, -1, 1, seed++), random(dt, {2, 45, 131}, -1, 1, seed++)},
               {outSpec(dt, {2, 70, 131})}};
    expectMatch(big, rtol, atol);
    OpCase mid{"fusedMatmul",
               {random(dt, {100, 30}, -1, 1, seed++), random(dt, {30, 40}, -1, 1, seed++, true),
                random(dt, {40}, -1, 1, seed++, true), random(dt, {100, 40}, -1, 1, seed++)},
               {outSpec(dt, {100, 40})}};
    mid.attrString("activation", "gelu");
    expectMatch(mid, rtol, atol);
    OpCase gt{"gemm",
              {random(dt, {33, 66}, -1, 1, seed++), random(dt, {67, 33}, -1, 1, seed++, true),
               random(dt, {66, 1}, -1, 1, seed++, true)},
              {outSpec(dt, {66, 67})}};
    gt.attrBool("aTranspose", true).attrBool("bTranspose", true).attrFloat("beta", 0.5);
    expectMatch(gt, rtol, atol);
  }
}

TEST_F(VulkanKernels, Convolutions) {
  uint32_t seed = 600;
  struct Conv {
    const char *inputLayout, *filterLayout;
    Shape x, f, y;
    int64_t groups;
    std::vector<int64_t> padding, strides, dilations;
  };
  const Conv convs[] = {
      {"nchw", "oihw", {1, 3, 9, 8}, {4, 3, 3, 3}, {1, 4, 7, 6}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {"nchw", "oihw", {2, 4, 10, 9}, {6, 2, 3, 2}, {2, 6, 5, 5}, 2, {1, 1, 1, 0}, {2, 2}, {1, 1}},
      {"nhwc", "ohwi", {1, 9, 9, 5}, {7, 3, 3, 5}, {1, 5, 5, 7}, 1, {0, 0, 0, 0}, {1, 1}, {2, 2}},
      {"nhwc", "ihwo", {1, 6, 7, 4}, {1, 3, 3, 4}, {1, 6, 7, 4}, 4, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {"nhwc", "hwio", {1, 5, 5, 3}, {1, 1, 3, 8}, {1, 5, 5, 8}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      // Several shared-memory tiles in every GEMM dimension (M 2x100, N 24, K 144).
      {"nchw", "oihw", {2, 16, 12, 12}, {24, 16, 3, 3}, {2, 24, 10, 10}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {"nhwc", "ohwi", {1, 13, 11, 20}, {33, 3, 3, 20}, {1, 7, 6, 33}, 1, {1, 1, 1, 1}, {2, 2}, {1, 1}},
      // 4 x 4 outputs per invocation (64 x 64 blocks), both dimensions
      // leaving a partial block; a 1x1 conv over many pixels.
      {"nhwc", "ohwi", {2, 10, 11, 9}, {70, 3, 3, 9}, {2, 8, 9, 70}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {"nchw", "oihw", {1, 24, 17, 19}, {130, 24, 1, 1}, {1, 130, 17, 19}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
  };
  for (DataType dt : kFloats)
    for (const Conv &cv : convs) {
      SCOPED_TRACE(std::string(cv.inputLayout) + "/" + cv.filterLayout + " " + std::string(dataTypeName(dt)));
      int64_t O = cv.y[std::string(cv.inputLayout) == "nhwc" ? 3 : 1];
      OpCase c{"conv2d",
               {random(dt, cv.x, -1, 1, seed++), random(dt, cv.f, -1, 1, seed++, true),
                random(dt, {O}, -1, 1, seed++, true)},
               {outSpec(dt, cv.y)}};
      c.attrString("inputLayout", cv.inputLayout).attrString("filterLayout", cv.filterLayout);
      c.attrInt("groups", cv.groups).attrInts("padding", cv.padding).attrInts("strides", cv.strides);
      c.attrInts("dilations", cv.dilations);
      expectMatch(c, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 1e-2 : 1e-4);
    }
  // fusedConv2d: residual and each activation, on both shaders (groups 1 and 2).
  for (DataType dt : kFloats)
    for (int64_t groups : {1, 2})
      for (const char *act : {"none", "relu", "clamp", "sigmoid", "silu", "hardSwish"}) {
        SCOPED_TRACE(std::string(act) + " groups " + std::to_string(groups));
        OpCase c{"fusedConv2d",
                 {random(dt, {1, 9, 9, 4}, -1, 1, seed++), random(dt, {6, 3, 3, 4 / groups}, -1, 1, seed++, true),
                  random(dt, {6}, -1, 1, seed++, true), random(dt, {1, 7, 7, 6}, -1, 1, seed++)},
                 {outSpec(dt, {1, 7, 7, 6})}};
        c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", groups);
        c.attrString("activation", act);
        if (std::string(act) == "clamp") c.attrFloat("activationMinValue", -0.5).attrFloat("activationMaxValue", 0.5);
        expectMatch(c, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 1e-2 : 1e-4);
      }
  // The fused epilogue on 4 x 4 register blocks.
  for (DataType dt : {DataType::kFloat32}) {
    OpCase c{"fusedConv2d",
             {random(dt, {1, 9, 10, 16}, -1, 1, seed++), random(dt, {72, 1, 1, 16}, -1, 1, seed++, true),
              random(dt, {72}, -1, 1, seed++, true), random(dt, {1, 9, 10, 72}, -1, 1, seed++)},
             {outSpec(dt, {1, 9, 10, 72})}};
    c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrString("activation", "silu");
    expectMatch(c, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 1e-2 : 1e-4);
  }
  for (DataType dt : kFloats) {
    OpCase t{"convTranspose2d",
             {random(dt, {1, 3, 4, 5}, -1, 1, seed++), random(dt, {3, 2, 3, 3}, -1, 1, seed++, true)},
             {outSpec(dt, {1, 2, 9, 11})}};
    t.attrInts("strides", {2, 2}).attrInts("padding", {0, 0, 0, 0});
    expectMatch(t, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 1e-2 : 1e-4);
  }
}

// Depthwise convolutions (shaders/depthwise_conv2d.comp up to 7x7 windows,
// conv2d.comp beyond): channel counts with and without 4 channels per
// invocation, output widths that leave a partial column group, strides,
// dilations, asymmetric padding, every filter layout, batch, and the
// fused epilogue.
TEST_F(VulkanKernels, DepthwiseConvolutions) {
  uint32_t seed = 650;
  struct Conv {
    const char *inputLayout, *filterLayout;
    int64_t n, c, h, w, kh, kw;
    std::vector<int64_t> padding, strides, dilations;
  };
  const Conv convs[] = {
      {"nhwc", "ohwi", 1, 8, 9, 7, 3, 3, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {"nhwc", "ohwi", 2, 6, 10, 11, 3, 3, {0, 1, 0, 1}, {2, 2}, {1, 1}},
      {"nhwc", "hwio", 1, 12, 8, 9, 5, 5, {2, 2, 2, 2}, {1, 2}, {1, 1}},
      {"nhwc", "ihwo", 1, 4, 13, 13, 3, 3, {2, 2, 2, 2}, {1, 1}, {2, 2}},
      {"nchw", "oihw", 1, 5, 11, 12, 5, 5, {2, 2, 2, 2}, {1, 1}, {2, 1}},
      {"nchw", "oihw", 2, 3, 9, 10, 7, 7, {3, 3, 3, 3}, {2, 2}, {1, 1}},
      {"nhwc", "ohwi", 1, 16, 5, 6, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {"nhwc", "ohwi", 1, 8, 12, 12, 9, 9, {4, 4, 4, 4}, {1, 1}, {1, 1}},  // conv2d.comp
  };
  auto filterShape = [](const std::string &layout, int64_t c, int64_t kh, int64_t kw) {
    Shape s(4);
    for (size_t d = 0; d < 4; ++d) s[d] = layout[d] == 'o' ? c : layout[d] == 'i' ? 1 : layout[d] == 'h' ? kh : kw;
    return s;
  };
  for (DataType dt : kFloats)
    for (const Conv &cv : convs) {
      SCOPED_TRACE(std::string(cv.inputLayout) + "/" + cv.filterLayout + " c " + std::to_string(cv.c) + " " +
                   std::to_string(cv.kh) + "x" + std::to_string(cv.kw) + " " + std::string(dataTypeName(dt)));
      bool nhwc = std::string(cv.inputLayout) == "nhwc";
      int64_t oh = (cv.h + cv.padding[0] + cv.padding[1] - cv.dilations[0] * (cv.kh - 1) - 1) / cv.strides[0] + 1;
      int64_t ow = (cv.w + cv.padding[2] + cv.padding[3] - cv.dilations[1] * (cv.kw - 1) - 1) / cv.strides[1] + 1;
      Shape x = nhwc ? Shape{cv.n, cv.h, cv.w, cv.c} : Shape{cv.n, cv.c, cv.h, cv.w};
      Shape y = nhwc ? Shape{cv.n, oh, ow, cv.c} : Shape{cv.n, cv.c, oh, ow};
      for (bool fused : {false, true}) {
        if (fused && dt == DataType::kFloat16) continue;  // the epilogue is type-independent
        std::vector<std::optional<TestTensor>> inputs = {
            random(dt, x, -1, 1, seed++), random(dt, filterShape(cv.filterLayout, cv.c, cv.kh, cv.kw), -1, 1, seed++, true),
            random(dt, {cv.c}, -1, 1, seed++, true)};
        if (fused) inputs.push_back(random(dt, y, -1, 1, seed++));
        OpCase c{fused ? "fusedConv2d" : "conv2d", inputs, {outSpec(dt, y)}};
        c.attrString("inputLayout", cv.inputLayout).attrString("filterLayout", cv.filterLayout);
        c.attrInt("groups", cv.c).attrInts("padding", cv.padding).attrInts("strides", cv.strides);
        c.attrInts("dilations", cv.dilations);
        if (fused && cv.kh == 5) c.attrString("activation", "hardSwish");  // MobileNetV3's 5x5 layers
        else if (fused) c.attrString("activation", "clamp").attrFloat("activationMinValue", 0).attrFloat("activationMaxValue", 1.5);
        expectMatch(c, dt == DataType::kFloat16 ? 1e-2 : 1e-5, dt == DataType::kFloat16 ? 1e-2 : 1e-5);
      }
    }
}

TEST_F(VulkanKernels, Pooling) {
  uint32_t seed = 700;
  for (DataType dt : kFloats)
    for (const char *op : {"averagePool2d", "maxPool2d", "l2Pool2d"})
      for (const char *layout : {"nchw", "nhwc"}) {
        SCOPED_TRACE(std::string(op) + " " + layout);
        bool nhwc = std::string(layout) == "nhwc";
        OpCase c{op, {random(dt, nhwc ? Shape{2, 7, 8, 3} : Shape{2, 3, 7, 8}, -2, 2, seed++)},
                 {outSpec(dt, nhwc ? Shape{2, 4, 4, 3} : Shape{2, 3, 4, 4})}};
        c.attrString("layout", layout).attrInts("windowDimensions", {3, 3}).attrInts("strides", {2, 2});
        c.attrInts("padding", {1, 1, 1, 0});
        expectMatch(c, dt);
      }
  // Global pooling over 64 positions and more: a workgroup per output
  // (pool2d.comp's GLOBAL), and a map just below that (one invocation each).
  for (DataType dt : kFloats)
    for (const char *op : {"averagePool2d", "maxPool2d", "l2Pool2d"})
      for (const char *layout : {"nchw", "nhwc"})
        for (int64_t hw : {7, 8, 23}) {
          SCOPED_TRACE(std::string(op) + " global " + layout + " " + std::to_string(hw));
          bool nhwc = std::string(layout) == "nhwc";
          OpCase c{op, {random(dt, nhwc ? Shape{2, hw, hw + 1, 5} : Shape{2, 5, hw, hw + 1}, -2, 2, seed++)},
                   {outSpec(dt, nhwc ? Shape{2, 1, 1, 5} : Shape{2, 5, 1, 1})}};
          c.attrString("layout", layout).attrInts("windowDimensions", {hw, hw + 1});
          expectMatch(c, dt);
        }
}

TEST_F(VulkanKernels, ReductionsAndSoftmax) {
  uint32_t seed = 800;
  for (DataType dt : kFloats)
    for (const char *op : {"reduceSum", "reduceMean", "reduceMax", "reduceMin", "reduceProduct", "reduceL1",
                           "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceSumSquare"}) {
      SCOPED_TRACE(op);
      bool positive = std::string(op) == "reduceLogSum" || std::string(op) == "reduceProduct";
      OpCase a{op, {random(dt, {3, 4, 5}, positive ? 0.5 : -2, positive ? 1.5 : 2, seed++)}, {outSpec(dt, {4})}};
      a.attrInts("axes", {0, 2});
      expectMatch(a, dt == DataType::kFloat16 ? 1e-2 : 1e-5, dt == DataType::kFloat16 ? 1e-2 : 1e-5);
      OpCase k{op, {random(dt, {3, 4, 5}, positive ? 0.5 : -2, positive ? 1.5 : 2, seed++)},
               {outSpec(dt, {1, 1, 1})}};
      k.attrBool("keepDimensions", true);
      expectMatch(k, dt == DataType::kFloat16 ? 1e-2 : 1e-5, dt == DataType::kFloat16 ? 1e-2 : 1e-5);
    }
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32})
    for (const char *op : {"argMax", "argMin"})
      for (DataType outType : {DataType::kInt32, DataType::kInt64}) {
        OpCase a{op, {random(dt, {3, 7, 5}, -4, 4, seed++)}, {outSpec(outType, {3, 5})}};
        a.attrInt("axis", 1).attrString("outputDataType", std::string(dataTypeName(outType)));
        SCOPED_TRACE(std::string(op) + " " + std::string(dataTypeName(dt)));
        expectMatch(a, 0, 0);
      }
  OpCase i{"reduceSum", {random(DataType::kInt32, {6, 7}, -9, 9, seed++)}, {outSpec(DataType::kInt32, {6})}};
  i.attrInts("axes", {1});
  expectMatch(i, 0, 0);
  for (DataType dt : {DataType::kFloat32, DataType::kInt32})
    for (bool exclusive : {false, true})
      for (bool reversed : {false, true}) {
        OpCase c{"cumulativeSum", {random(dt, {3, 6, 4}, -5, 5, seed++)}, {outSpec(dt, {3, 6, 4})}};
        c.attrInt("axis", 1).attrBool("exclusive", exclusive).attrBool("reversed", reversed);
        expectMatch(c, dt);
      }
  // Few outputs over 64 and more elements each, trailing and non-trailing
  // axes.
  for (DataType dt : {DataType::kFloat32})
    for (const char *op : {"reduceSum", "reduceMean", "reduceMax", "reduceMin", "reduceProduct", "reduceL1",
                           "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceSumSquare"})
      for (const auto &[shape, axes] : std::vector<std::pair<Shape, std::vector<int64_t>>>{
               {{3, 10, 20}, {1, 2}}, {{40, 3, 5}, {0, 2}}}) {
        SCOPED_TRACE(std::string(op) + " long rows");
        bool positive = std::string(op) == "reduceLogSum" || std::string(op) == "reduceProduct";
        Shape out;
        for (size_t d = 0; d < shape.size(); ++d)
          if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end()) out.push_back(shape[d]);
        OpCase a{op, {random(dt, shape, positive ? 0.9 : -2, positive ? 1.1 : 2, seed++)}, {outSpec(dt, out)}};
        a.attrInts("axes", axes);
        expectMatch(a, dt == DataType::kFloat16 ? 1e-2 : 1e-5, dt == DataType::kFloat16 ? 1e-2 : 1e-5);
      }
  for (DataType dt : kFloats)
    for (int64_t axis : {0, 1, 2}) {
      OpCase s{"softmax", {random(dt, {3, 17, 5}, -5, 5, seed++)}, {outSpec(dt, {3, 17, 5})}};
      s.attrInt("axis", axis);
      expectMatch(s, dt);
    }
  // Rows of 64 and more: softmax.comp's workgroup per row (a last axis, an
  // inner axis, a length that is not a multiple of the workgroup, one
  // large logit per row).
  for (DataType dt : kFloats)
    for (const auto &[shape, axis] : std::vector<std::pair<Shape, int64_t>>{
             {{2, 5, 200}, 2}, {{3, 64, 7}, 1}, {{129, 2}, 0}, {{4, 1000}, 1}}) {
      TestTensor x = random(dt, shape, -8, 8, seed++);
      if (dt == DataType::kFloat32) const_cast<float *>(x.as<float>())[3] = 60.0f;
      OpCase s{"softmax", {x}, {outSpec(dt, shape)}};
      s.attrInt("axis", axis);
      expectMatch(s, dt);
    }
}

// The row kernels' variant choice (kernels/RowPlan.h): the tests above
// reach softmax.comp's, normalization.comp's and pool2d.comp's workgroup
// variants only if few-row shapes take them on this device.
TEST_F(VulkanKernels, RowVariantChoice) {
  auto plan = [&](const char *op, Shape x, Shape y, std::vector<std::pair<const char *, std::vector<int64_t>>> ints) {
    cpu::OperandDesc in{DataType::kFloat32, std::move(x), nullptr}, out{DataType::kFloat32, std::move(y), nullptr};
    cpu::NodeDesc n;
    n.op = op;
    n.name = "t";
    n.inputs = {&in};
    n.outputs = {&out};
    for (auto &[k, v] : ints) {
      rt::AttributeValue a;
      a.kind = rt::AttributeValue::Kind::kInts;
      a.ints = v;
      n.attributes.set(k, a);
    }
    KernelPlan p;
    Status s = findVulkanKernel(op)(n, device_->info(), &p);
    EXPECT_TRUE(s.isOk()) << s.message();
    return p.dispatches.empty() ? 0u : p.dispatches[0].localSize * 1000 + p.dispatches[0].spec.back();
  };
  // 4 rows of 1000: a workgroup per row on every device.
  EXPECT_EQ(plan("softmax", {4, 1000}, {4, 1000}, {}), 64001u);
  EXPECT_EQ(plan("layerNormalization", {4, 1000}, {4, 1000}, {{"axes", {1}}}), 64001u);
  EXPECT_EQ(plan("averagePool2d", {1, 8, 9, 10}, {1, 8, 1, 1}, {{"windowDimensions", {9, 10}}}), 64001u);
  // Rows shorter than a workgroup: one invocation per row.
  EXPECT_EQ(plan("softmax", {4, 63}, {4, 63}, {}), 64000u);
  // Many long rows: a workgroup per row on a GPU, one invocation per row on
  // a CPU device (lavapipe).
  uint32_t manyRows = device_->info().type == "cpu" ? 64000u : 64001u;
  EXPECT_EQ(plan("softmax", {1536, 128}, {1536, 128}, {}), manyRows);
  EXPECT_EQ(plan("layerNormalization", {128, 384}, {128, 384}, {{"axes", {1}}}), manyRows);
}

TEST_F(VulkanKernels, Normalizations) {
  uint32_t seed = 900;
  for (DataType dt : kFloats) {
    SCOPED_TRACE(dataTypeName(dt));
    double rtol = dt == DataType::kFloat16 ? 1e-2 : 1e-4, atol = dt == DataType::kFloat16 ? 1e-2 : 1e-5;
    OpCase l{"layerNormalization",
             {random(dt, {2, 3, 8}, -2, 2, seed++), random(dt, {3, 8}, -1, 1, seed++, true),
              random(dt, {3, 8}, -1, 1, seed++, true)},
             {outSpec(dt, {2, 3, 8})}};
    l.attrInts("axes", {1, 2}).attrFloat("epsilon", 1e-3);
    expectMatch(l, rtol, atol);
    OpCase l2{"layerNormalization", {random(dt, {4, 6, 3}, -2, 2, seed++), random(dt, {4}, -1, 1, seed++)},
              {outSpec(dt, {4, 6, 3})}};
    l2.attrInts("axes", {0});
    expectMatch(l2, rtol, atol);
    for (const char *layout : {"nchw", "nhwc"}) {
      bool nhwc = std::string(layout) == "nhwc";
      Shape x = nhwc ? Shape{2, 4, 5, 3} : Shape{2, 3, 4, 5};
      OpCase in{"instanceNormalization",
                {random(dt, x, -2, 2, seed++), random(dt, {3}, -1, 1, seed++), random(dt, {3}, -1, 1, seed++)},
                {outSpec(dt, x)}};
      in.attrString("layout", layout);
      expectMatch(in, rtol, atol);
    }
    OpCase b{"batchNormalization",
             {random(dt, {2, 3, 4, 5}, -2, 2, seed++), random(dt, {3}, -1, 1, seed++, true),
              random(dt, {3}, 0.5, 2, seed++, true), random(dt, {3}, -1, 1, seed++), random(dt, {3}, -1, 1, seed++)},
             {outSpec(dt, {2, 3, 4, 5})}};
    expectMatch(b, rtol, atol);
    // Groups of 64 elements and more: a workgroup per group
    // (normalization.comp's GROUP_PER_ROW): a transformer row, axes that
    // are not trailing, a mean far from zero, and instance norm per channel.
    OpCase big{"layerNormalization",
               {random(dt, {5, 384}, 3, 7, seed++), random(dt, {384}, -1, 1, seed++, true),
                random(dt, {384}, -1, 1, seed++, true)},
               {outSpec(dt, {5, 384})}};
    big.attrInts("axes", {1});
    expectMatch(big, rtol, atol);
    OpCase inner{"layerNormalization", {random(dt, {9, 3, 10}, -2, 2, seed++), random(dt, {10, 9}, -1, 1, seed++)},
                 {outSpec(dt, {9, 3, 10})}};
    inner.attrInts("axes", {2, 0});
    expectMatch(inner, rtol, atol);
    for (const char *layout : {"nchw", "nhwc"}) {
      bool nhwc = std::string(layout) == "nhwc";
      Shape x = nhwc ? Shape{2, 11, 13, 3} : Shape{2, 3, 11, 13};
      OpCase in{"instanceNormalization",
                {random(dt, x, -2, 2, seed++), random(dt, {3}, -1, 1, seed++), random(dt, {3}, -1, 1, seed++)},
                {outSpec(dt, x)}};
      in.attrString("layout", layout);
      expectMatch(in, rtol, atol);
    }
  }
}

// Rows longer and shorter than the 64-invocation workgroup, not multiples
// of it; a scale over two trailing dims (axis 1); a skip broadcast over the
// leading dim; float16 operands beside a float32 invStdDev.
TEST_F(VulkanKernels, RmsNormalizations) {
  uint32_t seed = 950;
  for (DataType dt : kFloats) {
    SCOPED_TRACE(dataTypeName(dt));
    double rtol = dt == DataType::kFloat16 ? 1e-2 : 1e-4, atol = dt == DataType::kFloat16 ? 1e-2 : 1e-5;
    for (int64_t n : {int64_t(1), int64_t(37), int64_t(200)}) {
      SCOPED_TRACE(n);
      OpCase r{"rmsNormalization",
               {random(dt, {3, 5, n}, -2, 2, seed++), random(dt, {n}, -1, 1, seed++, true)},
               {outSpec(dt, {3, 5, n}), outSpec(DataType::kFloat32, {3, 5, 1})}};
      r.attrFloat("epsilon", 1e-6);
      expectMatch(r, rtol, atol);
    }
    OpCase a1{"rmsNormalization",
              {random(dt, {2, 3, 7}, -2, 2, seed++), random(dt, {3, 7}, -1, 1, seed++, true)},
              {outSpec(dt, {2, 3, 7}), outSpec(DataType::kFloat32, {2, 1, 1})}};
    a1.attrInt("axis", 1);
    expectMatch(a1, rtol, atol);
    for (bool bias : {false, true}) {
      SCOPED_TRACE(bias ? "bias" : "no bias");
      std::vector<std::optional<TestTensor>> ins = {random(dt, {2, 3, 67}, -2, 2, seed++), random(dt, {3, 67}, -2, 2, seed++),
                                     random(dt, {67}, -1, 1, seed++, true)};
      if (bias) ins.push_back(random(dt, {67}, -1, 1, seed++, true));
      OpCase s{"skipRmsNormalization", ins,
               {outSpec(dt, {2, 3, 67}), outSpec(DataType::kFloat32, {2, 3, 1}), outSpec(dt, {2, 3, 67})}};
      s.attrFloat("epsilon", 1e-5);
      expectMatch(s, rtol, atol);
    }
  }
  OpCase bad{"rmsNormalization",
             {random(DataType::kFloat32, {2, 4}, -1, 1, seed++), random(DataType::kFloat32, {3}, -1, 1, seed++)},
             {outSpec(DataType::kFloat32, {2, 4}), outSpec(DataType::kFloat32, {2, 1})}};
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("scale must have shape"), std::string::npos) << st.message();
}

// K not a multiple of the block (a short last block) nor of the 64
// invocations; 2/4/8 bits; no, packed uint8 and float zero points; bias;
// float16 activations and scales.
TEST_F(VulkanKernels, MatMulNBits) {
  uint32_t seed = 980;
  const int64_t K = 70, N = 37;
  for (DataType dt : kFloats)
    for (int64_t bits : {2, 4, 8})
      for (int zp = 0; zp < 3; ++zp) {
        const int64_t block = bits == 8 ? 16 : 32, kBlocks = (K + block - 1) / block, blob = block * bits / 8;
        const int64_t zpRow = (kBlocks * bits + 7) / 8;
        SCOPED_TRACE(std::string(dataTypeName(dt)) + " bits " + std::to_string(bits) + " zp " + std::to_string(zp));
        std::vector<std::optional<TestTensor>> ins = {
            random(dt, {2, 3, K}, -1, 1, seed++), random(DataType::kUint8, {N, kBlocks, blob}, 0, 255, seed++, true),
            random(dt, {N, kBlocks}, 0.01, 0.2, seed++, true)};
        if (zp == 1) ins.push_back(random(DataType::kUint8, {N * zpRow}, 0, 255, seed++, true));
        if (zp == 2) ins.push_back(random(dt, {N, kBlocks}, 0, double((1 << bits) - 1), seed++, true));
        if (zp == 0 && bits == 4) {  // bias without zero points: an absent operand between present ones
          ins.push_back(std::nullopt);
          ins.push_back(random(dt, {N}, -1, 1, seed++, true));
        }
        OpCase c{"matmulNBits", ins, {outSpec(dt, {2, 3, N})}};
        c.attrInt("K", K).attrInt("N", N).attrInt("bits", bits).attrInt("blockSize", block);
        expectMatch(c, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 2e-2 : 1e-4);
      }
  OpCase bad{"matmulNBits",
             {random(DataType::kFloat32, {1, 64}, -1, 1, seed++), random(DataType::kUint8, {8, 2, 16}, 0, 255, seed++),
              random(DataType::kFloat32, {16}, 0.1, 1, seed++)},
             {outSpec(DataType::kFloat32, {1, 8})}};
  bad.attrInt("K", 64).attrInt("N", 8).attrInt("bits", 3).attrInt("blockSize", 32);
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("bits must be 2, 4 or 8"), std::string::npos) << st.message();
}

// groupQueryAttention against the CPU kernel: separate and packed QKV,
// rotary (half-split and interleaved, over all or part of the head), per
// batch entry past lengths from seqlensK, a first prompt (S ==
// totalSequenceLength), a decode step over more keys than one 64-key tile
// with a head of 80 (two features per invocation), a local window, softcap,
// the present as long as the past (the shared layout), float16.
TEST_F(VulkanKernels, GroupQueryAttention) {
  uint32_t seed = 1000;
  struct Case {
    const char *name;
    DataType dt;
    int64_t B, S, P, T, heads, kvHeads, D, rotHalf;  // rotHalf 0: no rotary
    bool packed, interleaved;
    std::vector<double> seqlens;
    int64_t total;  // < 0: absent
    int64_t window;
    double softcap;
  };
  const Case cases[] = {
      {"separate, rotary", DataType::kFloat32, 2, 5, 3, 8, 4, 2, 16, 8, false, false, {7, 5}, 8, -1, 0},
      {"packed, interleaved partial rotary", DataType::kFloat32, 1, 3, 4, 7, 6, 3, 12, 4, true, true, {6}, -1, -1, 0},
      {"first prompt", DataType::kFloat32, 1, 6, 2, 8, 2, 1, 8, 4, false, false, {5}, 6, -1, 0},
      {"decode over 71 keys, head 80, window", DataType::kFloat32, 1, 1, 70, 71, 2, 1, 80, 0, false, false, {70}, 71, 33, 0},
      {"softcap", DataType::kFloat32, 1, 4, 5, 9, 2, 2, 16, 8, false, false, {8}, 9, -1, 5.0},
      {"present shares the past's length", DataType::kFloat32, 1, 2, 10, 10, 4, 2, 16, 8, false, false, {5}, -1, -1, 0},
      {"float16", DataType::kFloat16, 2, 3, 4, 7, 4, 2, 16, 8, false, true, {6, 4}, 7, -1, 0},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    const DataType dt = c.dt;
    const int64_t hidden = c.packed ? (c.heads + 2 * c.kvHeads) * c.D : c.heads * c.D;
    std::vector<std::optional<TestTensor>> ins = {random(dt, {c.B, c.S, hidden}, -1, 1, seed++)};
    if (c.packed) {
      ins.push_back(std::nullopt);
      ins.push_back(std::nullopt);
    } else {
      ins.push_back(random(dt, {c.B, c.S, c.kvHeads * c.D}, -1, 1, seed++));
      ins.push_back(random(dt, {c.B, c.S, c.kvHeads * c.D}, -1, 1, seed++));
    }
    ins.push_back(random(dt, {c.B, c.kvHeads, c.P, c.D}, -1, 1, seed++));
    ins.push_back(random(dt, {c.B, c.kvHeads, c.P, c.D}, -1, 1, seed++));
    ins.push_back(fromDoubles(DataType::kInt32, {c.B}, c.seqlens));
    if (c.total >= 0) ins.push_back(fromDoubles(DataType::kInt32, {1}, {double(c.total)}));
    else ins.push_back(std::nullopt);
    if (c.rotHalf) {
      ins.push_back(random(dt, {32, c.rotHalf}, -1, 1, seed++, true));
      ins.push_back(random(dt, {32, c.rotHalf}, -1, 1, seed++, true));
    }
    OpCase g{"groupQueryAttention", ins,
             {outSpec(dt, {c.B, c.S, c.heads * c.D}), outSpec(dt, {c.B, c.kvHeads, c.T, c.D}),
              outSpec(dt, {c.B, c.kvHeads, c.T, c.D})}};
    g.attrInt("numHeads", c.heads).attrInt("kvNumHeads", c.kvHeads).attrBool("doRotary", c.rotHalf != 0);
    g.attrBool("rotaryInterleaved", c.interleaved);
    if (c.window >= 0) g.attrInt("localWindowSize", c.window);
    if (c.softcap > 0) g.attrFloat("softcap", c.softcap);
    expectMatch(g, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 1e-2 : 1e-5);
  }
  OpCase bad{"groupQueryAttention",
             {random(DataType::kFloat32, {1, 1, 2 * 272}, -1, 1, seed++), random(DataType::kFloat32, {1, 1, 272}, -1, 1, seed++),
              random(DataType::kFloat32, {1, 1, 272}, -1, 1, seed++), random(DataType::kFloat32, {1, 1, 2, 272}, -1, 1, seed++),
              random(DataType::kFloat32, {1, 1, 2, 272}, -1, 1, seed++), fromDoubles(DataType::kInt32, {1}, {2})},
             {outSpec(DataType::kFloat32, {1, 1, 544}), outSpec(DataType::kFloat32, {1, 1, 3, 272}),
              outSpec(DataType::kFloat32, {1, 1, 3, 272})}};
  bad.attrInt("numHeads", 2).attrInt("kvNumHeads", 1);
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("head size 272 above 256"), std::string::npos) << st.message();
}

// fusedAttention: more keys than one 64-key tile, heads of 12 and 80
// (several output features per invocation), a query length other than the
// keys', a negative scale, float16.
TEST_F(VulkanKernels, FusedAttention) {
  uint32_t seed = 1100;
  struct Case {
    int64_t B, S, T, heads, Dh;
    double scale;
  };
  const Case cases[] = {{2, 5, 70, 3, 12, 0.29}, {1, 3, 9, 2, 80, 0.11}, {1, 7, 7, 1, 5, -0.5}};
  for (DataType dt : kFloats)
    for (const Case &c : cases) {
      SCOPED_TRACE(std::string(dataTypeName(dt)) + " T " + std::to_string(c.T) + " Dh " + std::to_string(c.Dh));
      const int64_t D = c.heads * c.Dh;
      OpCase a{"fusedAttention",
               {random(dt, {c.B, c.S, D}, -1, 1, seed++), random(dt, {c.B, c.T, D}, -1, 1, seed++),
                random(dt, {c.B, c.T, D}, -1, 1, seed++)},
               {outSpec(dt, {c.B, c.S, D})}};
      a.attrInt("heads", c.heads).attrFloat("scale", c.scale);
      expectMatch(a, dt == DataType::kFloat16 ? 1e-2 : 1e-4, dt == DataType::kFloat16 ? 1e-2 : 1e-5);
    }
  OpCase bad{"fusedAttention",
             {random(DataType::kFloat32, {1, 2, 6}, -1, 1, seed++), random(DataType::kFloat32, {1, 3, 6}, -1, 1, seed++),
              random(DataType::kFloat32, {1, 3, 6}, -1, 1, seed++)},
             {outSpec(DataType::kFloat32, {1, 2, 6})}};
  bad.attrInt("heads", 4);
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("heads (4) must divide 6"), std::string::npos) << st.message();
}

// rotaryEmbedding: [B, S, hidden] with numHeads and per-token positions
// (one past the caches: clamped like the CPU kernel), BNSH with one start
// position and interleaved pairs over part of the head, the head size taken
// from the caches, float16.
TEST_F(VulkanKernels, RotaryEmbedding) {
  uint32_t seed = 1200;
  for (DataType dt : kFloats) {
    SCOPED_TRACE(dataTypeName(dt));
    OpCase a{"rotaryEmbedding",
             {random(dt, {2, 3, 3 * 10}, -1, 1, seed++), fromDoubles(DataType::kInt64, {2, 3}, {0, 4, 7, 2, 9, 12}),
              random(dt, {12, 5}, -1, 1, seed++, true), random(dt, {12, 5}, -1, 1, seed++, true)},
             {outSpec(dt, {2, 3, 30})}};
    a.attrInt("numHeads", 3);
    expectMatch(a, dt);
    OpCase b{"rotaryEmbedding",
             {random(dt, {2, 3, 5, 14}, -1, 1, seed++), fromDoubles(DataType::kInt64, {1}, {4}),
              random(dt, {16, 3}, -1, 1, seed++, true), random(dt, {16, 3}, -1, 1, seed++, true)},
             {outSpec(dt, {2, 3, 5, 14})}};
    b.attrBool("interleaved", true).attrInt("rotaryEmbeddingDim", 6);
    expectMatch(b, dt);
    OpCase c{"rotaryEmbedding",
             {random(dt, {1, 4, 3 * 8}, -1, 1, seed++), fromDoubles(DataType::kInt64, {1, 4}, {3, 1, 0, 2}),
              random(dt, {4, 4}, -1, 1, seed++, true), random(dt, {4, 4}, -1, 1, seed++, true)},
             {outSpec(dt, {1, 4, 24})}};
    expectMatch(c, dt);
  }
  OpCase bad{"rotaryEmbedding",
             {random(DataType::kFloat32, {1, 2, 8}, -1, 1, seed++), fromDoubles(DataType::kInt32, {1}, {0}),
              random(DataType::kFloat32, {4, 4}, -1, 1, seed++), random(DataType::kFloat32, {4, 4}, -1, 1, seed++)},
             {outSpec(DataType::kFloat32, {1, 2, 8})}};
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("positionIds must be int64"), std::string::npos) << st.message();
}

// quantizedMatmul: float32 a quantized on the device (values past the
// 8-bit range saturate), uint8 and int8 a, per-column and per-tensor b
// parameters, a batched float32 b, the output round trip and bias; K 70 and
// 33 (not multiples of the 64-invocation workgroup).
TEST_F(VulkanKernels, QuantizedMatmul) {
  uint32_t seed = 1300;
  const DataType f32 = DataType::kFloat32, u8 = DataType::kUint8, i8 = DataType::kInt8;
  auto zero = [&](DataType dt, Shape s) { return random(dt, std::move(s), dt == i8 ? -20 : 100, dt == i8 ? 20 : 150, seed++, true); };
  auto scale = [&](Shape s) { return random(f32, std::move(s), 0.005, 0.03, seed++, true); };
  {
    SCOPED_TRACE("float a, int8 b per column, bias");
    OpCase c{"quantizedMatmul",
             {random(f32, {2, 3, 70}, -3, 3, seed++), scale({1}), zero(u8, {1}), random(i8, {70, 37}, -128, 127, seed++, true),
              scale({37}), zero(i8, {1}), std::nullopt, std::nullopt, random(f32, {37}, -1, 1, seed++, true)},
             {outSpec(f32, {2, 3, 37})}};
    expectMatch(c, 1e-5, 1e-5);
  }
  {
    SCOPED_TRACE("uint8 a and b, per-column zero points, int8 round trip");
    OpCase c{"quantizedMatmul",
             {random(u8, {5, 40}, 0, 255, seed++), scale({1}), zero(u8, {1}), random(u8, {40, 9}, 0, 255, seed++, true),
              scale({9}), zero(u8, {9}), random(f32, {1}, 0.5, 1.0, seed++, true), zero(i8, {1})},
             {outSpec(f32, {5, 9})}};
    expectMatch(c, 1e-5, 1e-5);
  }
  {
    SCOPED_TRACE("float a and batched float b, uint8 round trip, bias");
    OpCase c{"quantizedMatmul",
             {random(f32, {2, 4, 33}, -1, 1, seed++), scale({1}), zero(i8, {1}), random(f32, {2, 33, 6}, -1, 1, seed++),
              scale({1}), zero(i8, {1}), random(f32, {1}, 0.02, 0.05, seed++, true), zero(u8, {1}),
              random(f32, {6}, -1, 1, seed++, true)},
             {outSpec(f32, {2, 4, 6})}};
    expectMatch(c, 1e-5, 1e-5);
  }
  {
    SCOPED_TRACE("int8 a, int8 b per tensor");
    OpCase c{"quantizedMatmul",
             {random(i8, {3, 65}, -128, 127, seed++), scale({1}), zero(i8, {1}), random(i8, {65, 4}, -128, 127, seed++, true),
              scale({1}), zero(i8, {1})},
             {outSpec(f32, {3, 4})}};
    expectMatch(c, 1e-5, 1e-5);
  }
  OpCase bad{"quantizedMatmul",
             {random(f32, {2, 8}, -1, 1, seed++), scale({1}), zero(u8, {1}), random(i8, {7, 3}, -9, 9, seed++, true),
              scale({1}), zero(i8, {1})},
             {outSpec(f32, {2, 3})}};
  Status st = runGpuOp(device_, bad);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("b must have K = 8 rows"), std::string::npos) << st.message();
}

TEST_F(VulkanKernels, ForcedStagingPathGivesTheSameResults) {
  Device::Options o = Device::defaultOptions();
  o.validation = true;
  o.forceStaging = true;
  o.cacheDir = "none";
  std::shared_ptr<Device> staged;
  Status s = Device::create(o, &staged);
  ASSERT_TRUE(s.isOk()) << s.message();
  OpCase c{"matmul",
           {random(DataType::kFloat32, {9, 13}, -1, 1, 1), random(DataType::kFloat32, {13, 5}, -1, 1, 2, true)},
           {outSpec(DataType::kFloat32, {9, 5})}};
  std::string diff = compareWithCpu(staged, c, 1e-4, 1e-4);
  EXPECT_TRUE(diff.empty()) << diff;
}

// Tensors over maxStorageBufferRange: elementwise ops split into dispatches
// whose bindings are (buffer, offset, range) slices within the limit.
TEST_F(VulkanKernels, ElementwiseOverTheBindingLimitIsSplit) {
  uint64_t range = device_->info().maxStorageBufferRange;
  int64_t n = int64_t(range / 4 + 1000);
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    a[size_t(i)] = float(i % 1000);
    b[size_t(i)] = float(i % 7);
  }
  OpCase add{"add", {cpu::test::f32({n}, a), cpu::test::f32({1}, {0.5f})}, {outSpec(DataType::kFloat32, {n})}};
  ProgramStats stats;
  Status s = runGpuOp(device_, add, &stats);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(stats.dispatches, 2u);
  const float *y = reinterpret_cast<const float *>(add.outputs[0].bytes.data());
  for (int64_t i : {int64_t(0), n / 2, n - 1}) EXPECT_EQ(y[i], float(i % 1000) + 0.5f) << i;
  OpCase neg{"neg", {cpu::test::f32({n}, b)}, {outSpec(DataType::kFloat32, {n})}};
  s = runGpuOp(device_, neg, &stats);
  ASSERT_TRUE(s.isOk()) << s.message();
  y = reinterpret_cast<const float *>(neg.outputs[0].bytes.data());
  for (int64_t i : {int64_t(0), n / 2 + 3, n - 1}) EXPECT_EQ(y[i], -float(i % 7)) << i;
}

TEST_F(VulkanKernels, UnknownOpAndTooLargeTensorAreClearErrors) {
  OpCase c{"noSuchOp", {cpu::test::f32({2}, {1, 2})}, {outSpec(DataType::kFloat32, {2})}};
  Status s = runGpuOp(device_, c);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("no GPU kernel"), std::string::npos) << s.message();
  // A binding can never exceed maxStorageBufferRange: a kernel that does not
  // split such a tensor is refused at creation.
  uint64_t range = device_->info().maxStorageBufferRange;
  Shape big = {int64_t(range / 4 + 1)};
  OpCase r{"softmax", {TestTensor{DataType::kFloat32, big, {}, false}}, {outSpec(DataType::kFloat32, big)}};
  r.attrInt("axis", 0);
  s = runGpuOp(device_, r);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("maxStorageBufferRange"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnn::vk::test
