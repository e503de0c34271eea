// conv2d, matmul and gemm on shapes large enough for the oneDNN paths
// (Winograd, brgconv with nchw<->nhwc reorders, depthwise, grouped, packed
// constant weights, float16 through reorders), each checked against a plain
// reference loop, and the same cases with oneDNN disabled so the portable
// kernels stay covered. executionCount() proves which path ran. Our AVX-512
// depthwise kernel (Depthwise.h) is off for those two passes; a third pass
// with it on (and oneDNN off) checks conv2d's depthwise cases through it.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cmath>
#include <cstdlib>
#include <thread>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Float16.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/PieceSplit.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::test {
namespace {

// Runs `c` with oneDNN on and off, 1 to 3 threads (oneDNN's pieces: even and
// uneven splits of images, rows or columns), and checks every result;
// then once more with our depthwise kernel allowed (numerics only: it takes
// only float32 nhwc depthwise 3x3 cases).
void runBothPaths(OpCase &c, const std::vector<double> &want, double tol, const std::string &what) {
  ScopedPackedSgemm packedOff(false);  // these are the oneDNN and portable paths
  bool savedDepthwise = kernels::depthwiseAvx512Enabled();
  kernels::setDepthwiseAvx512Enabled(false);
  auto check = [&](const std::string &label) {
    std::vector<double> got = c.outputs[0].values();
    ASSERT_EQ(got.size(), want.size()) << label;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << label << " element " << i;
  };
#if WEBNN_HAVE_ONEDNN
  onednn::Policy saved = onednn::policy();
  for (bool useOneDnn : {true, false}) {
    onednn::Policy p = saved;
    p.enabled = useOneDnn;
    onednn::setPolicy(p);
#else
  for (bool useOneDnn : {false}) {
#endif
    for (int threads : {1, 2, 3}) {
      std::string label = what + (useOneDnn ? " [oneDNN]" : " [portable]") + " threads=" + std::to_string(threads);
#if WEBNN_HAVE_ONEDNN
      ScopedRunCounting counting;  // executionCount() counts only then
      uint64_t before = onednn::executionCount();
#endif
      Status s = runOp(c, threads);
      ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
#if WEBNN_HAVE_ONEDNN
      uint64_t ran = onednn::executionCount() - before;
      if (useOneDnn) EXPECT_GT(ran, 0u) << label << ": expected the oneDNN path";
      else EXPECT_EQ(ran, 0u) << label << ": expected the portable path";
#endif
      check(label);
    }
  }
  kernels::setDepthwiseAvx512Enabled(true);
  for (int threads : {1, 2}) {
    std::string label = what + " [depthwise allowed, oneDNN off] threads=" + std::to_string(threads);
    Status s = runOp(c, threads);
    ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
    check(label);
  }
#if WEBNN_HAVE_ONEDNN
  onednn::setPolicy(saved);
#endif
  kernels::setDepthwiseAvx512Enabled(savedDepthwise);
}

struct ConvCase {
  bool nhwc;
  std::string filterLayout;
  int64_t N, C, H, W, O, KH, KW, groups;
  std::vector<int64_t> strides, dilations, padding;  // padding: top, bottom, left, right
  bool bias, constantFilter;
  DataType dtype;
};

void checkConv(const ConvCase &k, uint32_t seed) {
  int64_t ICg = k.C / k.groups, OCg = k.O / k.groups;
  int64_t effH = k.dilations[0] * (k.KH - 1) + 1, effW = k.dilations[1] * (k.KW - 1) + 1;
  int64_t OH = (k.H + k.padding[0] + k.padding[1] - effH) / k.strides[0] + 1;
  int64_t OW = (k.W + k.padding[2] + k.padding[3] - effW) / k.strides[1] + 1;
  // Logical x[n][c][h][w], f[o][i][kh][kw]; stored in the case's layouts.
  std::vector<float> x = roundFor(k.dtype, uniformFloats(k.N * k.C * k.H * k.W, seed));
  std::vector<float> f = roundFor(k.dtype, uniformFloats(k.O * ICg * k.KH * k.KW, seed + 1));
  std::vector<float> b = roundFor(k.dtype, uniformFloats(k.O, seed + 2));
  std::vector<float> xs(x.size()), fs(f.size());
  for (int64_t n = 0; n < k.N; ++n)
    for (int64_t c = 0; c < k.C; ++c)
      for (int64_t h = 0; h < k.H; ++h)
        for (int64_t w = 0; w < k.W; ++w) {
          int64_t src = ((n * k.C + c) * k.H + h) * k.W + w;
          int64_t dst = k.nhwc ? ((n * k.H + h) * k.W + w) * k.C + c : src;
          xs[dst] = x[src];
        }
  Shape fShape;
  auto dimOf = [&](char l) { return l == 'o' ? k.O : l == 'i' ? ICg : l == 'h' ? k.KH : k.KW; };
  for (char l : k.filterLayout) fShape.push_back(dimOf(l));
  for (int64_t o = 0; o < k.O; ++o)
    for (int64_t i = 0; i < ICg; ++i)
      for (int64_t h = 0; h < k.KH; ++h)
        for (int64_t w = 0; w < k.KW; ++w) {
          int64_t idx = 0;
          for (char l : k.filterLayout) idx = idx * dimOf(l) + (l == 'o' ? o : l == 'i' ? i : l == 'h' ? h : w);
          fs[idx] = f[((o * ICg + i) * k.KH + h) * k.KW + w];
        }
  Shape xShape = k.nhwc ? Shape{k.N, k.H, k.W, k.C} : Shape{k.N, k.C, k.H, k.W};
  Shape yShape = k.nhwc ? Shape{k.N, OH, OW, k.O} : Shape{k.N, k.O, OH, OW};
  std::vector<double> want(size_t(k.N * k.O * OH * OW));
  for (int64_t n = 0; n < k.N; ++n)
    for (int64_t o = 0; o < k.O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t g = o / OCg;
          double acc = k.bias ? b[o] : 0.0;
          for (int64_t i = 0; i < ICg; ++i)
            for (int64_t kh = 0; kh < k.KH; ++kh)
              for (int64_t kw = 0; kw < k.KW; ++kw) {
                int64_t ih = oh * k.strides[0] - k.padding[0] + kh * k.dilations[0];
                int64_t iw = ow * k.strides[1] - k.padding[2] + kw * k.dilations[1];
                if (ih < 0 || ih >= k.H || iw < 0 || iw >= k.W) continue;
                acc += double(x[((n * k.C + g * ICg + i) * k.H + ih) * k.W + iw]) *
                       f[((o * ICg + i) * k.KH + kh) * k.KW + kw];
              }
          int64_t idx = k.nhwc ? ((n * OH + oh) * OW + ow) * k.O + o : ((n * k.O + o) * OH + oh) * OW + ow;
          want[size_t(idx)] = acc;
        }
  OpCase c;
  c.op = "conv2d";
  c.inputs = {makeTensor(k.dtype, xShape, xs, false), makeTensor(k.dtype, fShape, fs, k.constantFilter)};
  if (k.bias) c.inputs.push_back(makeTensor(k.dtype, {k.O}, b, true));
  c.outputs = {outSpec(k.dtype, yShape)};
  c.attrString("inputLayout", k.nhwc ? "nhwc" : "nchw")
      .attrString("filterLayout", k.filterLayout)
      .attrInt("groups", k.groups)
      .attrInts("strides", k.strides)
      .attrInts("dilations", k.dilations)
      .attrInts("padding", k.padding);
  std::string what = "conv2d " + shapeToString(xShape) + " " + k.filterLayout + " " + shapeToString(fShape) +
                     (k.dtype == DataType::kFloat16 ? " f16" : " f32");
  runBothPaths(c, want, k.dtype == DataType::kFloat16 ? 4e-3 : 1e-4, what);
}

TEST(OneDnnKernels, Conv2dWinogradDirectGroupedDepthwise) {
  const DataType F32 = DataType::kFloat32, F16 = DataType::kFloat16;
  const ConvCase cases[] = {
      // 3x3 stride 1: Winograd (nChw16c reorders around it)
      {false, "oihw", 1, 32, 20, 20, 32, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      {true, "hwio", 2, 32, 17, 19, 48, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      // nchw 3x3 stride 2 through nhwc brgconv; 1x1 strided on plain nchw
      {false, "ohwi", 1, 24, 33, 31, 40, 3, 3, 1, {2, 2}, {1, 1}, {1, 0, 1, 0}, false, true, F32},
      {false, "ohwi", 1, 64, 31, 31, 48, 1, 1, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}, true, true, F32},
      {true, "oihw", 1, 96, 14, 14, 40, 1, 1, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, true, F32},
      // grouped, dilated, asymmetric padding
      {true, "ihwo", 1, 32, 21, 18, 64, 3, 3, 4, {1, 1}, {2, 2}, {1, 2, 0, 3}, true, true, F32},
      {false, "oihw", 1, 32, 21, 18, 64, 3, 3, 4, {1, 2}, {2, 1}, {2, 1, 3, 0}, false, true, F32},
      // depthwise
      {false, "oihw", 1, 64, 64, 64, 64, 3, 3, 64, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      {true, "ihwo", 1, 64, 40, 40, 64, 3, 3, 64, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      // filter as a run-time input (reordered on every run)
      {true, "hwio", 1, 16, 24, 24, 24, 5, 5, 1, {1, 1}, {1, 1}, {2, 2, 2, 2}, true, false, F32},
      {false, "oihw", 1, 32, 16, 16, 32, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, false, F32},
      // pieces of output rows whose input rows end early or are mostly
      // padding (stride 3 skips input rows; tall kernels, large padding);
      // batch 3 on 2 threads (pieces of images)
      {true, "ohwi", 1, 16, 23, 20, 32, 5, 3, 1, {3, 1}, {1, 1}, {4, 4, 1, 1}, true, true, F32},
      {false, "oihw", 1, 16, 9, 30, 32, 7, 3, 1, {1, 2}, {2, 1}, {6, 5, 1, 1}, true, true, F32},
      {true, "hwio", 3, 16, 12, 12, 32, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      {false, "oihw", 3, 32, 20, 20, 64, 3, 3, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, true, F32},
      // Winograd of 4x4 tiles (>= 28 output columns, a multiple of 4, and
      // >= 64 input channels: Conv2d.cpp), nhwc and nchw
      {true, "ohwi", 1, 64, 28, 28, 32, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      {false, "oihw", 1, 80, 9, 32, 48, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, true, F32},
      // Winograd layers with >= 64 output channels per piece: pieces of
      // output channels over all pixels, y written at its channel stride
      {true, "ohwi", 1, 64, 14, 14, 128, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      {false, "oihw", 1, 32, 9, 11, 144, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F32},
      // one row of one nhwc image (conv1d as conv2d): pieces of output
      // columns, with padding at both ends, stride and dilation
      {true, "oihw", 1, 48, 1, 301, 64, 1, 3, 1, {1, 2}, {1, 1}, {0, 0, 1, 1}, true, true, F32},
      {true, "ohwi", 1, 32, 1, 97, 48, 1, 5, 1, {1, 1}, {1, 2}, {0, 0, 4, 3}, true, true, F32},
      // one output pixel (squeeze-excitation after a global pool): pieces of
      // output channels, a tail block of 8; nchw and nhwc
      {true, "ohwi", 1, 960, 1, 1, 248, 1, 1, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, true, F32},
      {false, "oihw", 1, 240, 1, 1, 968, 1, 1, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, true, F32},
      // float16 converted by the reorders
      {true, "ohwi", 1, 16, 24, 24, 16, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F16},
      {false, "oihw", 1, 32, 24, 24, 32, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true, F16},
      {false, "oihw", 1, 24, 20, 20, 32, 3, 3, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, false, F16},
  };
  uint32_t seed = 100;
  for (const ConvCase &k : cases) {
    checkConv(k, seed);
    seed += 10;
  }
}

// y = alpha * op(a) x op(b) + beta * c, a/b batch-broadcast for matmul.
struct MatMulCase {
  std::string op;
  Shape a, b, out;
  bool aT = false, bT = false;
  double alpha = 1, beta = 1;
  std::optional<Shape> c;
  bool constantB = true;
  DataType dtype = DataType::kFloat32;
};

void checkMatMul(const MatMulCase &k, uint32_t seed) {
  int64_t na = 1, nb = 1;
  for (int64_t d : k.a) na *= d;
  for (int64_t d : k.b) nb *= d;
  std::vector<float> a = roundFor(k.dtype, uniformFloats(na, seed)), b = roundFor(k.dtype, uniformFloats(nb, seed + 1));
  size_t r = k.out.size();
  int64_t M = k.out[r - 2], N = k.out[r - 1];
  int64_t K = k.op == "gemm" ? (k.aT ? k.a[0] : k.a[1]) : k.a.back();
  Shape batch(k.out.begin(), k.out.end() - 2);
  int64_t nbatch = 1;
  for (int64_t d : batch) nbatch *= d;
  std::vector<float> cv;
  int64_t crs = 0, ccs = 0;
  if (k.c) {
    int64_t nc = 1;
    for (int64_t d : *k.c) nc *= d;
    cv = roundFor(k.dtype, uniformFloats(nc, seed + 2));
    Shape cs = *k.c;
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    crs = cs[0] == 1 ? 0 : cs[1];
    ccs = cs[1] == 1 ? 0 : 1;
  }
  std::vector<double> want;
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    const float *A = a.data() + (k.op == "gemm" ? 0 : broadcastMatrixIndex(k.a, batch, bi) * M * K);
    const float *B = b.data() + (k.op == "gemm" ? 0 : broadcastMatrixIndex(k.b, batch, bi) * K * N);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t kk = 0; kk < K; ++kk)
          s += double(k.aT ? A[kk * M + m] : A[m * K + kk]) * (k.bT ? B[n * K + kk] : B[kk * N + n]);
        s *= k.alpha;
        if (k.c) s += k.beta * cv[size_t(m * crs + n * ccs)];
        want.push_back(s);
      }
  }
  OpCase c;
  c.op = k.op;
  c.inputs = {makeTensor(k.dtype, k.a, a, false), makeTensor(k.dtype, k.b, b, k.constantB)};
  if (k.c) c.inputs.push_back(makeTensor(k.dtype, *k.c, cv, true));
  c.outputs = {outSpec(k.dtype, k.out)};
  if (k.op == "gemm")
    c.attrBool("aTranspose", k.aT).attrBool("bTranspose", k.bT).attrFloat("alpha", k.alpha).attrFloat("beta", k.beta);
  std::string what = k.op + " " + shapeToString(k.a) + " x " + shapeToString(k.b) +
                     (k.dtype == DataType::kFloat16 ? " f16" : " f32") + (k.constantB ? " const b" : "");
  runBothPaths(c, want, k.dtype == DataType::kFloat16 ? 4e-3 : 1e-4, what);
}

TEST(OneDnnKernels, MatMulAndGemmPackedTransposedBroadcast) {
  MatMulCase cases[] = {
      {"matmul", {3, 64, 96}, {96, 80}, {3, 64, 80}},                          // a's batch folds into M
      {"matmul", {2, 1, 40, 128}, {3, 128, 72}, {2, 3, 40, 72}, false, false, 1, 1, std::nullopt, false},
      {"matmul", {4, 33, 128}, {4, 128, 65}, {4, 33, 65}},                     // batched constant b
      {"matmul", {1, 2048}, {2048, 512}, {1, 512}},                            // GEMV: pieces of columns
      {"matmul", {3, 1024}, {1024, 200}, {3, 200}},                            // columns, a tail block
      {"gemm", {2, 1280}, {1000, 1280}, {2, 1000}, false, true, 1.0, 1.0, Shape{1000}},  // columns with c
      {"gemm", {1, 1280}, {1280, 1000}, {1, 1000}, false, false, 1.0, 1.0, Shape{1, 1000}, false},
      {"matmul", {1, 12, 64, 32}, {1, 12, 32, 64}, {1, 12, 64, 64}, false, false, 1, 1, std::nullopt, false},
      {"gemm", {200, 70}, {90, 200}, {70, 90}, true, true, 0.5, 2.0, Shape{90}},
      {"gemm", {70, 200}, {200, 90}, {70, 90}, false, false, 1.0, -1.5, Shape{70, 1}, false},
      {"gemm", {70, 200}, {90, 200}, {70, 90}, false, true, 1.0, 1.0, Shape{70, 90}},
      {"gemm", {64, 256}, {256, 96}, {64, 96}, false, false, 3.0, 0.0, Shape{}},
      {"gemm", {64, 256}, {256, 96}, {64, 96}},
      {"matmul", {64, 128}, {128, 96}, {64, 96}, false, false, 1, 1, std::nullopt, true, DataType::kFloat16},
      {"gemm", {128, 64}, {96, 128}, {64, 96}, true, true, 0.5, 0.25, Shape{96}, false, DataType::kFloat16},
  };
  uint32_t seed = 500;
  for (const MatMulCase &k : cases) {
    checkMatMul(k, seed);
    seed += 10;
  }
}

#if WEBNN_HAVE_ONEDNN
// Compile-time prepacking (`webnnc compile --prepack`): a kernel given packed
// bytes for exactly its layout runs on them and never reads the constant;
// given any other layout name it packs the constant as usual. The packed
// bytes here come from a different filter, so the output shows which ran.
struct AlignedFloats {
  explicit AlignedFloats(size_t bytes)
      : size(bytes), data(static_cast<float *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64))) {}
  ~AlignedFloats() { std::free(data); }
  size_t size;
  float *data;
};

// 3x3 stride-1 layers of 256 channels: Winograd at 14 output columns, the
// direct convolution at 15-20 (Conv2d.cpp says why), also at 2 threads,
// where the layer is cut by rows; the same numbers either way.
TEST(OneDnnKernels, NoWinogradAtFifteenToTwentyColumns) {
  for (int64_t side : {14, 16}) {
    onednn::Conv2dParams p;
    p.N = 1, p.C = 256, p.H = p.W = p.OH = p.OW = side, p.O = 256, p.KH = 3, p.KW = 3;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.nhwc = true;
    p.filterStrideO = 9 * 256, p.filterStrideH = 3 * 256, p.filterStrideW = 256, p.filterStrideI = 1;
    p.constantFilter = true;
    std::vector<float> x = uniformFloats(side * side * 256, 31), f = uniformFloats(256 * 9 * 256, 32);
    std::vector<float> y1(size_t(side * side * 256)), y2(y1.size());
    std::string why;
    std::unique_ptr<onednn::Conv2d> c1 = onednn::Conv2d::create(p, &why), c2 = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(c1 && c2) << why;
    ThreadPool one(1), two(2);
    ASSERT_TRUE(c1->run(x.data(), f.data(), nullptr, y1.data(), one).isOk());
    ASSERT_TRUE(c2->run(x.data(), f.data(), nullptr, y2.data(), two).isOk());
    const bool wino1 = c1->implementation().find("wino") != std::string::npos;
    const bool wino2 = c2->implementation().find("wino") != std::string::npos;
    EXPECT_EQ(wino1, side == 14) << c1->implementation();
    EXPECT_EQ(wino2, side == 14) << c2->implementation();
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y1[i], y2[i], 1e-3f * (1.f + std::fabs(y1[i]))) << i;
  }
}

// y [side*side][O] of a 3x3 stride-1 'same' convolution of x [side*side][C]
// (nhwc) by f [O][3][3][C] (+ bias, then relu), against a plain loop in
// doubles at every stepI-th pixel and stepO-th channel: Winograd's transforms
// round differently, hence the tolerance.
void expectPlain3x3(const std::vector<float> &x, const std::vector<float> &f, const std::vector<float> *bias,
                    bool relu, int64_t side, int64_t C, int64_t O, const std::vector<float> &y, int64_t stepI,
                    int64_t stepO, const std::string &label) {
  for (int64_t i = 0; i < side * side; i += stepI)
    for (int64_t o = 0; o < O; o += stepO) {
      const int64_t oh = i / side, ow = i % side;
      double want = bias ? (*bias)[size_t(o)] : 0.0;
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 3; ++kw) {
          const int64_t ih = oh + kh - 1, iw = ow + kw - 1;
          if (ih < 0 || iw < 0 || ih >= side || iw >= side) continue;
          for (int64_t c = 0; c < C; ++c)
            want += double(x[size_t((ih * side + iw) * C + c)]) * f[size_t(o * 9 * C + (kh * 3 + kw) * C + c)];
        }
      if (relu) want = std::max(0.0, want);
      ASSERT_NEAR(y[size_t(i * O + o)], want, 1e-3 * (1 + std::fabs(want))) << label << " " << i << " " << o;
    }
}

// 3x3 stride-1 layers on Winograd: 4x4 output tiles (jit_wino_4x3) where
// the output columns are whole tiles over >= 64 input channels, 56 columns
// or more, or 28 and up into <= 64 channels; else oneDNN's first choice, 2x2
// tiles (Conv2d.cpp says why); at 1 and 2 threads (pieces of rows keep the
// columns), the same numbers.
TEST(OneDnnKernels, WinogradFourByFourTilesByColumnsAndChannels) {
  struct Shape { int64_t C, side, O; bool fourByFour; };
  for (const Shape &sh : {Shape{64, 28, 32, true}, Shape{128, 56, 32, true}, Shape{64, 56, 96, true},
                          Shape{128, 14, 32, false}, Shape{32, 28, 64, false}, Shape{64, 30, 32, false},
                          Shape{64, 28, 96, false}}) {
    onednn::Conv2dParams p;
    p.N = 1, p.C = sh.C, p.H = p.W = p.OH = p.OW = sh.side, p.O = sh.O, p.KH = 3, p.KW = 3;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.nhwc = true;
    p.filterStrideO = 9 * sh.C, p.filterStrideH = 3 * sh.C, p.filterStrideW = sh.C, p.filterStrideI = 1;
    p.constantFilter = true;
    const int64_t pixels = sh.side * sh.side;
    std::vector<float> x = uniformFloats(pixels * sh.C, 41), f = uniformFloats(sh.O * 9 * sh.C, 42);
    std::vector<float> y1(size_t(pixels * sh.O)), y2(y1.size());
    std::string why;
    std::unique_ptr<onednn::Conv2d> c1 = onednn::Conv2d::create(p, &why), c2 = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(c1 && c2) << why;
    ThreadPool one(1), two(2);
    ASSERT_TRUE(c1->run(x.data(), f.data(), nullptr, y1.data(), one).isOk());
    ASSERT_TRUE(c2->run(x.data(), f.data(), nullptr, y2.data(), two).isOk());
    const std::string impl = c1->implementation(), label = std::to_string(sh.side) + " columns, " +
                                                          std::to_string(sh.C) + " channels: " + impl;
    if (impl.find("wino") == std::string::npos) continue;  // a CPU oneDNN has no Winograd for
    EXPECT_EQ(impl.find("wino_4x3") != std::string::npos, sh.fourByFour) << label;
    EXPECT_EQ(impl.find("wino_2x3") != std::string::npos, !sh.fourByFour) << label;
    // Against a plain loop (Winograd's transforms round differently).
    expectPlain3x3(x, f, nullptr, false, sh.side, sh.C, sh.O, y1, 37, 7, label);
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y1[i], y2[i], 1e-3f * (1.f + std::fabs(y1[i]))) << label << " " << i;
  }
}

