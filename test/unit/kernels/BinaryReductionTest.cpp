// Elementwise, binary, reduction and cast kernels against plain reference
// loops, across data types and odd shapes (0, 1, non-multiples of 16), with
// one and two threads.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

std::vector<double> randomValues(int64_t n, double lo, double hi, bool integral, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(size_t(std::max<int64_t>(n, 0)));
  for (double &x : v) x = integral ? std::round(d(rng)) : d(rng);
  return v;
}

int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

struct BroadcastCase {
  Shape a, b, out;
};

const std::vector<BroadcastCase> kBroadcastCases = {
    {{17}, {17}, {17}},          {{3, 1, 5}, {4, 1}, {3, 4, 5}}, {{}, {2, 33}, {2, 33}},
    {{2, 33}, {}, {2, 33}},      {{0, 3}, {1, 3}, {0, 3}},       {{1}, {1}, {1}},
    {{5, 1, 1, 7}, {1, 6, 1, 1}, {5, 6, 1, 7}}, {{40, 37}, {37}, {40, 37}}, {{40, 1}, {1, 37}, {40, 37}},
};

TEST(BinaryKernels, ArithmeticMatchesReferenceForEveryType) {
  const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kFloat64, DataType::kInt32,
                            DataType::kUint32,  DataType::kInt64,   DataType::kUint64,  DataType::kInt8,
                            DataType::kUint8};
  struct OpRef {
    const char *name;
    std::function<double(double, double)> f;
  };
  const OpRef ops[] = {{"add", [](double a, double b) { return a + b; }},
                       {"sub", [](double a, double b) { return a - b; }},
                       {"mul", [](double a, double b) { return a * b; }},
                       {"max", [](double a, double b) { return std::max(a, b); }},
                       {"min", [](double a, double b) { return std::min(a, b); }}};
  uint32_t seed = 1;
  for (DataType dt : types) {
    bool isInt = dt != DataType::kFloat32 && dt != DataType::kFloat16 && dt != DataType::kFloat64;
    bool isUnsigned = dt == DataType::kUint32 || dt == DataType::kUint64 || dt == DataType::kUint8;
    // Small values keep integer results in range for every type (incl. sub on unsigned).
    double lo = isUnsigned ? 5 : -5, hi = isUnsigned ? 10 : 5;
    for (const BroadcastCase &bc : kBroadcastCases) {
      for (const OpRef &op : ops) {
        if (isUnsigned && std::string(op.name) == "sub") lo = 5;
        auto av = randomValues(count(bc.a), isUnsigned ? 5 : lo, hi, isInt, seed++);
        auto bv = randomValues(count(bc.b), isUnsigned ? 0 : lo, isUnsigned ? 5 : hi, isInt, seed++);
        OpCase c;
        c.op = op.name;
        c.inputs = {fromDoubles(dt, bc.a, av), fromDoubles(dt, bc.b, bv)};
        c.outputs = {outSpec(dt, bc.out)};
        for (int threads : {1, 2}) {
          ASSERT_TRUE(runOp(c, threads).isOk()) << op.name;
          std::vector<double> ga = c.inputs[0]->values(), gb = c.inputs[1]->values(), got = c.outputs[0].values();
          for (int64_t i = 0; i < count(bc.out); ++i) {
            double want = op.f(ga[size_t(broadcastIndex(bc.out, bc.a, i))], gb[size_t(broadcastIndex(bc.out, bc.b, i))]);
            if (dt == DataType::kFloat16) want = kernels::halfToFloat(kernels::floatToHalf(float(want)));
            if (dt == DataType::kFloat32) want = float(want);
            ASSERT_EQ(got[size_t(i)], want) << op.name << " " << dataTypeName(dt) << " " << shapeToString(bc.out)
                                            << " element " << i;
          }
        }
      }
    }
  }
}

