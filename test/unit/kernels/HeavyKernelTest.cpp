// matmul, gemm, conv2d, convTranspose2d, pooling, normalization, softmax and
// the shape ops against naive reference loops on odd sizes (tails of the
// 6x16 micro-kernel and of the 256-deep K blocks included), 1 and 2 threads.
#include <gtest/gtest.h>

#include <cfloat>
#include <chrono>
#include <cmath>
#include <limits>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

void expectClose(const std::vector<double> &got, const std::vector<double> &want, double tol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << " element " << i;
}

TEST(MatMulKernels, BatchBroadcastOddSizes) {
  struct Case { Shape a, b, out; };
  const Case cases[] = {{{7, 300}, {300, 33}, {7, 33}},
                        {{2, 1, 5, 17}, {3, 17, 6}, {2, 3, 5, 6}},
                        {{1, 1}, {1, 1}, {1, 1}},
                        {{4, 0}, {0, 5}, {4, 5}},
                        {{13, 1}, {1, 40}, {13, 40}}};
  uint32_t seed = 3;
  for (const Case &cs : cases) {
    int64_t na = 1, nb = 1;
    for (int64_t d : cs.a) na *= d;
    for (int64_t d : cs.b) nb *= d;
    OpCase c;
    c.op = "matmul";
    c.inputs = {f32(cs.a, uniformFloats(na, seed++)), f32(cs.b, uniformFloats(nb, seed++), true)};
    c.outputs = {outSpec(DataType::kFloat32, cs.out)};
    for (int threads : {1, 2}) {
      ASSERT_TRUE(runOp(c, threads).isOk());
      size_t r = cs.out.size();
      int64_t M = cs.out[r - 2], N = cs.out[r - 1], K = cs.a.back();
      Shape batch(cs.out.begin(), cs.out.end() - 2);
      int64_t nbatch = 1;
      for (int64_t d : batch) nbatch *= d;
      std::vector<double> want;
      const float *A = c.inputs[0]->as<float>(), *B = c.inputs[1]->as<float>();
      for (int64_t bi = 0; bi < nbatch; ++bi) {
        const float *a = A + broadcastMatrixIndex(cs.a, batch, bi) * M * K;
        const float *b = B + broadcastMatrixIndex(cs.b, batch, bi) * K * N;
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k) s += double(a[m * K + k]) * b[k * N + n];
            want.push_back(s);
          }
      }
      expectClose(c.outputs[0].values(), want, 1e-4, "matmul " + shapeToString(cs.out));
    }
  }
}

TEST(MatMulKernels, GemmTransposesAlphaBetaAndBroadcastC) {
  int64_t M = 9, N = 19, K = 23;
  for (bool aT : {false, true})
    for (bool bT : {false, true})
      for (Shape cshape : {Shape{}, Shape{N}, Shape{M, 1}, Shape{M, N}}) {
        int64_t cn = 1;
        for (int64_t d : cshape) cn *= d;
        OpCase c;
        c.op = "gemm";
        c.attrBool("aTranspose", aT).attrBool("bTranspose", bT).attrFloat("alpha", 0.5).attrFloat("beta", 2.0);
        c.inputs = {f32(aT ? Shape{K, M} : Shape{M, K}, uniformFloats(M * K, 1)),
                    f32(bT ? Shape{N, K} : Shape{K, N}, uniformFloats(K * N, 2)), f32(cshape, uniformFloats(cn, 3))};
        c.outputs = {outSpec(DataType::kFloat32, {M, N})};
        ASSERT_TRUE(runOp(c, 2).isOk());
        const float *a = c.inputs[0]->as<float>(), *b = c.inputs[1]->as<float>(), *cc = c.inputs[2]->as<float>();
        std::vector<double> want;
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k) s += double(aT ? a[k * M + m] : a[m * K + k]) * (bT ? b[n * K + k] : b[k * N + n]);
            double cv = cshape.empty() ? cc[0] : cshape.size() == 1 ? cc[n] : cshape[1] == 1 ? cc[m] : cc[m * N + n];
            want.push_back(0.5 * s + 2.0 * cv);
          }
        expectClose(c.outputs[0].values(), want, 1e-4, "gemm");
      }
}