// A 14x14 or 13x13 Winograd layer of 11 or 13 blocks of 16 output channels
// from 64 input channels (PieceSplit.h, winogradBlocksOneTileHigh) runs as
// two pieces of output channels on one thread too, the pieces' filters
// prepacked for one thread as for two; against a plain loop. 12 blocks, 32
// input channels and 28x28 stay whole.
TEST(OneDnnKernels, WinogradBlockedOneTileHighCutByChannelsOnOneThread) {
  struct Shape { int64_t C, side, O; bool cut; };
  for (const Shape &sh : {Shape{96, 14, 208, true}, Shape{64, 13, 176, true}, Shape{96, 14, 192, false},
                          Shape{32, 14, 208, false}, Shape{96, 28, 208, false}}) {
    EXPECT_EQ(cpu::winogradBlocksOneTileHigh(sh.C, sh.O, sh.side, sh.side), sh.cut);
    onednn::Conv2dParams p;
    p.N = 1, p.C = sh.C, p.H = p.W = p.OH = p.OW = sh.side, p.O = sh.O, p.KH = 3, p.KW = 3;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.nhwc = true;
    p.hasBias = true;
    p.activation = onednn::Conv2dParams::Activation::kRelu;
    p.filterStrideO = 9 * sh.C, p.filterStrideH = 3 * sh.C, p.filterStrideW = sh.C, p.filterStrideI = 1;
    p.constantFilter = true;
    const int64_t pixels = sh.side * sh.side;
    std::vector<float> x = uniformFloats(pixels * sh.C, 51), f = uniformFloats(sh.O * 9 * sh.C, 52),
                       b = uniformFloats(sh.O, 53);
    std::vector<float> y1(size_t(pixels * sh.O)), y2(y1.size()), y3(y1.size());
    std::string why;
    std::unique_ptr<onednn::Conv2d> c1 = onednn::Conv2d::create(p, &why), c2 = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(c1 && c2) << why;
    ThreadPool one(1), two(2);
    c1->buildPrimitive(1);
    ASSERT_TRUE(c1->run(x.data(), f.data(), b.data(), y1.data(), one).isOk());
    ASSERT_TRUE(c2->run(x.data(), f.data(), b.data(), y2.data(), two).isOk());
    const std::string impl = c1->implementation(), label = std::to_string(sh.C) + " -> " + std::to_string(sh.O) +
                                                          " at " + std::to_string(sh.side) + ": " + impl;
    if (impl.find("wino") != std::string::npos || !sh.cut) {  // a CPU oneDNN has no Winograd for stays whole
      EXPECT_EQ(impl.find("2 pieces of output channels") != std::string::npos, sh.cut) << label;
      const std::string layout = c1->packedFilterLayout(1);
      EXPECT_EQ(layout.rfind("pieces|", 0) == 0, sh.cut) << label << " layout " << layout;
      if (sh.cut) {
        EXPECT_EQ(layout, c2->packedFilterLayout(2)) << label;  // one prepacked copy serves 1 and 2 threads
        std::vector<uint8_t> packed(c1->packedFilterBytes(1));
        c1->packFilter(f.data(), packed.data(), 1);
        onednn::Conv2dParams pre = p;
        pre.packedFilter = {{layout, packed.data(), packed.size()}};
        std::unique_ptr<onednn::Conv2d> c3 = onednn::Conv2d::create(pre, &why);
        ASSERT_TRUE(c3) << why;
        std::vector<float> garbage(f.size(), 1e9f);  // the prepacked filter is used, not this
        ASSERT_TRUE(c3->run(x.data(), garbage.data(), b.data(), y3.data(), one).isOk());
        EXPECT_TRUE(c3->usesPrepackedFilter()) << label;
        for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y3[i], y1[i], 1e-3f * std::max(1.f, std::fabs(y1[i]))) << label << " " << i;
      }
    }
    expectPlain3x3(x, f, &b, true, sh.side, sh.C, sh.O, y1, 23, 5, label);
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y1[i], y2[i], 1e-3f * (1.f + std::fabs(y1[i]))) << label << " " << i;
  }
}

