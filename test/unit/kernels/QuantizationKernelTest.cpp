// quantizeLinear / dequantizeLinear against reference loops: per-tensor,
// per-axis and block-wise scales, every zero-point type incl. packed 4-bit,
// round half to even, saturation, float16 scales.
#include <gtest/gtest.h>

#include <cmath>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

// Packs 4-bit values two per byte, low nibble first.
TestTensor packed4(DataType dt, Shape s, const std::vector<int> &v) {
  TestTensor t{dt, std::move(s), std::vector<uint8_t>((v.size() + 1) / 2, 0), false};
  for (size_t i = 0; i < v.size(); ++i) t.bytes[i / 2] |= uint8_t((v[i] & 0xf) << ((i & 1) * 4));
  return t;
}
std::vector<int> unpack4(const TestTensor &t, bool isSigned) {
  std::vector<int> r;
  for (int64_t i = 0; i < t.count(); ++i) {
    int v = (t.bytes[size_t(i / 2)] >> ((i & 1) * 4)) & 0xf;
    r.push_back(isSigned && v >= 8 ? v - 16 : v);
  }
  return r;
}

// Reference of the blockwise broadcast for a 2-D input.
int64_t blockIndex2d(const Shape &in, const Shape &sc, int64_t i) {
  int64_t r = i / in[1], c = i % in[1];
  return (r / (in[0] / sc[0])) * sc[1] + c / (in[1] / sc[1]);
}

TEST(QuantizationKernels, QuantizeRoundsHalfToEvenAndSaturates) {
  // scale 0.5: x / scale = 2x. 1.25 -> 2.5 -> 2; 1.75 -> 3.5 -> 4; -0.25 -> -0.5 -> -0.
  std::vector<float> x = {1.25f, 1.75f, -0.25f, 100.f, -100.f, 0.f};
  struct Case {
    DataType zt;
    double zp;
    std::vector<double> want;
  };
  std::vector<Case> cases = {{DataType::kUint8, 10, {12, 14, 10, 210, 0, 10}},
                             {DataType::kInt8, -1, {1, 3, -1, 127, -128, -1}},
                             {DataType::kInt32, 5, {7, 9, 5, 205, -195, 5}},
                             {DataType::kUint32, 3, {5, 7, 3, 203, 0, 3}}};
  for (DataType ft : {DataType::kFloat32, DataType::kFloat16}) {
    for (Case &k : cases) {
      OpCase c;
      c.op = "quantizeLinear";
      c.inputs = {ft == DataType::kFloat32 ? f32({6}, x) : f16({6}, x),
                  ft == DataType::kFloat32 ? f32({1}, {0.5f}) : f16({1}, {0.5f}), fromDoubles(k.zt, {1}, {k.zp})};
      c.outputs = {outSpec(k.zt, {6})};
      ASSERT_TRUE(runOp(c).isOk());
      EXPECT_EQ(c.outputs[0].values(), k.want);
    }
  }
}

TEST(QuantizationKernels, QuantizeAndDequantizeBlockwise) {
  // input [4, 6], scale [2, 3]: blocks of 2x2.
  Shape in = {4, 6}, sc = {2, 3};
  std::vector<float> x(24), s = {0.5f, 1.f, 2.f, 0.25f, 4.f, 0.125f};
  for (int i = 0; i < 24; ++i) x[size_t(i)] = float(i - 12) * 0.3f;
  std::vector<double> zp = {1, -2, 0, 3, -1, 2};
  OpCase q;
  q.op = "quantizeLinear";
  q.inputs = {f32(in, x), f32(sc, s, true), fromDoubles(DataType::kInt8, sc, zp, true)};
  q.outputs = {outSpec(DataType::kInt8, in)};
  ASSERT_TRUE(runOp(q, 2).isOk());
  std::vector<double> got = q.outputs[0].values();
  for (int64_t i = 0; i < 24; ++i) {
    int64_t b = blockIndex2d(in, sc, i);
    double want = std::min(127.0, std::max(-128.0, std::nearbyint(double(x[size_t(i)]) / s[size_t(b)]) + zp[size_t(b)]));
    EXPECT_EQ(got[size_t(i)], want) << i;
  }
  // Dequantize the result back with float16 scales.
  OpCase d;
  d.op = "dequantizeLinear";
  d.inputs = {q.outputs[0], f16(sc, s), fromDoubles(DataType::kInt8, sc, zp)};
  d.outputs = {outSpec(DataType::kFloat16, in)};
  ASSERT_TRUE(runOp(d).isOk());
  std::vector<double> back = d.outputs[0].values();
  for (int64_t i = 0; i < 24; ++i) {
    int64_t b = blockIndex2d(in, sc, i);
    EXPECT_NEAR(back[size_t(i)], (got[size_t(i)] - zp[size_t(b)]) * s[size_t(b)], 1e-2) << i;
  }
}