// Naive conv2d on nchw / oihw data.
std::vector<double> convRef(const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &bias,
                            int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t KH, int64_t KW, int64_t g,
                            std::array<int64_t, 4> pad, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t OH,
                            int64_t OW) {
  std::vector<double> y(size_t(N * O * OH * OW));
  int64_t ICg = C / g, OCg = O / g;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = bias.empty() ? 0 : bias[size_t(o)];
          int64_t grp = o / OCg;
          for (int64_t i = 0; i < ICg; ++i)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih = oh * sh - pad[0] + kh * dh, iw = ow * sw - pad[2] + kw * dw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += double(x[size_t(((n * C + grp * ICg + i) * H + ih) * W + iw)]) *
                     w[size_t(((o * ICg + i) * KH + kh) * KW + kw)];
              }
          y[size_t(((n * O + o) * OH + oh) * OW + ow)] = s;
        }
  return y;
}

// Reorders a nchw tensor to nhwc (or an oihw filter to another layout).
std::vector<float> permute4(const std::vector<float> &src, const Shape &dims, const std::array<int, 4> &perm) {
  Shape od{dims[size_t(perm[0])], dims[size_t(perm[1])], dims[size_t(perm[2])], dims[size_t(perm[3])]};
  std::vector<float> out(src.size());
  std::array<int64_t, 4> st{dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
  size_t k = 0;
  for (int64_t a = 0; a < od[0]; ++a)
    for (int64_t b = 0; b < od[1]; ++b)
      for (int64_t c = 0; c < od[2]; ++c)
        for (int64_t d = 0; d < od[3]; ++d)
          out[k++] = src[size_t(a * st[size_t(perm[0])] + b * st[size_t(perm[1])] + c * st[size_t(perm[2])] +
                                d * st[size_t(perm[3])])];
  return out;
}

TEST(ConvolutionKernels, Conv2dAllLayoutsGroupsDilationsPadding) {
  struct Case {
    int64_t N, C, H, W, O, KH, KW, g;
    std::array<int64_t, 4> pad;
    int64_t sh, sw, dh, dw;
  };
  const Case cases[] = {
      {1, 3, 7, 9, 5, 3, 3, 1, {1, 1, 1, 1}, 1, 1, 1, 1},   // generic im2col
      {2, 4, 6, 5, 6, 2, 3, 2, {0, 1, 2, 0}, 2, 1, 1, 2},   // groups, asymmetric pad, dilation
      {1, 6, 5, 5, 6, 3, 3, 6, {1, 1, 1, 1}, 2, 2, 1, 1},   // depthwise
      {1, 20, 4, 3, 17, 1, 1, 1, {0, 0, 0, 0}, 1, 1, 1, 1},  // pointwise
      {1, 2, 1, 1, 3, 1, 1, 1, {0, 0, 0, 0}, 1, 1, 1, 1},
  };
  const std::pair<const char *, std::array<int, 4>> filterLayouts[] = {
      {"oihw", {0, 1, 2, 3}}, {"hwio", {2, 3, 1, 0}}, {"ohwi", {0, 2, 3, 1}}, {"ihwo", {1, 2, 3, 0}}};
  uint32_t seed = 11;
  for (const Case &k : cases) {
    int64_t OH = (k.H + k.pad[0] + k.pad[1] - (k.dh * (k.KH - 1) + 1)) / k.sh + 1;
    int64_t OW = (k.W + k.pad[2] + k.pad[3] - (k.dw * (k.KW - 1) + 1)) / k.sw + 1;
    Shape xs{k.N, k.C, k.H, k.W}, ws{k.O, k.C / k.g, k.KH, k.KW};
    auto x = uniformFloats(k.N * k.C * k.H * k.W, seed++);
    auto w = uniformFloats(k.O * (k.C / k.g) * k.KH * k.KW, seed++);
    auto b = uniformFloats(k.O, seed++);
    auto want = convRef(x, w, b, k.N, k.C, k.H, k.W, k.O, k.KH, k.KW, k.g, k.pad, k.sh, k.sw, k.dh, k.dw, OH, OW);
    for (bool nhwc : {false, true})
      for (const auto &[fl, perm] : filterLayouts)
        for (bool constFilter : {true, false}) {
          OpCase c;
          c.op = "conv2d";
          c.attrInts("padding", {k.pad[0], k.pad[1], k.pad[2], k.pad[3]})
              .attrInts("strides", {k.sh, k.sw})
              .attrInts("dilations", {k.dh, k.dw})
              .attrInt("groups", k.g)
              .attrString("inputLayout", nhwc ? "nhwc" : "nchw")
              .attrString("filterLayout", fl);
          Shape pws{ws[size_t(perm[0])], ws[size_t(perm[1])], ws[size_t(perm[2])], ws[size_t(perm[3])]};
          c.inputs = {nhwc ? f32({k.N, k.H, k.W, k.C}, permute4(x, xs, {0, 2, 3, 1})) : f32(xs, x),
                      f32(pws, permute4(w, ws, perm), constFilter), f32({k.O}, b, true)};
          c.outputs = {outSpec(DataType::kFloat32, nhwc ? Shape{k.N, OH, OW, k.O} : Shape{k.N, k.O, OH, OW})};
          ASSERT_TRUE(runOp(c, 2).isOk()) << fl;
          std::vector<double> got = c.outputs[0].values();
          if (nhwc) {  // back to nchw for comparison
            std::vector<float> gf(got.begin(), got.end());
            auto back = permute4(gf, {k.N, OH, OW, k.O}, {0, 3, 1, 2});
            got.assign(back.begin(), back.end());
          }
          expectClose(got, want, 1e-4, std::string("conv2d ") + fl + (nhwc ? " nhwc" : " nchw"));
        }
  }
}

TEST(ConvolutionKernels, ConvTranspose2dMatchesScatterReference) {
  int64_t N = 1, C = 4, H = 3, W = 4, OCg = 3, g = 2, KH = 3, KW = 2, sh = 2, sw = 3, dh = 1, dw = 2;
  std::array<int64_t, 4> pad{1, 0, 0, 1};
  int64_t outPadH = 1, outPadW = 0;
  int64_t OH = (H - 1) * sh + (KH - 1) * dh + 1 - pad[0] - pad[1] + outPadH;
  int64_t OW = (W - 1) * sw + (KW - 1) * dw + 1 - pad[2] - pad[3] + outPadW;
  int64_t O = OCg * g, ICg = C / g;
  auto x = uniformFloats(N * C * H * W, 5);
  auto w = uniformFloats(C * OCg * KH * KW, 6);  // iohw
  auto b = uniformFloats(O, 7);
  std::vector<double> want(size_t(N * O * OH * OW));
  for (int64_t o = 0; o < O; ++o)
    for (int64_t p = 0; p < OH * OW; ++p) want[size_t(o * OH * OW + p)] = b[size_t(o)];
  for (int64_t i = 0; i < C; ++i)
    for (int64_t ih = 0; ih < H; ++ih)
      for (int64_t iw = 0; iw < W; ++iw)
        for (int64_t oc = 0; oc < OCg; ++oc)
          for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) {
              int64_t oh = ih * sh - pad[0] + kh * dh, ow = iw * sw - pad[2] + kw * dw;
              if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
              int64_t o = (i / ICg) * OCg + oc;
              want[size_t((o * OH + oh) * OW + ow)] +=
                  double(x[size_t((i * H + ih) * W + iw)]) * w[size_t(((i * OCg + oc) * KH + kh) * KW + kw)];
            }
  const std::pair<const char *, std::array<int, 4>> layouts[] = {
      {"iohw", {0, 1, 2, 3}}, {"hwoi", {2, 3, 1, 0}}, {"ohwi", {1, 2, 3, 0}}};
  Shape ws{C, OCg, KH, KW};
  for (bool nhwc : {false, true})
    for (const auto &[fl, perm] : layouts) {
      OpCase c;
      c.op = "convTranspose2d";
      c.attrInts("padding", {pad[0], pad[1], pad[2], pad[3]})
          .attrInts("strides", {sh, sw})
          .attrInts("dilations", {dh, dw})
          .attrInts("outputPadding", {outPadH, outPadW})
          .attrInt("groups", g)
          .attrString("inputLayout", nhwc ? "nhwc" : "nchw")
          .attrString("filterLayout", fl);
      Shape pws{ws[size_t(perm[0])], ws[size_t(perm[1])], ws[size_t(perm[2])], ws[size_t(perm[3])]};
      c.inputs = {nhwc ? f32({N, H, W, C}, permute4(x, {N, C, H, W}, {0, 2, 3, 1})) : f32({N, C, H, W}, x),
                  f32(pws, permute4(w, ws, perm)), f32({O}, b)};
      c.outputs = {outSpec(DataType::kFloat32, nhwc ? Shape{N, OH, OW, O} : Shape{N, O, OH, OW})};
      ASSERT_TRUE(runOp(c, 2).isOk()) << fl;
      std::vector<double> got = c.outputs[0].values();
      if (nhwc) {
        std::vector<float> gf(got.begin(), got.end());
        auto back = permute4(gf, {N, OH, OW, O}, {0, 3, 1, 2});
        got.assign(back.begin(), back.end());
      }
      expectClose(got, want, 1e-4, std::string("convTranspose2d ") + fl);
    }
}