// Broadcasts large enough to run in the pool's units (an SE block's
// per-channel scale in nhwc and nchw), at 1, 2 and 3 threads.
TEST(BinaryKernels, LargeBroadcastsInUnitsMatchReference) {
  const BroadcastCase cases[] = {{{1, 40, 40, 96}, {1, 1, 1, 96}, {1, 40, 40, 96}},
                                 {{1, 96, 40, 40}, {1, 96, 1, 1}, {1, 96, 40, 40}},
                                 {{3, 50021}, {3, 50021}, {3, 50021}}};
  uint32_t seed = 900;
  for (const BroadcastCase &bc : cases) {
    auto av = randomValues(count(bc.a), -5, 5, false, seed++);
    auto bv = randomValues(count(bc.b), -5, 5, false, seed++);
    OpCase c;
    c.op = "mul";
    c.inputs = {fromDoubles(DataType::kFloat32, bc.a, av), fromDoubles(DataType::kFloat32, bc.b, bv)};
    c.outputs = {outSpec(DataType::kFloat32, bc.out)};
    for (int threads : {1, 2, 3}) {
      ASSERT_TRUE(runOp(c, threads).isOk());
      std::vector<double> ga = c.inputs[0]->values(), gb = c.inputs[1]->values(), got = c.outputs[0].values();
      for (int64_t i = 0; i < count(bc.out); ++i) {
        double want = float(ga[size_t(broadcastIndex(bc.out, bc.a, i))] * gb[size_t(broadcastIndex(bc.out, bc.b, i))]);
        ASSERT_EQ(got[size_t(i)], want) << shapeToString(bc.out) << " threads=" << threads << " element " << i;
      }
    }
  }
}

// float64, the extension type, computes in double end to end: values beyond
// float32's range and its denormals survive every kernel with a float64 form.
TEST(Float64Kernels, ArithmeticKeepsRangeAndDenormals) {
  auto f64 = [](Shape s, std::vector<double> v) { return tensor(DataType::kFloat64, std::move(s), v); };
  // (a + a) - a over a broadcast [2,3] + [3].
  OpCase add;
  add.op = "add";
  add.inputs = {f64({2, 3}, {1e200, 1e-320, 0.1, -1e300, 5e-324, 3.0}), f64({3}, {1e200, 1e-320, 0.2})};
  add.outputs = {outSpec(DataType::kFloat64, {2, 3})};
  ASSERT_TRUE(runOp(add).isOk());
  std::vector<double> sum = add.outputs[0].values();
  EXPECT_EQ(sum, (std::vector<double>{2e200, 2e-320, 0.1 + 0.2, -1e300 + 1e200, 5e-324 + 1e-320, 3.0 + 0.2}));
  OpCase sub;
  sub.op = "sub";
  sub.inputs = {f64({3}, {2e200, 2e-320, 0.30000000000000004}), f64({3}, {1e200, 1e-320, 0.1})};
  sub.outputs = {outSpec(DataType::kFloat64, {3})};
  ASSERT_TRUE(runOp(sub).isOk());
  EXPECT_EQ(sub.outputs[0].values(), (std::vector<double>{1e200, 1e-320, 0.30000000000000004 - 0.1}));
  // Comparisons see the denormal (float32 would hold 0 there).
  OpCase gt;
  gt.op = "greater";
  gt.inputs = {f64({2}, {1e-320, 1e300}), f64({}, {0.0})};
  gt.outputs = {outSpec(DataType::kUint8, {2})};
  ASSERT_TRUE(runOp(gt).isOk());
  EXPECT_EQ(gt.outputs[0].as<uint8_t>()[0], 1);
  EXPECT_EQ(gt.outputs[0].as<uint8_t>()[1], 1);
  // Mixed float64/float32 operands are still refused.
  OpCase mixed;
  mixed.op = "add";
  mixed.inputs = {f64({2}, {1, 2}), f32({2}, {1, 2})};
  mixed.outputs = {outSpec(DataType::kFloat64, {2})};
  EXPECT_FALSE(runOp(mixed).isOk());
}

