// quantizedConv2d (kernels/conv/QuantizedConv2d.cpp, onednn/QuantizedConv2d.cpp)
// against the QDQ meaning computed in double on the dequantized values:
// y = conv(sx * (x - zx), sw[o] * w) + bias[o], then quantizeLinear's rule
// (round half to even, saturate) for an 8-bit output. The kernel scales an
// exact int32 sum by a float32 multiplier, so a value within a float32
// rounding of a half step may land one step away: at most one step, on at
// most one element in a thousand. Shapes: 3x3 with padding, depthwise
// stride 2, 1x1 with int8 input and float output, the 7x7 stride-2 stem,
// dilation with asymmetric padding; residual joins (the conv's own
// quantization, the residual's dequantization, relu); 1 and 2 threads
// (pieces of rows and of channels, the latter also where rows do not
// divide evenly); oneDNN against the portable loop; the
// output written over the residual's bytes (the memory planner's in-place
// placement) against a separate output.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::test {
namespace {

struct QConvCase {
  int64_t N, H, W, C, O, KH, KW, groups, stride, dilation;
  std::vector<int64_t> pad;  // top, bottom, left, right
  DataType in;               // kUint8 or kInt8
  int32_t zx;
  DataType out;              // kFloat32, kUint8 or kInt8
  int32_t zo;
  bool bias;
  bool residual = false;  // a residual join: the conv quantized (scale cs, zero point zc), plus r
  bool relu = false;
};

struct Result {
  std::vector<double> want;  // reference, as output values
  TestTensor got;
};

// `inPlace`: the output over the residual's bytes (a residual case).
Result runCase(const QConvCase &c, int threads, uint32_t seed, bool inPlace = false) {
  std::mt19937 rng(seed);
  const int64_t Cg = c.C / c.groups, Og = c.O / c.groups;
  const int64_t OH = (c.H + c.pad[0] + c.pad[1] - (c.KH - 1) * c.dilation - 1) / c.stride + 1;
  const int64_t OW = (c.W + c.pad[2] + c.pad[3] - (c.KW - 1) * c.dilation - 1) / c.stride + 1;
  const bool s8 = c.in == DataType::kInt8;
  std::vector<double> x(size_t(c.N * c.H * c.W * c.C)), w(size_t(c.O * c.KH * c.KW * Cg)), bias(size_t(c.O));
  for (double &v : x) v = double(int(rng() % 256) - (s8 ? 128 : 0));
  for (double &v : w) v = double(int(rng() % 255) - 127);
  std::vector<float> sw(size_t(c.O));
  for (float &s : sw) s = 0.0005f * float(1 + rng() % 40);
  const float sx = 0.02f, so = c.out == DataType::kFloat32 ? 1.f : 0.05f * float(c.KH * c.KW) * std::sqrt(float(Cg));
  for (double &b : bias) b = c.bias ? double(int(rng() % 2001) - 1000) * 0.001 : 0.0;
  std::vector<float> biasF(bias.begin(), bias.end());
  // The residual (of the output's type) and the conv's own parameters.
  const bool outSigned = c.out == DataType::kInt8;
  std::vector<double> res(size_t(c.N * OH * OW * c.O));
  for (double &v : res) v = double(int(rng() % 256) - (outSigned ? 128 : 0));
  const float cs = so * 0.7313f, sr = so * 1.2377f;  // ratios far from ties
  const int32_t zc = outSigned ? 4 : 120, zr = outSigned ? -9 : 131;

  Result r;
  r.want.resize(size_t(c.N * OH * OW * c.O));
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        for (int64_t o = 0; o < c.O; ++o) {
          const int64_t g = o / Og;
          double acc = 0;
          for (int64_t kh = 0; kh < c.KH; ++kh)
            for (int64_t kw = 0; kw < c.KW; ++kw) {
              const int64_t h = oh * c.stride - c.pad[0] + kh * c.dilation;
              const int64_t ww = ow * c.stride - c.pad[2] + kw * c.dilation;
              if (h < 0 || h >= c.H || ww < 0 || ww >= c.W) continue;
              for (int64_t i = 0; i < Cg; ++i) {
                double xv = double(sx) * (x[size_t(((n * c.H + h) * c.W + ww) * c.C + g * Cg + i)] - c.zx);
                double wv = double(sw[size_t(o)]) * w[size_t(((o * c.KH + kh) * c.KW + kw) * Cg + i)];
                acc += xv * wv;
              }
            }
          double y = acc + double(biasF[size_t(o)]);
          const size_t at = size_t(((n * OH + oh) * OW + ow) * c.O + o);
          if (c.residual) {
            const double lo = outSigned ? -128 : 0, hi = outSigned ? 127 : 255;
            const double t = std::min(hi, std::max(lo, std::nearbyint(y / double(cs)) + zc));
            y = (t - zc) * double(cs) + (res[at] - zr) * double(sr);
          }
          if (c.relu) y = std::max(y, 0.0);
          if (c.out != DataType::kFloat32) {
            const double lo = c.out == DataType::kInt8 ? -128 : 0, hi = c.out == DataType::kInt8 ? 127 : 255;
            y = std::min(hi, std::max(lo, std::nearbyint(y / double(so)) + c.zo));
          }
          r.want[at] = y;
        }

  OpCase op;
  op.op = "quantizedConv2d";
  op.inputs.push_back(fromDoubles(c.in, {c.N, c.H, c.W, c.C}, x));
  op.inputs.push_back(f32({1}, {sx}, true));
  op.inputs.push_back(fromDoubles(c.in, {1}, {double(c.zx)}, true));
  op.inputs.push_back(fromDoubles(DataType::kInt8, {c.O, c.KH, c.KW, Cg}, w, true));
  op.inputs.push_back(f32({c.O}, sw, true));
  if (c.bias) op.inputs.push_back(f32({c.O}, biasF, true));
  else op.inputs.push_back(std::nullopt);
  if (c.out != DataType::kFloat32) {
    op.inputs.push_back(f32({1}, {so}, true));
    op.inputs.push_back(fromDoubles(c.out, {1}, {double(c.zo)}, true));
  }
  if (c.residual) {
    op.inputs.push_back(fromDoubles(c.out, {c.N, OH, OW, c.O}, res));
    op.inputs.push_back(f32({1}, {sr}, true));
    op.inputs.push_back(fromDoubles(c.out, {1}, {double(zr)}, true));
    op.inputs.push_back(f32({1}, {cs}, true));
    op.inputs.push_back(fromDoubles(c.out, {1}, {double(zc)}, true));
  }
  if (c.relu) op.attrString("activation", "relu");
  op.attrInts("padding", c.pad).attrInts("strides", {c.stride, c.stride}).attrInts("dilations", {c.dilation, c.dilation});
  op.attrInt("groups", c.groups);
  op.outputs.push_back(outSpec(c.out, {c.N, OH, OW, c.O}));
  if (inPlace) op.outputOverInput = 8;
  Status s = runOp(op, threads);
  EXPECT_TRUE(s.isOk()) << s.message();
  r.got = op.outputs[0];
  return r;
}

// Float output: within float32 rounding of the sum; 8-bit: at most one step,
// rarely.
void expectClose(const QConvCase &c, const std::vector<double> &want, const TestTensor &got, const char *what) {
  std::vector<double> g = got.values();
  ASSERT_EQ(g.size(), want.size());
  size_t off = 0;
  double maxAbs = 0;
  for (double v : want) maxAbs = std::max(maxAbs, std::fabs(v));
  for (size_t i = 0; i < g.size(); ++i) {
    if (c.out == DataType::kFloat32) {
      ASSERT_NEAR(g[i], want[i], 1e-5 * maxAbs + 1e-6) << what << " element " << i;
    } else {
      ASSERT_LE(std::fabs(g[i] - want[i]), 1.0) << what << " element " << i;
      off += g[i] != want[i];
    }
  }
  EXPECT_LE(off * 1000, g.size()) << what << ": " << off << " of " << g.size() << " one step off";
}

const std::vector<QConvCase> &cases() {
  static const std::vector<QConvCase> all = {
      // ResNet's 3x3: uint8 zero point 128 in, uint8 out, bias.
      {1, 28, 28, 32, 64, 3, 3, 1, 1, 1, {1, 1, 1, 1}, DataType::kUint8, 128, DataType::kUint8, 3, true},
      // MobileNetV2's depthwise, stride 2, uint8 zero point 0.
      {1, 30, 30, 48, 48, 3, 3, 48, 2, 1, {1, 1, 1, 1}, DataType::kUint8, 0, DataType::kUint8, 0, true},
      // 1x1 with int8 input (asymmetric zero point) and float output.
      {2, 14, 14, 64, 40, 1, 1, 1, 1, 1, {0, 0, 0, 0}, DataType::kInt8, -5, DataType::kFloat32, 0, true},
      // The 7x7 stride-2 stem (three input channels; padded with the zero
      // point by hand for oneDNN), int8 out, no bias; again with a bias and
      // asymmetric padding.
      {1, 40, 40, 3, 16, 7, 7, 1, 2, 1, {3, 3, 3, 3}, DataType::kUint8, 100, DataType::kInt8, -7, false},
      {1, 31, 30, 3, 32, 7, 7, 1, 2, 1, {3, 2, 3, 1}, DataType::kUint8, 77, DataType::kUint8, 0, true},
      // Dilation 2, asymmetric padding, grouped (2 groups).
      {1, 17, 19, 32, 32, 3, 3, 2, 1, 2, {2, 1, 0, 2}, DataType::kUint8, 17, DataType::kUint8, 128, true},
      // One output pixel, many channels (cut by channels on two threads).
      {1, 1, 1, 1024, 512, 1, 1, 1, 1, 1, {0, 0, 0, 0}, DataType::kUint8, 128, DataType::kUint8, 120, true},
      // Residual joins: ResNet's 1x1 expansion + add + relu, uint8.
      {1, 28, 28, 64, 256, 1, 1, 1, 1, 1, {0, 0, 0, 0}, DataType::kUint8, 0, DataType::kUint8, 0, true, true, true},
      // MobileNetV2's projection + add (no relu), and a 3x3 one, int8.
      {1, 14, 14, 96, 32, 1, 1, 1, 1, 1, {0, 0, 0, 0}, DataType::kUint8, 3, DataType::kUint8, 128, true, true},
      {1, 9, 9, 16, 32, 3, 3, 1, 1, 1, {1, 1, 1, 1}, DataType::kInt8, -2, DataType::kInt8, 5, false, true, true},
      // A join of one output pixel (cut by channels on two threads).
      {1, 1, 1, 1024, 512, 1, 1, 1, 1, 1, {0, 0, 0, 0}, DataType::kUint8, 128, DataType::kUint8, 7, true, true, true},
      // relu without a residual.
      {1, 9, 9, 16, 32, 3, 3, 1, 1, 1, {1, 1, 1, 1}, DataType::kUint8, 9, DataType::kUint8, 60, true, false, true},
      // relu before an output whose zero point is the type's lowest value
      // (the kernel leaves it to the saturation): int8 at -128, and uint8
      // at 0 in the residual case above.
      {1, 9, 9, 16, 32, 3, 3, 1, 1, 1, {1, 1, 1, 1}, DataType::kUint8, 9, DataType::kInt8, -128, true, false, true},
      // Seven output rows (ResNet's last stage): on two threads 4 + 3 rows
      // for the 1x1 join, pieces of output channels for the 3x3s (the
      // second a join).
      {1, 7, 7, 256, 128, 1, 1, 1, 1, 1, {0, 0, 0, 0}, DataType::kUint8, 0, DataType::kUint8, 0, true, true, true},
      {1, 14, 14, 64, 96, 3, 3, 1, 2, 1, {1, 1, 1, 1}, DataType::kUint8, 131, DataType::kUint8, 2, true},
      {1, 7, 7, 64, 64, 3, 3, 1, 1, 1, {1, 1, 1, 1}, DataType::kUint8, 5, DataType::kUint8, 0, true, true, true},
  };
  return all;
}

TEST(QuantizedConv2d, MatchesTheDequantizedReference) {
  uint32_t seed = 1;
  for (const QConvCase &c : cases())
    for (int threads : {1, 2}) {
      Result r = runCase(c, threads, seed);
      expectClose(c, r.want, r.got, threads == 1 ? "1 thread" : "2 threads");
      ++seed;
    }
}

#if WEBNN_HAVE_ONEDNN
// The portable loop (oneDNN off) computes what oneDNN's primitive does.
TEST(QuantizedConv2d, PortableMatchesOneDnn) {
  uint32_t seed = 100;
  for (const QConvCase &c : cases()) {
    Result a = runCase(c, 2, seed);
    onednn::Policy saved = onednn::policy(), off = saved;
    off.enabled = false;
    onednn::setPolicy(off);
    Result b = runCase(c, 2, seed);
    onednn::setPolicy(saved);
    expectClose(c, a.want, b.got, "portable");
    std::vector<double> av = a.got.values(), bv = b.got.values();
    size_t differ = 0;
    for (size_t i = 0; i < av.size(); ++i) differ += av[i] != bv[i];
    EXPECT_LE(differ * 1000, av.size()) << differ << " of " << av.size() << " differ between oneDNN and portable";
    ++seed;
  }
}
#endif

// The output over the residual's bytes (the planner's placement where the
// residual dies at the join): the same bytes as a separate output, on one
// thread and on pieces of rows and of channels, oneDNN and portable.
TEST(QuantizedConv2d, OutputOverTheResidual) {
  uint32_t seed = 200;
  for (const QConvCase &c : cases()) {
    if (!c.residual) continue;
    for (int threads : {1, 2}) {
      for (bool oneDnn : {true, false}) {
#if WEBNN_HAVE_ONEDNN
        onednn::Policy saved = onednn::policy(), off = saved;
        off.enabled = oneDnn;
        onednn::setPolicy(off);
#else
        if (oneDnn) continue;
#endif
        Result separate = runCase(c, threads, seed);
        Result over = runCase(c, threads, seed, true);
#if WEBNN_HAVE_ONEDNN
        onednn::setPolicy(saved);
#endif
        const char *what = oneDnn ? "oneDNN in place" : "portable in place";
        expectClose(c, over.want, over.got, what);
        EXPECT_EQ(over.got.bytes, separate.got.bytes) << what << ", " << threads << " thread(s)";
      }
      ++seed;
    }
  }
}

#if WEBNN_HAVE_ONEDNN
// Output rows that two threads cannot share evenly (7) are cut into pieces of
// output channels, except for a 1x1 stride-1 layer; 14 rows stay pieces of
// rows.
TEST(QuantizedConv2d, UnevenRowsAreCutByChannels) {
  struct Case {
    int64_t rows, k;
    const char *want;
  };
  for (const Case &c : {Case{7, 1, "2 pieces of output rows"}, Case{7, 3, "2 pieces of output channels"},
                        Case{14, 1, "2 pieces of output rows"}}) {
    onednn::QuantizedConv2dParams p;
    p.N = 1, p.H = c.rows, p.W = c.rows, p.C = 256, p.O = 128, p.OH = c.rows, p.OW = c.rows, p.KH = c.k, p.KW = c.k;
    p.padTop = p.padBottom = p.padLeft = p.padRight = c.k / 2;
    p.output = onednn::QuantizedConv2dParams::Output::kUint8;
    p.scales.assign(128, 0.01f);
    std::string why;
    std::unique_ptr<onednn::QuantizedConv2d> conv = onednn::QuantizedConv2d::create(p, &why);
    if (!conv) GTEST_SKIP() << "no optimized oneDNN int8 convolution: " << why;
    conv->buildPrimitive(2);
    const std::string impl = conv->implementation();
    EXPECT_NE(impl.find(c.want), std::string::npos) << c.rows << " rows, " << c.k << "x" << c.k << ": " << impl;
  }
}
#endif

// Bad operands: one error naming the problem, no kernel.
TEST(QuantizedConv2d, RefusesMalformedNodes) {
  OpCase op;
  op.op = "quantizedConv2d";
  op.inputs.push_back(fromDoubles(DataType::kUint8, {1, 5, 5, 4}, std::vector<double>(100, 1.0)));
  op.inputs.push_back(f32({1}, {0.1f}, true));
  op.inputs.push_back(fromDoubles(DataType::kUint8, {1}, {0.0}, true));
  op.inputs.push_back(fromDoubles(DataType::kInt8, {6, 3, 3, 4}, std::vector<double>(216, 1.0), false));
  op.inputs.push_back(f32({6}, std::vector<float>(6, 0.1f), true));
  op.outputs.push_back(outSpec(DataType::kFloat32, {1, 5, 5, 6}));
  op.attrInts("padding", {1, 1, 1, 1});
  Status s = runOp(op, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("filter must be an int8 constant"), std::string::npos) << s.message();
  op.inputs[3]->constant = true;
  op.inputs[4] = f32({4}, std::vector<float>(4, 0.1f), true);
  s = runOp(op, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("filterScale must be a float32 constant of 1 or O elements"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace webnn::cpu::test