// 3x3 stride-1 layers of few input channels on small maps run direct, not
// on Winograd (PieceSplit.h, winogradLosesOnSmallMaps): below 32 channels
// at 14x14, below 64 at 7x7; 32 channels at 14x14 and 16 at 28x28 stay on
// Winograd. Against a plain loop, at 1 and 2 threads.
TEST(OneDnnKernels, DirectNotWinogradForFewChannelsOnSmallMaps) {
  struct Shape { int64_t C, side, O; bool direct; };
  bool haveWinograd = false;
  for (const Shape &sh : {Shape{32, 14, 64, false}, Shape{16, 28, 32, false}, Shape{24, 14, 64, true},
                          Shape{16, 14, 48, true}, Shape{48, 7, 128, true}, Shape{32, 7, 128, true}}) {
    EXPECT_EQ(cpu::winogradLosesOnSmallMaps(sh.C, sh.side, sh.side), sh.direct);
    onednn::Conv2dParams p;
    p.N = 1, p.C = sh.C, p.H = p.W = p.OH = p.OW = sh.side, p.O = sh.O, p.KH = 3, p.KW = 3;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.nhwc = true;
    p.filterStrideO = 9 * sh.C, p.filterStrideH = 3 * sh.C, p.filterStrideW = sh.C, p.filterStrideI = 1;
    p.constantFilter = true;
    const int64_t pixels = sh.side * sh.side;
    std::vector<float> x = uniformFloats(pixels * sh.C, 61), f = uniformFloats(sh.O * 9 * sh.C, 62);
    std::vector<float> y1(size_t(pixels * sh.O)), y2(y1.size());
    std::string why;
    std::unique_ptr<onednn::Conv2d> c1 = onednn::Conv2d::create(p, &why), c2 = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(c1 && c2) << why;
    ThreadPool one(1), two(2);
    ASSERT_TRUE(c1->run(x.data(), f.data(), nullptr, y1.data(), one).isOk());
    ASSERT_TRUE(c2->run(x.data(), f.data(), nullptr, y2.data(), two).isOk());
    const std::string impl = c1->implementation(), label = std::to_string(sh.C) + " -> " + std::to_string(sh.O) +
                                                          " at " + std::to_string(sh.side) + ": " + impl;
    const bool wino = impl.find("wino") != std::string::npos;
    if (!sh.direct) haveWinograd = haveWinograd || wino;  // a CPU oneDNN has no Winograd for runs all direct
    if (sh.direct || haveWinograd) EXPECT_EQ(wino, !sh.direct) << label;
    if (sh.direct) EXPECT_EQ(c2->implementation().find("wino"), std::string::npos) << c2->implementation();
    expectPlain3x3(x, f, nullptr, false, sh.side, sh.C, sh.O, y1, 11, 3, label);
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y1[i], y2[i], 1e-3f * (1.f + std::fabs(y1[i]))) << label << " " << i;
  }
}

