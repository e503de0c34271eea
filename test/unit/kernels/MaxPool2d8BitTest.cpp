// maxPool2d on int8/uint8 (kernels/Pooling.cpp's max kernel on 8-bit data,
// reached through its factory) against a reference loop: nchw and nhwc, padding,
// strides, dilations, ceil rounding with a window wholly in the padding (0),
// 1 and 2 threads; and the premise of --webnn-fuse-qdq's fold: the 8-bit
// pool equals quantizeLinear(float maxPool2d(dequantizeLinear(x))) with one
// scale and zero point wherever every window holds a real element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

struct PoolCase {
  int64_t N, C, H, W, KH, KW, stride, dilation;
  std::vector<int64_t> pad;  // top, bottom, left, right
  bool nhwc, ceil;
  DataType dt;
};

int64_t outSize(int64_t in, int64_t k, int64_t d, int64_t s, int64_t p0, int64_t p1, bool ceil) {
  int64_t span = in + p0 + p1 - (k - 1) * d - 1;
  return span / s + 1 + (ceil && span % s != 0 ? 1 : 0);
}

// The reference: the largest real element of each window, 0 for none.
std::vector<double> reference(const PoolCase &c, const std::vector<double> &x, int64_t OH, int64_t OW) {
  std::vector<double> y(size_t(c.N * c.C * OH * OW));
  auto at = [&](int64_t n, int64_t ch, int64_t h, int64_t w) {
    return c.nhwc ? ((n * c.H + h) * c.W + w) * c.C + ch : ((n * c.C + ch) * c.H + h) * c.W + w;
  };
  auto outAt = [&](int64_t n, int64_t ch, int64_t h, int64_t w) {
    return c.nhwc ? ((n * OH + h) * OW + w) * c.C + ch : ((n * c.C + ch) * OH + h) * OW + w;
  };
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ch = 0; ch < c.C; ++ch)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double m = -1e9;
          for (int64_t kh = 0; kh < c.KH; ++kh)
            for (int64_t kw = 0; kw < c.KW; ++kw) {
              int64_t h = oh * c.stride - c.pad[0] + kh * c.dilation, w = ow * c.stride - c.pad[2] + kw * c.dilation;
              if (h >= 0 && h < c.H && w >= 0 && w < c.W) m = std::max(m, x[size_t(at(n, ch, h, w))]);
            }
          y[size_t(outAt(n, ch, oh, ow))] = m == -1e9 ? 0.0 : m;
        }
  return y;
}

OpCase poolOp(const PoolCase &c, DataType dt, TestTensor x, int64_t OH, int64_t OW) {
  OpCase op;
  op.op = "maxPool2d";
  op.attrInts("windowDimensions", {c.KH, c.KW}).attrInts("padding", c.pad);
  op.attrInts("strides", {c.stride, c.stride}).attrInts("dilations", {c.dilation, c.dilation});
  op.attrString("layout", c.nhwc ? "nhwc" : "nchw");
  if (c.ceil) op.attrString("roundingType", "ceil");
  op.inputs.push_back(std::move(x));
  op.outputs.push_back(c.nhwc ? outSpec(dt, {c.N, OH, OW, c.C}) : outSpec(dt, {c.N, c.C, OH, OW}));
  return op;
}

const std::vector<PoolCase> &cases() {
  static const std::vector<PoolCase> all = {
      // ResNet's stem pool: 3x3 stride 2, padding 1, nhwc, 64 channels.
      {1, 64, 20, 20, 3, 3, 2, 1, {1, 1, 1, 1}, true, false, DataType::kUint8},
      // 300 channels: a full 256-byte block of the nhwc walk and a tail.
      {1, 300, 7, 6, 3, 3, 2, 1, {1, 0, 1, 1}, true, true, DataType::kUint8},
      // Channels not a multiple of the vector width, int8, nhwc, batch 2.
      {2, 19, 9, 11, 3, 2, 1, 1, {1, 0, 0, 1}, true, false, DataType::kInt8},
      // nchw, dilation 2, asymmetric padding.
      {1, 3, 12, 10, 2, 3, 2, 2, {0, 2, 1, 0}, false, false, DataType::kUint8},
      // Ceil rounding with padding as large as the window: windows wholly in
      // the padding give 0, in both layouts.
      {1, 5, 5, 5, 2, 2, 2, 1, {2, 1, 2, 1}, true, true, DataType::kInt8},
      {1, 5, 5, 5, 2, 2, 2, 1, {2, 1, 2, 1}, false, true, DataType::kUint8},
  };
  return all;
}