TEST(QuantizationKernels, DequantizeIntegerTypesPerAxis) {
  // input [2, 3] per-column scale [1, 3].
  for (DataType dt : {DataType::kUint8, DataType::kInt8, DataType::kInt32, DataType::kUint32}) {
    bool isUnsigned = dt == DataType::kUint8 || dt == DataType::kUint32;
    std::vector<double> x = isUnsigned ? std::vector<double>{0, 5, 255, 7, 100, 1}
                                       : std::vector<double>{-5, 5, 127, 7, -100, 1};
    if (dt == DataType::kUint32) x[2] = 4000000000.0;
    std::vector<double> zp = {3, 0, 10};
    std::vector<float> s = {0.5f, 2.f, 0.25f};
    OpCase c;
    c.op = "dequantizeLinear";
    c.inputs = {fromDoubles(dt, {2, 3}, x), f32({1, 3}, s), fromDoubles(dt, {1, 3}, zp)};
    c.outputs = {outSpec(DataType::kFloat32, {2, 3})};
    ASSERT_TRUE(runOp(c).isOk());
    std::vector<double> got = c.outputs[0].values();
    for (int i = 0; i < 6; ++i)
      EXPECT_FLOAT_EQ(float(got[size_t(i)]), float((x[size_t(i)] - zp[size_t(i % 3)]) * s[size_t(i % 3)])) << i;
  }
}

TEST(QuantizationKernels, Packed4BitBothWays) {
  // int4 input of 5 elements (odd: the last byte is half used).
  std::vector<int> xi = {-8, -1, 0, 3, 7};
  OpCase d;
  d.op = "dequantizeLinear";
  d.inputs = {packed4(DataType::kInt4, {5}, xi), f32({1}, {0.5f}), packed4(DataType::kInt4, {1}, {-2})};
  d.outputs = {outSpec(DataType::kFloat32, {5})};
  ASSERT_TRUE(runOp(d).isOk());
  EXPECT_EQ(d.outputs[0].values(), (std::vector<double>{-3, 0.5, 1, 2.5, 4.5}));
  // uint4 output with a per-row block scale on [3, 3] (odd rows share bytes).
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 30, -30, 6};
  OpCase q;
  q.op = "quantizeLinear";
  q.inputs = {f32({3, 3}, x), f32({3, 1}, {1.f, 0.5f, 2.f}), packed4(DataType::kUint4, {3, 1}, {1, 0, 8})};
  q.outputs = {outSpec(DataType::kUint4, {3, 3})};
  ASSERT_TRUE(runOp(q, 2).isOk());
  EXPECT_EQ(unpack4(q.outputs[0], false), (std::vector<int>{1, 2, 3, 6, 8, 10, 15, 0, 11}));
  OpCase s = q;
  s.inputs[2] = packed4(DataType::kInt4, {3, 1}, {1, 0, -8});
  s.outputs = {outSpec(DataType::kInt4, {3, 3})};
  ASSERT_TRUE(runOp(s).isOk());
  EXPECT_EQ(unpack4(s.outputs[0], true), (std::vector<int>{1, 2, 3, 6, 7, 7, 7, -8, -5}));
}

TEST(QuantizationKernels, RejectsSpecViolations) {
  OpCase c;
  c.op = "quantizeLinear";
  c.inputs = {f32({4}, {1, 2, 3, 4}), f32({3}, {1, 1, 1}), fromDoubles(DataType::kUint8, {3}, {0, 0, 0})};
  c.outputs = {outSpec(DataType::kUint8, {4})};
  EXPECT_FALSE(runOp(c).isOk());  // 4 is not a multiple of 3
  OpCase r = c;
  r.inputs = {f32({4}, {1, 2, 3, 4}), f32({1, 4}, {1, 1, 1, 1}), fromDoubles(DataType::kUint8, {1, 4}, {0, 0, 0, 0})};
  EXPECT_FALSE(runOp(r).isOk());  // scale rank may be lower than the input's, never higher
  OpCase lower = c;  // a lower-rank scale lines up with the input's last dimensions (docs/OPS.md)
  lower.inputs = {f32({4}, {1, 2, 3, 4}), f32({}, {2}), fromDoubles(DataType::kUint8, {}, {1})};
  ASSERT_TRUE(runOp(lower).isOk());
  EXPECT_EQ(lower.outputs[0].bytes, (std::vector<uint8_t>{1, 2, 3, 3}));  // roundEven(x / 2) + 1
  OpCase t = c;
  t.inputs = {f32({4}, {1, 2, 3, 4}), f32({1}, {1}), fromDoubles(DataType::kInt64, {1}, {0})};
  t.outputs = {outSpec(DataType::kInt64, {4})};
  EXPECT_FALSE(runOp(t).isOk());  // int64 zero point is not allowed
  OpCase d;
  d.op = "dequantizeLinear";
  d.inputs = {fromDoubles(DataType::kInt8, {2}, {1, 2}), f32({1}, {1}), fromDoubles(DataType::kUint8, {1}, {0})};
  d.outputs = {outSpec(DataType::kFloat32, {2})};
  EXPECT_FALSE(runOp(d).isOk());  // zeroPoint type differs from input
}

}  // namespace
}  // namespace webnn::cpu::test