// A 1x1 to 16 output channels from 64 input channels or more over 784
// pixels or more runs on oneDNN, tried before the narrow pointwise tiles
// (Conv2dSelection.cpp says why); fewer input channels or pixels, or 24
// output channels, stay on the narrow tiles. Against a plain loop, at 1 and 2
// threads.
TEST(OneDnnKernels, SixteenChannelPointwiseOnOneDnnBeforeNarrowTiles) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the narrow pointwise kernel needs AVX-512";
  if (!onednn::policy().enabled) GTEST_SKIP() << "oneDNN is off";
  struct Shape { int64_t C, side, O; const char *kernel; };
  for (const Shape &sh : {Shape{128, 28, 16, "onednn"}, Shape{64, 55, 16, "onednn"}, Shape{32, 28, 16, "pointwise-narrow"},
                          Shape{128, 14, 16, "pointwise-narrow"}, Shape{128, 28, 24, "pointwise-narrow"}}) {
    const int64_t pixels = sh.side * sh.side;
    std::vector<float> x = uniformFloats(pixels * sh.C, 71), f = uniformFloats(sh.O * sh.C, 72),
                       b = uniformFloats(sh.O, 73);
    for (int threads : {1, 2}) {
      OpCase c{"fusedConv2d", {f32({1, sh.side, sh.side, sh.C}, x), f32({sh.O, 1, 1, sh.C}, f, true), f32({sh.O}, b, true)},
               {outSpec(DataType::kFloat32, {1, sh.side, sh.side, sh.O})}};
      c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrString("activation", "relu");
      ScopedKernelChoices choices;
      ASSERT_TRUE(runOp(c, threads).isOk());
      const std::string label = std::to_string(sh.C) + " -> " + std::to_string(sh.O) + " at " +
                                std::to_string(sh.side) + ", " + std::to_string(threads) + " thread(s)";
      EXPECT_EQ(choices.last("fusedConv2d").chosen, sh.kernel) << label << ": " << choices.last("fusedConv2d").describe();
      const std::vector<double> got = c.outputs[0].values();
      for (int64_t q = 0; q < pixels; q += 7)
        for (int64_t o = 0; o < sh.O; ++o) {
          double want = b[size_t(o)];
          for (int64_t k = 0; k < sh.C; ++k) want += double(x[size_t(q * sh.C + k)]) * f[size_t(o * sh.C + k)];
          want = std::max(0.0, want);
          ASSERT_NEAR(got[size_t(q * sh.O + o)], want, 1e-4 * (1 + std::fabs(want))) << label << " " << q << " " << o;
        }
    }
  }
}