// Dilations, strides and padding of a corrupt artifact (found by
// fuzz_artifact) whose window, padded or transposed output size overflows
// int64: an error, not undefined behaviour.
TEST(PoolingKernels, OverflowingWindowOrPaddingIsRefused) {
  const int64_t big = int64_t(1) << 62;
  OpCase c;
  c.op = "conv2d";
  c.attrInts("dilations", {big, 1}).attrInts("padding", {0, 0, 0, 0});
  c.inputs = {f32({1, 1, 3, 3}, uniformFloats(9, 1)), f32({1, 1, 3, 3}, uniformFloats(9, 2))};
  c.outputs = {outSpec(DataType::kFloat32, {1, 1, 1, 1})};
  Status s = runOp(c);
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s.message();
  c.attrInts("dilations", {1, 1}).attrInts("padding", {big, big, 0, 0});
  s = runOp(c);
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s.message();
  OpCase p;
  p.op = "maxPool2d";
  p.attrInts("windowDimensions", {3, 3}).attrInts("dilations", {big, 1});
  p.inputs = {f32({1, 1, 3, 3}, uniformFloats(9, 3))};
  p.outputs = {outSpec(DataType::kFloat32, {1, 1, 1, 1})};
  s = runOp(p);
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s.message();
  OpCase t;
  t.op = "convTranspose2d";
  t.attrInts("strides", {big, 1});
  t.inputs = {f32({1, 1, 3, 3}, uniformFloats(9, 4)), f32({1, 1, 3, 3}, uniformFloats(9, 5))};
  t.outputs = {outSpec(DataType::kFloat32, {1, 1, 5, 5})};
  s = runOp(t);
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s.message();
  // split sizes whose sum overflows int64 (fuzz_artifact campaign), and an
  // ordinary wrong sum.
  OpCase sp;
  sp.op = "split";
  sp.attrInt("axis", 1).attrInts("splits", {7021786328131960836, 7219952378493035879});
  sp.inputs = {f32({1, 3}, {1, 2, 3})};
  sp.outputs = {outSpec(DataType::kFloat32, {1, 1}), outSpec(DataType::kFloat32, {1, 2})};
  s = runOp(sp);
  EXPECT_NE(s.message().find("splits sum past the axis size 3"), std::string::npos) << s.message();
  sp.attrInts("splits", {1, 1});
  s = runOp(sp);
  EXPECT_NE(s.message().find("splits sum to 2 but the axis has size 3"), std::string::npos) << s.message();
  sp.attrInts("splits", {1, 2});
  EXPECT_TRUE(runOp(sp).isOk());
}