TEST(Float64Kernels, UnaryReductionCastAndWhere) {
  auto f64 = [](Shape s, std::vector<double> v) { return tensor(DataType::kFloat64, std::move(s), v); };
  OpCase sq;
  sq.op = "sqrt";
  sq.inputs = {f64({3}, {1e300, 2.0, 4e-320})};
  sq.outputs = {outSpec(DataType::kFloat64, {3})};
  ASSERT_TRUE(runOp(sq).isOk());
  EXPECT_EQ(sq.outputs[0].values(), (std::vector<double>{std::sqrt(1e300), std::sqrt(2.0), std::sqrt(4e-320)}));
  OpCase neg;
  neg.op = "neg";
  neg.inputs = {f64({2}, {1e250, -1e-321})};
  neg.outputs = {outSpec(DataType::kFloat64, {2})};
  ASSERT_TRUE(runOp(neg).isOk());
  EXPECT_EQ(neg.outputs[0].values(), (std::vector<double>{-1e250, 1e-321}));
  // A float32 accumulator would overflow at 2e200 and lose the last 1.
  OpCase sum;
  sum.op = "reduceSum";
  sum.inputs = {f64({2, 3}, {1e200, 1e200, -1e200, 1e15, 1.0, 1.0})};
  sum.outputs = {outSpec(DataType::kFloat64, {2})};
  sum.attrInts("axes", {1});
  ASSERT_TRUE(runOp(sum).isOk());
  EXPECT_EQ(sum.outputs[0].values(), (std::vector<double>{1e200, 1e15 + 2.0}));
  // Cast both ways: to float32 rounds (and overflows), back is exact.
  OpCase down;
  down.op = "cast";
  down.inputs = {f64({3}, {0.1, 1e200, -7.9})};
  down.outputs = {outSpec(DataType::kFloat32, {3})};
  down.attrString("type", "float32");
  ASSERT_TRUE(runOp(down).isOk());
  EXPECT_EQ(down.outputs[0].as<float>()[0], 0.1f);
  EXPECT_TRUE(std::isinf(down.outputs[0].as<float>()[1]));
  OpCase up;
  up.op = "cast";
  up.inputs = {f32({2}, {0.1f, -3.5f})};
  up.outputs = {outSpec(DataType::kFloat64, {2})};
  up.attrString("type", "float64");
  ASSERT_TRUE(runOp(up).isOk());
  EXPECT_EQ(up.outputs[0].values(), (std::vector<double>{double(0.1f), -3.5}));
  OpCase toInt;
  toInt.op = "cast";
  toInt.inputs = {f64({2}, {-7.9, 3e9})};
  toInt.outputs = {outSpec(DataType::kInt32, {2})};
  toInt.attrString("type", "int32");
  ASSERT_TRUE(runOp(toInt).isOk());
  EXPECT_EQ(toInt.outputs[0].as<int32_t>()[0], -7);
  EXPECT_EQ(toInt.outputs[0].as<int32_t>()[1], INT32_MAX);  // saturates
  OpCase where;
  where.op = "where";
  where.inputs = {tensor<uint8_t>(DataType::kUint8, {2}, {1, 0}), f64({2}, {1e-320, 1e-320}), f64({}, {1e300})};
  where.outputs = {outSpec(DataType::kFloat64, {2})};
  ASSERT_TRUE(runOp(where).isOk());
  EXPECT_EQ(where.outputs[0].values(), (std::vector<double>{1e-320, 1e300}));
  // Ops without a float64 form refuse it (the dialect does too).
  OpCase elu;
  elu.op = "elu";
  elu.inputs = {f64({2}, {1, 2})};
  elu.outputs = {outSpec(DataType::kFloat64, {2})};
  EXPECT_FALSE(runOp(elu).isOk());
}

TEST(BinaryKernels, IntegerDivisionIsTotal) {
  OpCase c;
  c.op = "div";
  c.inputs = {tensor<int32_t>(DataType::kInt32, {5}, {7, -7, 5, INT32_MIN, 9}),
              tensor<int32_t>(DataType::kInt32, {5}, {2, 2, 0, -1, -3})};
  c.outputs = {outSpec(DataType::kInt32, {5})};
  ASSERT_TRUE(runOp(c).isOk());
  const int32_t *y = c.outputs[0].as<int32_t>();
  EXPECT_EQ(y[0], 3);
  EXPECT_EQ(y[1], -3);  // truncation toward zero
  EXPECT_EQ(y[2], 0);   // x / 0 = 0
  EXPECT_EQ(y[3], INT32_MIN);  // wraps
  EXPECT_EQ(y[4], -3);
}

TEST(BinaryKernels, IntegerPowAndWrappingAdd) {
  OpCase c;
  c.op = "pow";
  c.inputs = {tensor<int64_t>(DataType::kInt64, {4}, {2, -3, 2, -1}), tensor<int64_t>(DataType::kInt64, {4}, {10, 3, -1, -5})};
  c.outputs = {outSpec(DataType::kInt64, {4})};
  ASSERT_TRUE(runOp(c).isOk());
  const int64_t *y = c.outputs[0].as<int64_t>();
  EXPECT_EQ(y[0], 1024);
  EXPECT_EQ(y[1], -27);
  EXPECT_EQ(y[2], 0);
  EXPECT_EQ(y[3], -1);
  OpCase a;
  a.op = "add";
  a.inputs = {tensor<int8_t>(DataType::kInt8, {1}, {127}), tensor<int8_t>(DataType::kInt8, {1}, {1})};
  a.outputs = {outSpec(DataType::kInt8, {1})};
  ASSERT_TRUE(runOp(a).isOk());
  EXPECT_EQ(a.outputs[0].as<int8_t>()[0], -128);
}