TEST(OneDnnKernels, PrepackedWeightsUsedOnlyForTheirLayout) {
  for (bool winograd : {true, false}) {
    onednn::Conv2dParams p;
    p.N = 1, p.C = 16, p.H = 32, p.W = 32, p.O = 32, p.KH = 3, p.KW = 3;
    p.strideH = p.strideW = winograd ? 1 : 2;
    p.OH = p.OW = winograd ? 32 : 16;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.filterStrideO = 16 * 9, p.filterStrideI = 9, p.filterStrideH = 3, p.filterStrideW = 1;
    p.constantFilter = true;
    std::vector<float> x = uniformFloats(16 * 32 * 32, 1), filterA = uniformFloats(32 * 16 * 9, 2),
                       filterB = uniformFloats(32 * 16 * 9, 3);
    size_t ySize = size_t(32 * p.OH * p.OW);
    std::string why;
    auto runWith = [&](const onednn::Conv2dParams &params, const std::vector<float> &filter, bool *prepacked) {
      std::unique_ptr<onednn::Conv2d> conv = onednn::Conv2d::create(params, &why);
      EXPECT_TRUE(conv) << why;
      std::vector<float> y(ySize);
      if (!conv) return y;
      ThreadPool pool(1);
      conv->run(x.data(), filter.data(), nullptr, y.data(), pool);
      *prepacked = conv->usesPrepackedFilter();
      return y;
    };
    bool used = true;
    std::vector<float> yA = runWith(p, filterA, &used), yB = runWith(p, filterB, &used);
    EXPECT_FALSE(used);
    std::unique_ptr<onednn::Conv2d> packer = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(packer) << why;
    std::string layout = packer->packedFilterLayout(1);
    ASSERT_FALSE(layout.empty());
    EXPECT_NE(layout.find(winograd ? " wino " : " blocked "), std::string::npos) << layout;
    AlignedFloats packed(packer->packedFilterBytes(1));
    packer->packFilter(filterB.data(), packed.data, 1);

    onednn::Conv2dParams matching = p;
    matching.packedFilter = {{layout, packed.data, packed.size}};
    EXPECT_EQ(runWith(matching, filterA, &used), yB) << layout;
    EXPECT_TRUE(used);
    onednn::Conv2dParams other = p;
    other.packedFilter = {{layout + " (another build)", packed.data, packed.size}};
    EXPECT_EQ(runWith(other, filterA, &used), yA);
    EXPECT_FALSE(used);
  }

  onednn::MatMulParams m;
  m.aDims = {64, 256}, m.bDims = {256, 128}, m.yDims = {64, 128};
  m.aStrides = {256, 1}, m.bStrides = {128, 1};
  m.constantB = true;
  std::vector<float> a = uniformFloats(64 * 256, 4), bA = uniformFloats(256 * 128, 5), bB = uniformFloats(256 * 128, 6);
  std::string why;
  auto runWith = [&](const onednn::MatMulParams &params, const std::vector<float> &b, bool *prepacked) {
    std::unique_ptr<onednn::MatMul> mm = onednn::MatMul::create(params, &why);
    EXPECT_TRUE(mm) << why;
    std::vector<float> y(64 * 128);
    if (!mm) return y;
    ThreadPool pool(1);
    mm->run(a.data(), b.data(), nullptr, y.data(), pool);
    *prepacked = mm->usesPrepackedB();
    return y;
  };
  bool used = true;
  std::vector<float> yA = runWith(m, bA, &used), yB = runWith(m, bB, &used);
  EXPECT_FALSE(used);
  std::unique_ptr<onednn::MatMul> packer = onednn::MatMul::create(m, &why);
  ASSERT_TRUE(packer) << why;
  std::string layout = packer->packedBLayout(1);
  ASSERT_FALSE(layout.empty()) << "b is expected to be reordered into a blocked layout";
  AlignedFloats packed(packer->packedBBytes(1));
  packer->packB(bB.data(), packed.data, 1);
  onednn::MatMulParams matching = m;
  matching.packedB = {{layout, packed.data, packed.size}};
  EXPECT_EQ(runWith(matching, bA, &used), yB);
  EXPECT_TRUE(used);
  onednn::MatMulParams shorter = m;
  shorter.packedB = {{layout, packed.data, packed.size - 64}};  // the size must match too
  EXPECT_EQ(runWith(shorter, bA, &used), yA);
  EXPECT_FALSE(used);
}