TEST(PoolingKernels, AverageExcludesPaddingMaxAndL2WithCeil) {
  // 1x1x3x3, window 2x2, stride 2, pad 1 on top/left, ceil rounding.
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const char *op : {"averagePool2d", "maxPool2d", "l2Pool2d"}) {
    OpCase c;
    c.op = op;
    c.attrInts("windowDimensions", {2, 2}).attrInts("strides", {2, 2}).attrInts("padding", {1, 0, 1, 0});
    c.attrString("roundingType", "ceil");
    c.inputs = {f32({1, 1, 3, 3}, x)};
    c.outputs = {outSpec(DataType::kFloat32, {1, 1, 2, 2})};
    ASSERT_TRUE(runOp(c).isOk()) << op;
    std::vector<double> got = c.outputs[0].values(), want;
    if (std::string(op) == "averagePool2d") want = {1, 2.5, 5.5, 7};
    else if (std::string(op) == "maxPool2d") want = {1, 3, 7, 9};
    else want = {1, std::sqrt(13.0), std::sqrt(65.0), std::sqrt(25.0 + 36 + 64 + 81)};
    expectClose(got, want, 1e-6, op);
  }
}

TEST(NormalizationKernels, LayerNormOverNonTrailingAxesAndSoftmaxMiddleAxis) {
  Shape s{2, 3, 4};
  auto x = uniformFloats(24, 9);
  auto scale = uniformFloats(8, 10);  // axes [2, 0] -> scale shape [4, 2]
  OpCase c;
  c.op = "layerNormalization";
  c.attrInts("axes", {2, 0}).attrFloat("epsilon", 1e-3);
  c.inputs = {f32(s, x), f32({4, 2}, scale), std::nullopt};
  c.outputs = {outSpec(DataType::kFloat32, s)};
  ASSERT_TRUE(runOp(c).isOk());
  std::vector<double> got = c.outputs[0].values();
  for (int64_t j = 0; j < 3; ++j) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 4; ++k) mean += x[size_t(i * 12 + j * 4 + k)];
    mean /= 8;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 4; ++k) var += std::pow(x[size_t(i * 12 + j * 4 + k)] - mean, 2);
    var /= 8;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 4; ++k) {
        double want = (x[size_t(i * 12 + j * 4 + k)] - mean) / std::sqrt(var + 1e-3) * scale[size_t(k * 2 + i)];
        EXPECT_NEAR(got[size_t(i * 12 + j * 4 + k)], want, 1e-5);
      }
  }
  OpCase sm;
  sm.op = "softmax";
  sm.attrInt("axis", 1);
  sm.inputs = {f32(s, x)};
  sm.outputs = {outSpec(DataType::kFloat32, s)};
  ASSERT_TRUE(runOp(sm).isOk());
  got = sm.outputs[0].values();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 4; ++k) {
      double sum = 0;
      for (int64_t j = 0; j < 3; ++j) sum += std::exp(x[size_t(i * 12 + j * 4 + k)]);
      for (int64_t j = 0; j < 3; ++j)
        EXPECT_NEAR(got[size_t(i * 12 + j * 4 + k)], std::exp(x[size_t(i * 12 + j * 4 + k)]) / sum, 1e-6);
    }
}