TEST(MaxPool2d8Bit, MatchesTheReference) {
  std::mt19937 rng(7);
  for (const PoolCase &c : cases()) {
    const int64_t OH = outSize(c.H, c.KH, c.dilation, c.stride, c.pad[0], c.pad[1], c.ceil);
    const int64_t OW = outSize(c.W, c.KW, c.dilation, c.stride, c.pad[2], c.pad[3], c.ceil);
    const bool s8 = c.dt == DataType::kInt8;
    std::vector<double> x(size_t(c.N * c.C * c.H * c.W));
    for (double &v : x) v = double(int(rng() % 256) - (s8 ? 128 : 0));
    const Shape xs = c.nhwc ? Shape{c.N, c.H, c.W, c.C} : Shape{c.N, c.C, c.H, c.W};
    std::vector<double> want = reference(c, x, OH, OW);
    for (int threads : {1, 2}) {
      OpCase op = poolOp(c, c.dt, fromDoubles(c.dt, xs, x), OH, OW);
      Status s = runOp(op, threads);
      ASSERT_TRUE(s.isOk()) << s.message();
      EXPECT_EQ(op.outputs[0].values(), want) << "case " << (&c - cases().data()) << ", " << threads << " thread(s)";
    }
  }
}

// quantizeLinear(maxPool2d(dequantizeLinear(x, s, z)), s, z) computed with
// the float kernel equals the 8-bit pool of x (the fold's premise), for
// cases whose every window holds a real element.
TEST(MaxPool2d8Bit, EqualsTheFloatPoolBetweenDequantizeAndQuantize) {
  std::mt19937 rng(11);
  const float scale = 0.0371f;
  for (const PoolCase &c : cases()) {
    if (c.ceil || c.dilation != 1) continue;
    const int32_t z = c.dt == DataType::kInt8 ? -17 : 131;
    const int64_t OH = outSize(c.H, c.KH, 1, c.stride, c.pad[0], c.pad[1], false);
    const int64_t OW = outSize(c.W, c.KW, 1, c.stride, c.pad[2], c.pad[3], false);
    const bool s8 = c.dt == DataType::kInt8;
    std::vector<double> x(size_t(c.N * c.C * c.H * c.W));
    for (double &v : x) v = double(int(rng() % 256) - (s8 ? 128 : 0));
    std::vector<float> xf(x.size());
    for (size_t i = 0; i < x.size(); ++i) xf[i] = float(x[i] - z) * scale;  // dequantizeLinear
    const Shape xs = c.nhwc ? Shape{c.N, c.H, c.W, c.C} : Shape{c.N, c.C, c.H, c.W};
    OpCase f = poolOp(c, DataType::kFloat32, f32(xs, xf), OH, OW);
    ASSERT_TRUE(runOp(f, 1).isOk());
    std::vector<double> viaFloat = f.outputs[0].values();
    const double lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    for (double &v : viaFloat) v = std::clamp(std::nearbyint(double(float(v) / scale)) + z, lo, hi);  // quantizeLinear
    OpCase q = poolOp(c, c.dt, fromDoubles(c.dt, xs, x), OH, OW);
    ASSERT_TRUE(runOp(q, 2).isOk());
    EXPECT_EQ(q.outputs[0].values(), viaFloat) << "case " << (&c - cases().data());
  }
}

// averagePool2d and l2Pool2d stay float-only: one clear error.
TEST(MaxPool2d8Bit, OtherPoolsRefuseEightBitInput) {
  for (const char *name : {"averagePool2d", "l2Pool2d"}) {
    OpCase op;
    op.op = name;
    op.attrInts("windowDimensions", {2, 2});
    op.inputs.push_back(fromDoubles(DataType::kUint8, {1, 1, 2, 2}, {1, 2, 3, 4}));
    op.outputs.push_back(outSpec(DataType::kUint8, {1, 1, 1, 1}));
    Status s = runOp(op, 1);
    EXPECT_FALSE(s.isOk()) << name;
    EXPECT_NE(s.message().find("input"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace webnn::cpu::test