// Session creation JIT-compiles (Kernel::warmUp, from several threads at
// once); the first run then compiles nothing and computes the same result.
TEST(OneDnnKernels, BuildPrimitiveMovesJitOutOfTheFirstRun) {
  for (int threads : {1, 2}) {
    onednn::Conv2dParams p;  // a shape no other test uses: a fresh cache entry
    p.N = 1, p.C = 24, p.H = 18, p.W = 18, p.O = 40, p.KH = 3, p.KW = 3;
    p.strideH = p.strideW = 2, p.OH = p.OW = 9;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.filterStrideO = 24 * 9, p.filterStrideI = 9, p.filterStrideH = 3, p.filterStrideW = 1;
    p.constantFilter = true;
    p.padRight += threads - 1;  // one entry per thread count (the key has it anyway)
    p.OW = (p.W + p.padLeft + p.padRight - 3) / 2 + 1;
    std::vector<float> x = uniformFloats(24 * 18 * 18, 7), f = uniformFloats(40 * 24 * 9, 8);
    std::string why;
    std::unique_ptr<onednn::Conv2d> warm = onednn::Conv2d::create(p, &why), cold = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(warm && cold) << why;
    uint64_t before = onednn::primitivesBuilt();
    std::thread other([&] { warm->buildPrimitive(threads); });
    warm->buildPrimitive(threads);  // concurrently with `other`: one build per primitive between them
    other.join();
    // One primitive at 1 thread; at 2 one per distinct piece (top and bottom rows).
    const uint64_t built = onednn::primitivesBuilt() - before;
    EXPECT_EQ(built, threads == 1 ? 1u : 2u) << "threads=" << threads;
    std::vector<float> yWarm(size_t(40 * p.OH * p.OW)), yCold(yWarm.size());
    ThreadPool pool(threads);
    warm->run(x.data(), f.data(), nullptr, yWarm.data(), pool);
    EXPECT_EQ(onednn::primitivesBuilt() - before, built) << "the first run compiled again, threads=" << threads;
    cold->run(x.data(), f.data(), nullptr, yCold.data(), pool);
    EXPECT_EQ(yWarm, yCold);
  }

  onednn::MatMulParams m;
  m.aDims = {40, 200}, m.bDims = {200, 72}, m.yDims = {40, 72};
  m.aStrides = {200, 1}, m.bStrides = {72, 1};
  std::vector<float> a = uniformFloats(40 * 200, 9), b = uniformFloats(200 * 72, 10);
  std::string why;
  std::unique_ptr<onednn::MatMul> mm = onednn::MatMul::create(m, &why);
  ASSERT_TRUE(mm) << why;
  uint64_t before = onednn::primitivesBuilt();
  mm->buildPrimitive(2);
  EXPECT_EQ(onednn::primitivesBuilt() - before, 1u);  // two pieces of 20 rows: one primitive
  std::vector<float> y(40 * 72);
  ThreadPool pool(2);
  mm->run(a.data(), b.data(), nullptr, y.data(), pool);
  EXPECT_EQ(onednn::primitivesBuilt() - before, 1u);
  double worst = 0;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 72; ++j) {
      double want = 0;
      for (int k = 0; k < 200; ++k) want += double(a[i * 200 + k]) * b[k * 72 + j];
      worst = std::max(worst, std::fabs(want - y[i * 72 + j]));
    }
  EXPECT_LT(worst, 1e-4);
}