// Attention-sized rows along the last axis (3 x 197 rows of 197): more
// rows than the pool's units, so each thread runs several units and takes
// some of the other's; every row matches the reference at 1-3 threads.
TEST(SoftmaxKernels, LastAxisRowsInUnits) {
  const Shape shape{3, 197, 197};
  std::vector<float> x = uniformFloats(size_t(3 * 197 * 197), 91);
  for (int threads : {1, 2, 3}) {
    OpCase c;
    c.op = "softmax";
    c.attrInt("axis", 2);
    c.inputs = {f32(shape, x)};
    c.outputs = {outSpec(DataType::kFloat32, shape)};
    ASSERT_TRUE(runOp(c, threads).isOk());
    std::vector<double> got = c.outputs[0].values();
    for (int64_t r = 0; r < 3 * 197; ++r) {
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < 197; ++k) mx = std::max(mx, double(x[size_t(r * 197 + k)]));
      for (int64_t k = 0; k < 197; ++k) sum += std::exp(double(x[size_t(r * 197 + k)]) - mx);
      for (int64_t k = 0; k < 197; ++k)
        ASSERT_NEAR(got[size_t(r * 197 + k)], std::exp(double(x[size_t(r * 197 + k)]) - mx) / sum, 1e-6)
            << "threads " << threads << " row " << r;
    }
  }
}