TEST(BinaryKernels, ComparisonAndLogicalProduceUint8) {
  OpCase c;
  c.op = "greaterOrEqual";
  c.inputs = {f16({3}, {1.f, 2.f, 3.f}), f16({1}, {2.f})};
  c.outputs = {outSpec(DataType::kUint8, {3})};
  ASSERT_TRUE(runOp(c).isOk());
  EXPECT_EQ(c.outputs[0].bytes, (std::vector<uint8_t>{0, 1, 1}));
  OpCase l;
  l.op = "logicalXor";
  l.inputs = {tensor<uint8_t>(DataType::kUint8, {4}, {0, 0, 3, 1}), tensor<uint8_t>(DataType::kUint8, {4}, {0, 7, 0, 1})};
  l.outputs = {outSpec(DataType::kUint8, {4})};
  ASSERT_TRUE(runOp(l).isOk());
  EXPECT_EQ(l.outputs[0].bytes, (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(BinaryKernels, RejectsMismatchedOutputShapeNamingTheNode) {
  OpCase c;
  c.op = "add";
  c.inputs = {f32({2, 3}, std::vector<float>(6)), f32({3}, std::vector<float>(3))};
  c.outputs = {outSpec(DataType::kFloat32, {3, 2})};
  Status s = runOp(c);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("add node 'test'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(shapeToString({2, 3})), std::string::npos) << s.message();
}

TEST(ElementwiseKernels, WhereBroadcastsAllThree) {
  OpCase c;
  c.op = "where";
  c.inputs = {tensor<uint8_t>(DataType::kUint8, {2, 1}, {1, 0}), tensor<int64_t>(DataType::kInt64, {3}, {1, 2, 3}),
              tensor<int64_t>(DataType::kInt64, {1}, {-1})};
  c.outputs = {outSpec(DataType::kInt64, {2, 3})};
  ASSERT_TRUE(runOp(c).isOk());
  std::vector<int64_t> want{1, 2, 3, -1, -1, -1};
  EXPECT_EQ(std::vector<int64_t>(c.outputs[0].as<int64_t>(), c.outputs[0].as<int64_t>() + 6), want);
}

TEST(ElementwiseKernels, UnaryFloat16RoundsOnceFromFloat32) {
  std::vector<float> xs;
  for (int i = -40; i < 45; ++i) xs.push_back(float(i) * 0.37f);
  for (const char *op : {"exp", "tanh", "sigmoid", "gelu", "softplus", "erf", "roundEven", "hardSwish"}) {
    OpCase c;
    c.op = op;
    c.inputs = {f16({int64_t(xs.size())}, xs)};
    c.outputs = {outSpec(DataType::kFloat16, {int64_t(xs.size())})};
    ASSERT_TRUE(runOp(c, 2).isOk()) << op;
    OpCase r;
    r.op = op;
    std::vector<double> hv = c.inputs[0]->values();
    r.inputs = {f32({int64_t(xs.size())}, std::vector<float>(hv.begin(), hv.end()))};
    r.outputs = {outSpec(DataType::kFloat32, {int64_t(xs.size())})};
    ASSERT_TRUE(runOp(r).isOk()) << op;
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_EQ(c.outputs[0].as<uint16_t>()[i], kernels::floatToHalf(r.outputs[0].as<float>()[i])) << op << " " << i;
  }
}

TEST(ElementwiseKernels, RoundEvenTiesToEven) {
  OpCase c;
  c.op = "roundEven";
  c.inputs = {f32({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f})};
  c.outputs = {outSpec(DataType::kFloat32, {6})};
  ASSERT_TRUE(runOp(c).isOk());
  std::vector<float> want{0.f, 2.f, 2.f, -0.f, -2.f, 2.f};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(c.outputs[0].as<float>()[i], want[i]);
}

TEST(ElementwiseKernels, CastRules) {
  // float -> int: truncate toward zero, saturate, NaN -> 0.
  OpCase c;
  c.op = "cast";
  c.attrString("type", "int8");
  c.inputs = {f32({6}, {2.7f, -2.7f, 300.f, -300.f, NAN, -0.5f})};
  c.outputs = {outSpec(DataType::kInt8, {6})};
  ASSERT_TRUE(runOp(c).isOk());
  std::vector<int8_t> want{2, -2, 127, -128, 0, 0};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(c.outputs[0].as<int8_t>()[i], want[i]) << i;
  // int -> int wraps.
  OpCase w;
  w.op = "cast";
  w.attrString("type", "uint8");
  w.inputs = {tensor<int32_t>(DataType::kInt32, {3}, {256 + 7, -1, 128})};
  w.outputs = {outSpec(DataType::kUint8, {3})};
  ASSERT_TRUE(runOp(w).isOk());
  EXPECT_EQ(w.outputs[0].bytes, (std::vector<uint8_t>{7, 255, 128}));
  // float32 -> float16 rounds to nearest even: 2049 is a tie between 2048 and 2050.
  OpCase h;
  h.op = "cast";
  h.attrString("type", "float16");
  h.inputs = {f32({3}, {2049.f, 2051.f, 70000.f})};
  h.outputs = {outSpec(DataType::kFloat16, {3})};
  ASSERT_TRUE(runOp(h).isOk());
  std::vector<double> hv = h.outputs[0].values();
  EXPECT_EQ(hv[0], 2048.0);
  EXPECT_EQ(hv[1], 2052.0);
  EXPECT_TRUE(std::isinf(hv[2]));
}

TEST(ElementwiseKernels, CastInt4PackedLowNibbleFirst) {
  OpCase c;
  c.op = "cast";
  c.attrString("type", "float32");
  // Elements: 0x1 (1), 0xF (-1), 0x7 (7), 0x8 (-8), 0x3 (3)
  c.inputs = {tensor<uint8_t>(DataType::kInt4, {5}, {0xF1, 0x87, 0x03})};
  c.outputs = {outSpec(DataType::kFloat32, {5})};
  ASSERT_TRUE(runOp(c).isOk());
  EXPECT_EQ(c.outputs[0].values(), (std::vector<double>{1, -1, 7, -8, 3}));
  OpCase back;
  back.op = "cast";
  back.attrString("type", "int4");
  back.inputs = {f32({5}, {1.f, -1.f, 7.9f, -20.f, 3.f})};
  back.outputs = {outSpec(DataType::kInt4, {5})};
  ASSERT_TRUE(runOp(back).isOk());
  EXPECT_EQ(back.outputs[0].bytes, (std::vector<uint8_t>{0xF1, 0x87, 0x03}));
  OpCase bad;
  bad.op = "relu";
  bad.inputs = {tensor<uint8_t>(DataType::kInt4, {2}, {0x11})};
  bad.outputs = {outSpec(DataType::kInt4, {2})};
  Status s = runOp(bad);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("int4"), std::string::npos) << s.message();
}

// ---- reductions
double reduceRef(const std::string &op, const std::vector<double> &v) {
  if (op == "reduceSum") { double s = 0; for (double x : v) s += x; return s; }
  if (op == "reduceMean") { double s = 0; for (double x : v) s += x; return s / double(v.size()); }
  if (op == "reduceL1") { double s = 0; for (double x : v) s += std::fabs(x); return s; }
  if (op == "reduceL2") { double s = 0; for (double x : v) s += x * x; return std::sqrt(s); }
  if (op == "reduceSumSquare") { double s = 0; for (double x : v) s += x * x; return s; }
  if (op == "reduceLogSum") { double s = 0; for (double x : v) s += x; return std::log(s); }
  if (op == "reduceLogSumExp") { double s = 0; for (double x : v) s += std::exp(x); return std::log(s); }
  if (op == "reduceMax") { double s = -INFINITY; for (double x : v) s = std::max(s, x); return s; }
  if (op == "reduceMin") { double s = INFINITY; for (double x : v) s = std::min(s, x); return s; }
  double s = 1; for (double x : v) s *= x; return s;  // reduceProduct
}

TEST(ReductionKernels, MatchReferenceOverAxisSubsets) {
  const Shape shape{3, 5, 1, 18};
  const std::vector<std::vector<int64_t>> axesSets = {{}, {0}, {1}, {3}, {0, 3}, {1, 3}, {0, 1}, {0, 1, 2, 3}, {-1, 1}};
  const char *ops[] = {"reduceSum", "reduceMean", "reduceL1", "reduceL2", "reduceSumSquare", "reduceLogSum",
                       "reduceLogSumExp", "reduceMax", "reduceMin", "reduceProduct"};
  auto values = randomValues(count(shape), 0.5, 1.5, false, 7);
  for (const char *op : ops)
    for (const auto &axes : axesSets)
      for (bool keep : {false, true}) {
        std::vector<bool> red(4, false);
        for (int64_t a : axes) red[size_t(a < 0 ? a + 4 : a)] = true;
        Shape os;
        for (size_t i = 0; i < 4; ++i)
          if (!red[i]) os.push_back(shape[i]);
          else if (keep) os.push_back(1);
        OpCase c;
        c.op = op;
        c.attrInts("axes", axes).attrBool("keepDimensions", keep);
        c.inputs = {fromDoubles(DataType::kFloat32, shape, values)};
        c.outputs = {outSpec(DataType::kFloat32, os)};
        ASSERT_TRUE(runOp(c, 2).isOk()) << op;
        std::vector<double> x = c.inputs[0]->values(), got = c.outputs[0].values();
        // Reference: group elements by their kept coordinates.
        std::vector<std::vector<double>> groups(got.size());
        for (int64_t i = 0; i < count(shape); ++i) {
          int64_t rem = i, o = 0, mul = 1;
          for (int d = 3; d >= 0; --d) {
            int64_t cdim = rem % shape[size_t(d)];
            rem /= shape[size_t(d)];
            if (!red[size_t(d)]) {
              o += cdim * mul;
              mul *= shape[size_t(d)];
            }
          }
          groups[size_t(o)].push_back(x[size_t(i)]);
        }
        for (size_t o = 0; o < got.size(); ++o) {
          double want = reduceRef(op, groups[o]);
          EXPECT_NEAR(got[o], want, 1e-5 * std::max(1.0, std::fabs(want))) << op << " axes size " << axes.size();
        }
      }
}

TEST(ReductionKernels, IntegerSumAndEmptyReduction) {
  OpCase c;
  c.op = "reduceSum";
  c.attrInts("axes", {0});
  c.inputs = {tensor<int32_t>(DataType::kInt32, {3, 2}, {1, 2, 3, 4, 5, -6})};
  c.outputs = {outSpec(DataType::kInt32, {2})};
  ASSERT_TRUE(runOp(c).isOk());
  EXPECT_EQ(c.outputs[0].as<int32_t>()[0], 9);
  EXPECT_EQ(c.outputs[0].as<int32_t>()[1], 0);
  OpCase e;
  e.op = "reduceProduct";
  e.attrInts("axes", {1});
  e.inputs = {f32({2, 0}, {})};
  e.outputs = {outSpec(DataType::kFloat32, {2})};
  ASSERT_TRUE(runOp(e).isOk());
  EXPECT_EQ(e.outputs[0].as<float>()[0], 1.f);
}

TEST(ReductionKernels, ArgMaxFirstIndexAlongInnerAndOuterAxes) {
  OpCase c;
  c.op = "argMax";
  c.attrInt("axis", 0).attrString("outputDataType", "int64");
  c.inputs = {f32({3, 2}, {1, 5, 3, 5, 3, 0})};
  c.outputs = {outSpec(DataType::kInt64, {2})};
  ASSERT_TRUE(runOp(c).isOk());
  EXPECT_EQ(c.outputs[0].as<int64_t>()[0], 1);
  EXPECT_EQ(c.outputs[0].as<int64_t>()[1], 0);
  OpCase m;
  m.op = "argMin";
  m.attrInt("axis", -1).attrBool("keepDimensions", true);
  m.inputs = {tensor<uint8_t>(DataType::kUint8, {2, 3}, {4, 1, 1, 9, 9, 8})};
  m.outputs = {outSpec(DataType::kInt32, {2, 1})};
  ASSERT_TRUE(runOp(m).isOk());
  EXPECT_EQ(m.outputs[0].as<int32_t>()[0], 1);
  EXPECT_EQ(m.outputs[0].as<int32_t>()[1], 2);
}

}  // namespace
}  // namespace webnn::cpu::test