// Attention's batched scores product (heads read in place from [S, H * Dh]
// projections, K transposed by strides), its scores laid out [H, S, T] or,
// as the attention kernel does, [S, H, T], on 1, 2 and 3 threads: results
// equal the reference. On several threads it runs as pieces on the pool.
// Where the whole runs oneDNN's brgemm kernel the pieces must too: pieces of
// heads are not permutations of a dense tensor, which brgemm needs, and fall
// to gemm:jit (its kernels generated at each thread's first call, tens of ms
// of start-up), so pieces of rows of every head are taken instead; else one
// piece per head, as the pool's units.
TEST(OneDnnKernels, BatchedMatMulRunsHeadsAsUnits) {
  const int64_t H = 12, S = 96, T = 96, Dh = 64, D = H * Dh;
  std::vector<float> q = uniformFloats(size_t(S * D), 21), k = uniformFloats(size_t(T * D), 22);
  std::vector<double> want(size_t(H * S * T));  // [H, S, T]
  for (int64_t h = 0; h < H; ++h)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t t = 0; t < T; ++t) {
        double acc = 0;
        for (int64_t d = 0; d < Dh; ++d) acc += double(q[size_t(s * D + h * Dh + d)]) * k[size_t(t * D + h * Dh + d)];
        want[size_t((h * S + s) * T + t)] = acc;
      }
  for (bool rowsOuter : {false, true}) {
    onednn::MatMulParams qk;
    qk.aDims = {1, H, S, Dh};
    qk.aStrides = {S * D, Dh, D, 1};
    qk.bDims = {1, H, Dh, T};
    qk.bStrides = {T * D, Dh, 1, D};
    qk.yDims = {1, H, S, T};
    if (rowsOuter) qk.yStrides = {S * H * T, T, H * T, 1};
    auto at = [&](int64_t h, int64_t s, int64_t t) {
      return size_t(rowsOuter ? (s * H + h) * T + t : (h * S + s) * T + t);
    };
    std::string wholeImpl;
    for (int threads : {1, 2, 3}) {
      const std::string label = std::string(rowsOuter ? "[S, H, T]" : "[H, S, T]") + ", threads=" + std::to_string(threads);
      std::string why;
      std::unique_ptr<onednn::MatMul> mm = onednn::MatMul::create(qk, &why);
      ASSERT_TRUE(mm) << why;
      ThreadPool pool(threads);
      std::vector<float> y(want.size(), -1.f);
      for (int run = 0; run < 2; ++run) {
        ASSERT_TRUE(mm->run(q.data(), k.data(), nullptr, y.data(), pool).isOk());
        for (int64_t h = 0; h < H; ++h)
          for (int64_t s = 0; s < S; ++s)
            for (int64_t t = 0; t < T; ++t) {
              const double w = want[size_t((h * S + s) * T + t)];
              ASSERT_NEAR(y[at(h, s, t)], w, 1e-4 * std::max(1.0, std::fabs(w))) << label << " " << h << "," << s << "," << t;
            }
      }
      const std::string impl = mm->implementation();
      if (threads == 1) {
        wholeImpl = impl;
        continue;
      }
      if (wholeImpl.rfind("brg", 0) == 0) {
        EXPECT_EQ(impl.rfind("brg", 0), 0u) << label << ": " << impl << " (whole: " << wholeImpl << ")";
        EXPECT_NE(impl.find("pieces of rows"), std::string::npos) << label << ": " << impl;
      } else {
        EXPECT_NE(impl.find("12 pieces of the batch"), std::string::npos) << label << ": " << impl;
      }
    }
  }
  // Pieces of rows read all of b each: 2 per thread at most.
  MatMulPiecePlan rows = planMatMulPieces({1, 100, 768}, 768, 2, 8);
  EXPECT_EQ(rows.axis, 1);
  EXPECT_EQ(rows.count, 4);
  EXPECT_EQ(planMatMulPieces({1, 100, 768}, 768, 2).count, 2);  // as the estimator prices a thread's share
}