// Scores 88-1000 below their row's max, along an inner axis (the scalar
// blocked path, block tails included) and the last one: no output is
// denormal (a matmul reading denormal probabilities runs ~100x slower on
// Intel cores), those whose true value is below FLT_MIN are exactly 0, the
// rest as the reference.
TEST(SoftmaxKernels, FarBelowMaxGivesNoDenormals) {
  const float offsets[] = {0.f, -88.f, -90.f, -95.f, -100.f, -103.f, -150.f, -500.f, -1000.f, -1.f, -3.5f};
  struct Case { Shape shape; int64_t axis; };
  for (const Case &cs : {Case{{2, 11, 3}, 1}, Case{{2, 11, 70}, 1}, Case{{1, 13, 5, 2}, 1}, Case{{3, 4, 11}, 2}}) {
    const int64_t n = cs.shape[size_t(cs.axis)];
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < cs.axis; ++i) outer *= cs.shape[size_t(i)];
    for (size_t i = size_t(cs.axis) + 1; i < cs.shape.size(); ++i) inner *= cs.shape[i];
    std::vector<float> x = uniformFloats(size_t(outer * n * inner), uint32_t(60 + n + inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < inner; ++j)
          x[size_t((o * n + k) * inner + j)] = 4.f * x[size_t((o * n + k) * inner + j)] +
                                                offsets[size_t(k + j + o) % (sizeof(offsets) / sizeof(float))];
    for (int threads : {1, 2}) {
      OpCase c;
      c.op = "softmax";
      c.attrInt("axis", cs.axis);
      c.inputs = {f32(cs.shape, x)};
      c.outputs = {outSpec(DataType::kFloat32, cs.shape)};
      ASSERT_TRUE(runOp(c, threads).isOk());
      std::vector<double> got = c.outputs[0].values();
      int subnormal = 0;
      for (double v : got) subnormal += std::fpclassify(float(v)) == FP_SUBNORMAL;
      EXPECT_EQ(subnormal, 0) << "axis " << cs.axis << " inner " << inner;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          auto at = [&](int64_t k) { return size_t((o * n + k) * inner + j); };
          double mx = -INFINITY, sum = 0;
          for (int64_t k = 0; k < n; ++k) mx = std::max(mx, double(x[at(k)]));
          for (int64_t k = 0; k < n; ++k) sum += std::exp(double(x[at(k)]) - mx);
          for (int64_t k = 0; k < n; ++k) {
            double want = std::exp(double(x[at(k)]) - mx) / sum;
            if (want < 0.5 * FLT_MIN) ASSERT_EQ(got[at(k)], 0.0) << "axis " << cs.axis << " element " << at(k);
            else if (want > 2 * FLT_MIN) ASSERT_NEAR(got[at(k)], want, 2e-5 * want) << "element " << at(k);
          }
        }
    }
  }
}

TEST(ShapeKernels, PadModesTileTriangularGather) {
  std::vector<float> x{1, 2, 3};
  const std::pair<const char *, std::vector<double>> modes[] = {
      {"constant", {9, 9, 1, 2, 3, 9, 9}},
      {"edge", {1, 1, 1, 2, 3, 3, 3}},
      {"reflection", {3, 2, 1, 2, 3, 2, 1}},
      {"symmetric", {2, 1, 1, 2, 3, 3, 2}}};
  for (const auto &[mode, want] : modes) {
    OpCase c;
    c.op = "pad";
    c.attrInts("beginningPadding", {2}).attrInts("endingPadding", {2}).attrString("mode", mode).attrFloat("value", 9);
    c.inputs = {f32({3}, x)};
    c.outputs = {outSpec(DataType::kFloat32, {7})};
    ASSERT_TRUE(runOp(c).isOk()) << mode;
    EXPECT_EQ(c.outputs[0].values(), want) << mode;
  }
  OpCase t;
  t.op = "tile";
  t.attrInts("repetitions", {2, 2});
  t.inputs = {tensor<int64_t>(DataType::kInt64, {1, 2}, {5, 6})};
  t.outputs = {outSpec(DataType::kInt64, {2, 4})};
  ASSERT_TRUE(runOp(t).isOk());
  EXPECT_EQ(t.outputs[0].values(), (std::vector<double>{5, 6, 5, 6, 5, 6, 5, 6}));
  OpCase tri;
  tri.op = "triangular";
  tri.attrBool("upper", false).attrInt("diagonal", -1);
  tri.inputs = {f16({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})};
  tri.outputs = {outSpec(DataType::kFloat16, {3, 3})};
  ASSERT_TRUE(runOp(tri).isOk());
  EXPECT_EQ(tri.outputs[0].values(), (std::vector<double>{0, 0, 0, 4, 0, 0, 7, 8, 0}));
  OpCase g;
  g.op = "gather";
  g.attrInt("axis", 1);
  g.inputs = {tensor<uint8_t>(DataType::kUint8, {2, 3}, {1, 2, 3, 4, 5, 6}),
              tensor<int64_t>(DataType::kInt64, {2, 2}, {-1, 0, 7, -9})};
  g.outputs = {outSpec(DataType::kUint8, {2, 2, 2})};
  ASSERT_TRUE(runOp(g).isOk());
  // -1 -> 2, 7 clamps to 2, -9 -> -6 clamps to 0.
  EXPECT_EQ(g.outputs[0].bytes, (std::vector<uint8_t>{3, 1, 3, 1, 6, 4, 6, 4}));
}

TEST(ShapeKernels, TransposeSliceStridesExpandOnLargeOddShapes) {
  Shape s{5, 17, 33};
  auto x = uniformFloats(5 * 17 * 33, 4);
  OpCase t;
  t.op = "transpose";
  t.attrInts("permutation", {2, 0, 1});
  t.inputs = {f32(s, x)};
  t.outputs = {outSpec(DataType::kFloat32, {33, 5, 17})};
  ASSERT_TRUE(runOp(t, 2).isOk());
  const float *y = t.outputs[0].as<float>();
  for (int64_t a = 0; a < 33; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 17; ++c) ASSERT_EQ(y[(a * 5 + b) * 17 + c], x[size_t((b * 17 + c) * 33 + a)]);
  OpCase sl;
  sl.op = "slice";
  sl.attrInts("starts", {1, 2, 3}).attrInts("sizes", {4, 15, 30}).attrInts("strides", {2, 1, 4});
  sl.inputs = {f32(s, x)};
  sl.outputs = {outSpec(DataType::kFloat32, {2, 15, 8})};
  ASSERT_TRUE(runOp(sl).isOk());
  y = sl.outputs[0].as<float>();
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 15; ++b)
      for (int64_t c = 0; c < 8; ++c)
        ASSERT_EQ(y[(a * 15 + b) * 8 + c], x[size_t(((1 + 2 * a) * 17 + 2 + b) * 33 + 3 + 4 * c)]);
  OpCase e;
  e.op = "expand";
  e.attrInts("newShape", {3, 1, 33});
  e.inputs = {f32({17, 1}, std::vector<float>(x.begin(), x.begin() + 17))};
  e.outputs = {outSpec(DataType::kFloat32, {3, 17, 33})};
  ASSERT_TRUE(runOp(e, 2).isOk());
  y = e.outputs[0].as<float>();
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 17; ++b)
      for (int64_t c = 0; c < 33; ++c) ASSERT_EQ(y[(a * 17 + b) * 33 + c], x[size_t(b)]);
}

// Options of a corrupt artifact (found by fuzz_artifact): padding, slice
// sizes and repetitions near 2^62 are refused at once, neither looped over
// while building index maps nor overflowed.
TEST(ShapeKernels, HugeOptionsAreRefusedQuickly) {
  const int64_t huge = int64_t(1) << 62;
  OpCase p;
  p.op = "pad";
  p.attrInts("beginningPadding", {0, huge}).attrInts("endingPadding", {0, huge});
  p.inputs = {f32({1, 3}, {1, 2, 3})};
  p.outputs = {outSpec(DataType::kFloat32, {1, 5})};
  Status s = runOp(p);
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s.message();
  p.attrInts("beginningPadding", {0, huge / 4}).attrInts("endingPadding", {0, 0});
  EXPECT_FALSE(runOp(p).isOk());
  OpCase sl;
  sl.op = "slice";
  sl.attrInts("starts", {0, 1}).attrInts("sizes", {1, std::numeric_limits<int64_t>::max()});
  sl.inputs = {f32({1, 3}, {1, 2, 3})};
  sl.outputs = {outSpec(DataType::kFloat32, {1, 2})};
  s = runOp(sl);
  EXPECT_NE(s.message().find("out of bounds"), std::string::npos) << s.message();
  sl.attrInts("sizes", {1, 2}).attrInts("strides", {1, std::numeric_limits<int64_t>::max()});
  sl.outputs = {outSpec(DataType::kFloat32, {1, 1})};
  EXPECT_TRUE(runOp(sl).isOk());
  OpCase t;
  t.op = "tile";
  t.attrInts("repetitions", {1, huge});
  t.inputs = {f32({1, 3}, {1, 2, 3})};
  t.outputs = {outSpec(DataType::kFloat32, {1, 6})};
  s = runOp(t);
  EXPECT_NE(s.message().find("overflows int64"), std::string::npos) << s.message();
}