// A convolution and a matmul on several threads run as single-threaded
// oneDNN pieces on the session's pool: no OpenMP team starts beside it (the
// process gains no threads during the runs), and the results equal one
// thread's. Run from a fresh thread: OpenMP keeps a team per calling thread.
TEST(OneDnnKernels, SeveralThreadsRunOnThePoolNotOpenMp) {
  auto threadCount = [] {
    int n = 0;
    if (DIR *d = opendir("/proc/self/task")) {
      while (dirent *e = readdir(d)) n += e->d_name[0] != '.';
      closedir(d);
    }
    return n;
  };
  std::thread([&] {
    onednn::Conv2dParams p;
    p.nhwc = true;
    p.N = 1, p.C = 32, p.H = 40, p.W = 40, p.O = 64, p.KH = 3, p.KW = 3, p.OH = 40, p.OW = 40;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.filterStrideO = 9 * 32, p.filterStrideH = 3 * 32, p.filterStrideW = 32, p.filterStrideI = 1;  // ohwi
    p.constantFilter = true;
    onednn::MatMulParams m;
    m.aDims = {1, 1024}, m.bDims = {1024, 512}, m.yDims = {1, 512};
    m.aStrides = {1024, 1}, m.bStrides = {512, 1};
    m.constantB = true;
    std::string why;
    std::unique_ptr<onednn::Conv2d> conv = onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(conv) << why;
    std::unique_ptr<onednn::MatMul> mm = onednn::MatMul::create(m, &why);
    ASSERT_TRUE(mm) << why;
    std::vector<float> x = uniformFloats(40 * 40 * 32, 11), f = uniformFloats(64 * 9 * 32, 12);
    std::vector<float> a = uniformFloats(1024, 13), b = uniformFloats(1024 * 512, 14);
    std::vector<float> y1(40 * 40 * 64), y3(y1.size()), z1(512), z3(512);
    ThreadPool one(1), three(3);
    const int before = threadCount();
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(conv->run(x.data(), f.data(), nullptr, y3.data(), three).isOk());
      ASSERT_TRUE(mm->run(a.data(), b.data(), nullptr, z3.data(), three).isOk());
    }
    EXPECT_EQ(threadCount(), before) << "threads started during the runs";
    EXPECT_NE(conv->implementation().find("pieces of output rows"), std::string::npos) << conv->implementation();
    EXPECT_NE(mm->implementation().find("pieces of columns"), std::string::npos) << mm->implementation();
    onednn::Conv2dParams row = p;  // a conv1d: one row, cut into pieces of output columns
    row.H = 1, row.OH = 1, row.KH = 1, row.W = 1600, row.OW = 1600, row.padTop = row.padBottom = 0;
    row.filterStrideO = 3 * 32, row.filterStrideH = 3 * 32;
    std::unique_ptr<onednn::Conv2d> conv1d = onednn::Conv2d::create(row, &why);
    ASSERT_TRUE(conv1d) << why;
    std::vector<float> xr = uniformFloats(1600 * 32, 15), yr(1600 * 64);
    ASSERT_TRUE(conv1d->run(xr.data(), f.data(), nullptr, yr.data(), three).isOk());
    EXPECT_NE(conv1d->implementation().find("pieces of output columns"), std::string::npos)
        << conv1d->implementation();

    // A Winograd layer wide enough is cut by output channels; its pieces'
    // filters, prepacked one after another, are read in place.
    onednn::Conv2dParams wide = p;
    wide.C = 64, wide.O = 256, wide.H = wide.W = wide.OH = wide.OW = 14;
    wide.filterStrideO = 9 * 64, wide.filterStrideH = 3 * 64, wide.filterStrideW = 64, wide.filterStrideI = 1;
    std::vector<float> xw = uniformFloats(14 * 14 * 64, 16), fw = uniformFloats(256 * 9 * 64, 17);
    std::vector<float> yw1(14 * 14 * 256), yw2(yw1.size()), yw3(yw1.size());
    std::unique_ptr<onednn::Conv2d> w1 = onednn::Conv2d::create(wide, &why), w2 = onednn::Conv2d::create(wide, &why);
    ASSERT_TRUE(w1 && w2) << why;
    ASSERT_TRUE(w1->run(xw.data(), fw.data(), nullptr, yw1.data(), one).isOk());
    ThreadPool two(2);
    ASSERT_TRUE(w2->run(xw.data(), fw.data(), nullptr, yw2.data(), two).isOk());
    if (w2->implementation().find("wino") != std::string::npos) {
      EXPECT_NE(w2->implementation().find("pieces of output channels"), std::string::npos) << w2->implementation();
      const std::string layout = w2->packedFilterLayout(2);
      EXPECT_EQ(layout.rfind("pieces|", 0), 0u) << layout;
      std::vector<uint8_t> packed(w2->packedFilterBytes(2));
      w2->packFilter(fw.data(), packed.data(), 2);
      onednn::Conv2dParams pre = wide;
      pre.packedFilter = {{layout, packed.data(), packed.size()}};
      std::unique_ptr<onednn::Conv2d> w3 = onednn::Conv2d::create(pre, &why);
      ASSERT_TRUE(w3) << why;
      std::vector<float> garbage(fw.size(), 1e9f);  // the prepacked filter is used, not this
      ASSERT_TRUE(w3->run(xw.data(), garbage.data(), nullptr, yw3.data(), two).isOk());
      EXPECT_TRUE(w3->usesPrepackedFilter());
      for (size_t i = 0; i < yw1.size(); ++i)
        ASSERT_NEAR(yw3[i], yw1[i], 1e-3f * std::max(1.f, std::fabs(yw1[i]))) << i;
    }
    for (size_t i = 0; i < yw1.size(); ++i) ASSERT_NEAR(yw2[i], yw1[i], 1e-3f * std::max(1.f, std::fabs(yw1[i]))) << i;
    std::unique_ptr<onednn::Conv2d> conv1 = onednn::Conv2d::create(p, &why);
    std::unique_ptr<onednn::MatMul> mm1 = onednn::MatMul::create(m, &why);
    ASSERT_TRUE(conv1 && mm1) << why;
    ASSERT_TRUE(conv1->run(x.data(), f.data(), nullptr, y1.data(), one).isOk());
    ASSERT_TRUE(mm1->run(a.data(), b.data(), nullptr, z1.data(), one).isOk());
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y3[i], y1[i], 1e-4f * std::max(1.f, std::fabs(y1[i]))) << i;
    for (size_t i = 0; i < z1.size(); ++i) ASSERT_NEAR(z3[i], z1[i], 1e-4f * std::max(1.f, std::fabs(z1[i]))) << i;
  }).join();
}
#endif

}  // namespace
}  // namespace webnn::cpu::test