// Graphs with dynamic dimensions write -1 where a shape option depends on the
// run's sizes (docs/ARTIFACT.md): each kernel resolves it from its operands.
TEST(ShapeKernels, MinusOneOptionsOfDynamicGraphs) {
  std::vector<float> x(2 * 5 * 4);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
  // reshape: the -1 keeps the element count.
  OpCase r;
  r.op = "reshape";
  r.attrInts("newShape", {2, -1, 2});
  r.inputs = {f32({2, 5, 4}, x)};
  r.outputs = {outSpec(DataType::kFloat32, {2, 10, 2})};
  ASSERT_TRUE(runOp(r).isOk());
  EXPECT_EQ(r.outputs[0].values(), std::vector<double>(x.begin(), x.end()));
  r.attrInts("newShape", {-1, 3});  // 40 elements do not fill rows of 3
  r.outputs = {outSpec(DataType::kFloat32, {13, 3})};
  Status s = runOp(r);
  EXPECT_NE(s.message().find("cannot hold the 40 elements"), std::string::npos) << s.message();
  // Several -1: each is the input's dimension at its index (docs/ARTIFACT.md).
  r.attrInts("newShape", {-1, -1, 4});
  r.outputs = {outSpec(DataType::kFloat32, {2, 5, 4})};
  ASSERT_TRUE(runOp(r).isOk());
  EXPECT_EQ(r.outputs[0].values(), std::vector<double>(x.begin(), x.end()));
  r.attrInts("newShape", {-1, -1});  // [2, 5]: 10 of the 40 elements
  r.outputs = {outSpec(DataType::kFloat32, {2, 5})};
  s = runOp(r);
  EXPECT_NE(s.message().find("different element count"), std::string::npos) << s.message();
  r.attrInts("newShape", {-2, 20});
  r.outputs = {outSpec(DataType::kFloat32, {2, 20})};
  s = runOp(r);
  EXPECT_NE(s.message().find("negative dimension"), std::string::npos) << s.message();
  // Known sizes whose product overflows int64 (a fuzzed artifact): refused,
  // not multiplied into undefined behaviour.
  r.attrInts("newShape", {-1, int64_t(1) << 40, int64_t(1) << 40});
  r.outputs = {outSpec(DataType::kFloat32, {2, 10, 2})};
  s = runOp(r);
  EXPECT_NE(s.message().find("more elements than int64 can count"), std::string::npos) << s.message();
  // slice: -1 runs from the start to the end of the axis.
  OpCase sl;
  sl.op = "slice";
  sl.attrInts("starts", {1, 2, 0}).attrInts("sizes", {1, -1, 4});
  sl.inputs = {f32({2, 5, 4}, x)};
  sl.outputs = {outSpec(DataType::kFloat32, {1, 3, 4})};
  ASSERT_TRUE(runOp(sl).isOk());
  EXPECT_EQ(sl.outputs[0].values(), std::vector<double>(x.begin() + 28, x.end()));
  // expand: -1 keeps the input's aligned dimension.
  OpCase e;
  e.op = "expand";
  e.attrInts("newShape", {3, -1, 4});
  e.inputs = {f32({5, 1}, {0, 1, 2, 3, 4})};
  e.outputs = {outSpec(DataType::kFloat32, {3, 5, 4})};
  ASSERT_TRUE(runOp(e).isOk());
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 4; ++c) ASSERT_EQ(e.outputs[0].as<float>()[(a * 5 + b) * 4 + c], float(b));
  e.attrInts("newShape", {-1, 5, 4});  // the input has no dimension there
  e.outputs = {outSpec(DataType::kFloat32, {1, 5, 4})};
  EXPECT_NE(runOp(e).message().find("has -1 where the input has no dimension"), std::string::npos);
}

// Not a benchmark gate, just a printed figure to catch a de-vectorized SGEMM.
TEST(MatMulKernels, ReportsSgemmThroughput) {
  int64_t n = 512;
  OpCase c;
  c.op = "matmul";
  c.inputs = {f32({n, n}, uniformFloats(n * n, 1)), f32({n, n}, uniformFloats(n * n, 2), true)};
  c.outputs = {outSpec(DataType::kFloat32, {n, n})};
  ASSERT_TRUE(runOp(c, 1).isOk());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(runOp(c, 1).isOk());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  sgemm 512^3, 1 thread: %.1f GFLOP/s (incl. kernel creation)\n", 2.0 * n * n * n / s / 1e9);
}

}  // namespace
}  // namespace webnn::cpu::test
