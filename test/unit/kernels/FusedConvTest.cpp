// fusedConv2d (docs/FUSED_OPS.md) against its decomposition run through the
// spec kernels: conv2d (oneDNN off), then add(residual) and the activation in
// a plain loop. Each case runs with oneDNN on (post-ops: sum + eltwise, on the
// Winograd, brgconv and depthwise paths) and off (the portable conv2d plus
// epilogue), at 1 and 2 threads, nchw and nhwc, float32 and float16; the
// depthwise cases also through our AVX-512 depthwise kernel (Depthwise.h)
// and the GEMM-shaped ones through the packed-B SGEMM (PackedSgemm.h) where
// the CPU has AVX-512.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/Float16.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/Pointwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/Silu.h"
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"
#include "runtime/backends/cpu/ThreadPool.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::test {
namespace {

struct FusedCase {
  std::string name;
  bool nhwc = false;
  int64_t N = 1, C = 16, H = 12, W = 12, O = 16, KH = 3, KW = 3;
  int64_t stride = 1, pad = 1, groups = 1;
  std::vector<int64_t> padding;  // top, bottom, left, right; empty: `pad` on every side
  bool bias = true, residual = true;
  std::string activation = "relu";
  double lo = 0, hi = 6;
  DataType dtype = DataType::kFloat32;
};

#if WEBNN_HAVE_ONEDNN
struct OneDnnScope {
  explicit OneDnnScope(bool enabled) : saved(onednn::policy()) {
    onednn::Policy p = saved;
    p.enabled = enabled;
    p.minFlops = 0;  // small test shapes still take the oneDNN path
    onednn::setPolicy(p);
  }
  ~OneDnnScope() { onednn::setPolicy(saved); }
  onednn::Policy saved;
};
#endif

// Our AVX-512 depthwise kernel on or off while in scope.
struct DepthwiseScope {
  explicit DepthwiseScope(bool enabled) : saved(kernels::depthwiseAvx512Enabled()) {
    kernels::setDepthwiseAvx512Enabled(enabled);
  }
  ~DepthwiseScope() { kernels::setDepthwiseAvx512Enabled(saved); }
  bool saved;
};

// Our narrow pointwise kernel (Pointwise.h) on or off while in scope.
struct NarrowScope {
  explicit NarrowScope(bool enabled) : saved(kernels::pointwiseNarrowEnabled()) {
    kernels::setPointwiseNarrowEnabled(enabled);
  }
  ~NarrowScope() { kernels::setPointwiseNarrowEnabled(saved); }
  bool saved;
};

// Our grouped 4-channels-per-group kernel on or off while in scope.
struct GroupedScope {
  explicit GroupedScope(bool enabled) : saved(kernels::groupedNarrowEnabled()) {
    kernels::setGroupedNarrowEnabled(enabled);
  }
  ~GroupedScope() { kernels::setGroupedNarrowEnabled(saved); }
  bool saved;
};

std::vector<int64_t> pads(const FusedCase &c) {
  return c.padding.empty() ? std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad} : c.padding;
}

// Whether the case is one our AVX-512 depthwise kernel takes.
bool depthwiseAvx512Case(const FusedCase &c) {
  std::vector<int64_t> p = pads(c);
  return kernels::avx512Available() && c.nhwc && c.dtype == DataType::kFloat32 && c.groups == c.C && c.O == c.C &&
         !c.residual && c.activation != "sigmoid" &&
         kernels::depthwise3x3Supported(c.KH, c.KW, c.stride, c.stride, 1, 1, p[0], p[1], p[2], p[3]);
}

// Whether the case is one the packed-B SGEMM takes (conv/Conv2dSelection.cpp): a 1x1
// stride-1 unpadded layer with <= 1024 pixels and >= 512 output channels,
// or any other ungrouped one (strided 1x1 too) with <= 64 output pixels and
// >= 256 channels, or a 1 x KW filter (KW > 1) over unpadded rows with >= 64
// output columns, >= 128 channels and KW x C >= 64 (the row-window kernel).
bool packedSgemmCase(const FusedCase &c) {
  std::vector<int64_t> p = pads(c);
  int64_t OH = (c.H + p[0] + p[1] - c.KH) / c.stride + 1, OW = (c.W + p[2] + p[3] - c.KW) / c.stride + 1;
  bool pointwise = c.KH == 1 && c.KW == 1 && c.stride == 1 && p == std::vector<int64_t>{0, 0, 0, 0};
  bool eligible = kernels::avx512Available() && c.nhwc && c.dtype == DataType::kFloat32 && c.groups == 1 &&
                  c.activation != "sigmoid";
  if (pointwise) return eligible && c.N * c.H * c.W <= 1024 && c.O >= (c.N * c.H * c.W <= 64 ? 192 : 512);
  bool rowWindow = c.KH == 1 && c.KW > 1 && p[0] == 0 && p[1] == 0 && OW >= 64 && c.O >= 128 && c.KW * c.C >= 64;
  return eligible && ((c.N * OH * OW <= 64 && c.O >= 256) || rowWindow);
}

// Whether the case is one the narrow pointwise kernel takes: a 1x1
// stride-1 unpadded float32 nhwc layer with at most 32 output channels, or
// with a residual, at most 128 input channels and at least 784 pixels.
bool pointwiseNarrowCase(const FusedCase &c) {
  bool pointwise = c.KH == 1 && c.KW == 1 && c.stride == 1 && pads(c) == std::vector<int64_t>{0, 0, 0, 0};
  bool shape = c.O <= 32 || (c.residual && c.C <= 128 && c.N * c.H * c.W >= 784);
  return kernels::avx512Available() && c.nhwc && c.dtype == DataType::kFloat32 && c.groups == 1 && pointwise &&
         shape && c.activation != "sigmoid";
}

// Whether the case is one our grouped kernel takes: nhwc float32, 4
// channels per group in and out, channels a multiple of 16, no residual.
bool groupedNarrowCase(const FusedCase &c) {
  return kernels::avx512Available() && c.nhwc && c.dtype == DataType::kFloat32 && c.groups > 1 &&
         c.C == 4 * c.groups && c.O == 4 * c.groups && c.O % 16 == 0 && !c.residual && c.activation != "sigmoid";
}

Shape act(const FusedCase &c, int64_t ch, int64_t h, int64_t w) {
  return c.nhwc ? Shape{c.N, h, w, ch} : Shape{c.N, ch, h, w};
}

void addConvAttrs(OpCase &op, const FusedCase &c) {
  op.attrInts("padding", pads(c))
      .attrInts("strides", {c.stride, c.stride})
      .attrInt("groups", c.groups)
      .attrString("inputLayout", c.nhwc ? "nhwc" : "nchw")
      .attrString("filterLayout", c.nhwc ? "ohwi" : "oihw");
}

// Cases whose fusedConv2d the table gave to our depthwise / narrow / packed kernels.
int gDepthwiseChosen = 0, gNarrowChosen = 0, gPackedChosen = 0, gGroupedChosen = 0;

void runCase(const FusedCase &c) {
  std::vector<int64_t> p = pads(c);
  int64_t OH = (c.H + p[0] + p[1] - c.KH) / c.stride + 1, OW = (c.W + p[2] + p[3] - c.KW) / c.stride + 1;
  Shape xs = act(c, c.C, c.H, c.W), ys = act(c, c.O, OH, OW);
  Shape fs = c.nhwc ? Shape{c.O, c.KH, c.KW, c.C / c.groups} : Shape{c.O, c.C / c.groups, c.KH, c.KW};
  int64_t xn = c.N * c.C * c.H * c.W, yn = c.N * c.O * OH * OW, fn = c.O * (c.C / c.groups) * c.KH * c.KW;
  std::vector<float> x = roundFor(c.dtype, uniformFloats(xn, 1)), f = roundFor(c.dtype, uniformFloats(fn, 2)),
                     b = roundFor(c.dtype, uniformFloats(c.O, 3)), r = roundFor(c.dtype, uniformFloats(yn, 4));

  // Reference: conv2d through the spec kernel (portable path), then the
  // residual add and activation in a plain loop.
  OpCase conv{"conv2d", {makeTensor(c.dtype, xs, x), makeTensor(c.dtype, fs, f, true)}, {outSpec(c.dtype, ys)}};
  if (c.bias) conv.inputs.push_back(makeTensor(c.dtype, {c.O}, b, true));
  addConvAttrs(conv, c);
  {
#if WEBNN_HAVE_ONEDNN
    OneDnnScope portable(false);
#endif
    DepthwiseScope noDepthwise(false);
    ScopedPackedSgemm noPacked(false);
    NarrowScope noNarrow(false);
    GroupedScope noGrouped(false);
    Status s = runOp(conv, 1);
    ASSERT_TRUE(s.isOk()) << c.name << ": " << s.message();
  }
  std::vector<double> want = conv.outputs[0].values();
  for (int64_t i = 0; i < yn; ++i) {
    double v = want[i] + (c.residual ? r[i] : 0.0);
    if (c.activation == "relu") v = std::max(v, 0.0);
    else if (c.activation == "clamp") v = std::min(std::max(v, c.lo), c.hi);
    else if (c.activation == "sigmoid") v = 1.0 / (1.0 + std::exp(-v));
    else if (c.activation == "silu") v = v / (1.0 + std::exp(-v));
    else if (c.activation == "hardSwish") v = v * std::min(6.0, std::max(0.0, v + 3.0)) / 6.0;
    want[i] = v;
  }

  OpCase fused{"fusedConv2d",
               {makeTensor(c.dtype, xs, x), makeTensor(c.dtype, fs, f, true),
                c.bias ? std::optional<TestTensor>(makeTensor(c.dtype, {c.O}, b, true)) : std::nullopt,
                c.residual ? std::optional<TestTensor>(makeTensor(c.dtype, ys, r)) : std::nullopt},
               {outSpec(c.dtype, ys)}};
  addConvAttrs(fused, c);
  fused.attrString("activation", c.activation);
  if (c.activation == "clamp") fused.attrFloat("activationMinValue", c.lo).attrFloat("activationMaxValue", c.hi);

  double tol = c.dtype == DataType::kFloat16 ? 2e-2 : 1e-4;
  enum Path { kOneDnn, kPortable, kDepthwise, kPacked, kNarrow, kGrouped };
  std::vector<Path> paths = {kPortable};
#if WEBNN_HAVE_ONEDNN
  paths.push_back(kOneDnn);
#endif
  if (depthwiseAvx512Case(c)) paths.push_back(kDepthwise);
  if (packedSgemmCase(c)) paths.push_back(kPacked);
  if (pointwiseNarrowCase(c)) paths.push_back(kNarrow);
  if (groupedNarrowCase(c)) paths.push_back(kGrouped);
  for (Path path : paths) {
#if WEBNN_HAVE_ONEDNN
    // Stride 1 takes our depthwise kernel before oneDNN (5x5 from 14 output
    // columns); the rest only when oneDNN does not take it, so oneDNN is off
    // for that path then.
    const std::vector<int64_t> p = pads(c);
    const int64_t OW = (c.W + p[2] + p[3] - c.KW) / c.stride + 1;
    const bool depthwiseFirst = c.stride == 1 && (c.KH != 5 || OW >= 14);
    OneDnnScope scope(path == kOneDnn || (path == kDepthwise && depthwiseFirst));
#endif
    DepthwiseScope dw(path == kDepthwise);
    ScopedPackedSgemm packed(path == kPacked);
    NarrowScope narrow(path == kNarrow);
    GroupedScope grouped(path == kGrouped);
    // With a residual, also with y written over it, as the arena plan places
    // a residual that dies at the node (ExecutionPlan.cpp): every path must
    // allow that (runOp checks) and read each element before it writes it.
    for (int run = 0; run < (c.residual ? 4 : 2); ++run) {
      const int threads = 1 + run % 2;
      const bool over = run >= 2;
      OpCase op = fused;
      if (over) op.outputOverInput = 3;
      const char *pathName = path == kOneDnn     ? " [oneDNN]"
                             : path == kPortable ? " [portable]"
                             : path == kPacked   ? " [packed sgemm]"
                             : path == kNarrow   ? " [narrow pointwise]"
                             : path == kGrouped  ? " [grouped narrow]"
                                                 : " [avx512 depthwise]";
      std::string label = c.name + pathName + " threads=" + std::to_string(threads) + (over ? " over residual" : "");
#if WEBNN_HAVE_ONEDNN
      ScopedRunCounting counting;  // executionCount() counts only then
      uint64_t before = onednn::executionCount();
#endif
      ScopedKernelChoices choices;
      Status s = runOp(op, threads);
      ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
#if WEBNN_HAVE_ONEDNN
      uint64_t ran = onednn::executionCount() - before;
      if (path == kOneDnn) EXPECT_GT(ran, 0u) << label << ": expected the oneDNN path";
      else EXPECT_EQ(ran, 0u) << label << ": expected no oneDNN execution";
#endif
      // The kernel the table chose (float16: for the float32 node inside).
      const kernels::KernelChoice choice = choices.last("fusedConv2d");
      const std::string kernel = convKernelOf(choice);
      const bool depthwise = kernel.rfind("depthwise-avx512", 0) == 0;
      const bool packed = kernel.rfind("pointwise-packed-sgemm", 0) == 0 || kernel == "im2col-packed-sgemm" ||
                          kernel == "row-window-packed-sgemm";
      // Or after oneDNN, which a wide block end over its residual tries first.
      const bool narrow = kernel == "pointwise-narrow" || kernel == "pointwise-narrow-after-onednn";
      const bool grouped = kernel == "grouped-narrow-avx512";
      EXPECT_EQ(path == kDepthwise, depthwise) << label << ": " << choice.describe();
      EXPECT_EQ(path == kGrouped, grouped) << label << ": " << choice.describe();
      EXPECT_EQ(path == kPacked, packed) << label << ": " << choice.describe();
      EXPECT_EQ(path == kNarrow, narrow) << label << ": " << choice.describe();
      // SiLU runs as oneDNN's convolution and our pass after it.
      if (path == kOneDnn)
        EXPECT_EQ(choice.chosen, c.activation == "silu" ? "silu-after-onednn" : "onednn")
            << label << ": " << choice.describe();
      if (path == kPortable) EXPECT_EQ(choice.chosen, "portable") << label << ": " << choice.describe();
      gDepthwiseChosen += depthwise, gNarrowChosen += narrow, gPackedChosen += packed, gGroupedChosen += grouped;
      std::vector<double> got = op.outputs[0].values();
      ASSERT_EQ(got.size(), want.size()) << label;
      int bad = 0;
      for (size_t i = 0; i < want.size() && bad < 5; ++i)
        if (std::fabs(got[i] - want[i]) > tol * (1.0 + std::fabs(want[i]))) {
          ADD_FAILURE() << label << ": element " << i << " got " << got[i] << " want " << want[i];
          ++bad;
        }
    }
  }
}

TEST(FusedConv2d, Winograd3x3ResidualRelu) {
  FusedCase c;
  c.name = "3x3 s1 nchw residual relu";
  runCase(c);
  c.nhwc = true;
  c.name = "3x3 s1 nhwc residual relu";
  runCase(c);
  // Large enough for oneDNN's pieces at 2 threads (Winograd: of output
  // channels), each summing over its own part of y, in place too.
  c.name = "3x3 s1 nhwc 28x28x64->128 residual relu";
  c.H = c.W = 28, c.C = 64, c.O = 128;
  runCase(c);
}

TEST(FusedConv2d, PointwiseResidualNoActivation) {
  FusedCase c;
  c.name = "1x1 nhwc residual";
  c.nhwc = true, c.KH = c.KW = 1, c.pad = 0, c.C = 24, c.O = 40;
  c.activation = "none";
  runCase(c);
}

// The packed-B SGEMM's convolutions: 1x1 as one GEMM (output channels not a
// multiple of its 48-column panels), and small-output layers through im2col
// (padding on one side only, stride 2, batch 2), every epilogue.
TEST(FusedConv2d, PackedSgemmPointwiseAndIm2col) {
  FusedCase c;
  c.name = "1x1 nhwc 5x5x64->520 residual clamp";
  c.nhwc = true, c.KH = c.KW = 1, c.pad = 0, c.H = c.W = 5, c.C = 64, c.O = 520;
  c.activation = "clamp", c.lo = -0.25, c.hi = 0.5;
  runCase(c);
  c.name = "1x1 nhwc 2x4x4x96->512 relu no bias";
  c.N = 2, c.H = c.W = 4, c.C = 96, c.O = 512, c.bias = false, c.residual = false, c.activation = "relu";
  runCase(c);
  // One row chunk of 196 pixels: on 2 threads cut into 8-row tiles (13 + 12),
  // not panels (PackedProduct::splitRows).
  c.name = "1x1 nhwc 14x14x40->528 residual clamp";
  c.N = 1, c.H = c.W = 14, c.C = 40, c.O = 528, c.bias = true, c.residual = true, c.activation = "clamp";
  runCase(c);
  // 7x7 (64 pixels or fewer) from 192 output channels: a masked last panel
  // (200 = 4 x 48 + 8) and a 1-row tile (49 = 6 x 8 + 1).
  c.name = "1x1 nhwc 7x7x96->200 residual clamp";
  c.H = c.W = 7, c.C = 96, c.O = 200;
  runCase(c);
  FusedCase d;
  d.name = "3x3 nhwc 7x7x40->260 residual relu";
  d.nhwc = true, d.H = d.W = 7, d.C = 40, d.O = 260;
  runCase(d);
  d.name = "3x3 s2 nhwc 13x11x24->256 clamp, padding 1 0 0 1";
  d.stride = 2, d.H = 13, d.W = 11, d.C = 24, d.O = 256, d.padding = {1, 0, 0, 1};
  d.residual = false, d.activation = "clamp", d.lo = 0, d.hi = 6;
  runCase(d);
  d.name = "1x1 s2 nhwc 13x13x32->256 residual relu";
  d.KH = d.KW = 1, d.stride = 2, d.H = d.W = 13, d.C = 32, d.O = 256, d.padding = {}, d.pad = 0;
  d.residual = true, d.activation = "relu";
  runCase(d);
  d.name = "2x2 nhwc batch 2 5x5x16->300 none";
  d.residual = false;
  d.N = 2, d.KH = d.KW = 2, d.stride = 1, d.H = d.W = 5, d.C = 16, d.O = 300, d.padding = {}, d.pad = 0;
  d.activation = "none";
  runCase(d);
  EXPECT_EQ(gPackedChosen > 0, kernels::avx512Available());
}

// The packed-B SGEMM's convolutions with more than one k-block (K > 1024:
// blocks of at most 768), a residual, masked last panels and row tails: the
// sums start from the residual at the first block, so y over the residual
// (runCase's in-place runs) reads each element before storing partial sums.
TEST(FusedConv2d, PackedSgemmResidualOverSeveralKBlocks) {
  FusedCase c;
  c.name = "1x1 nhwc 7x7x1100->520 residual relu";
  c.nhwc = true, c.KH = c.KW = 1, c.pad = 0, c.H = c.W = 7, c.C = 1100, c.O = 520;
  ASSERT_EQ(packedSgemmCase(c), kernels::avx512Available()) << c.name;
  runCase(c);
  FusedCase d;
  d.name = "3x3 nhwc 4x5x128->260 residual clamp";
  d.nhwc = true, d.H = 4, d.W = 5, d.C = 128, d.O = 260, d.activation = "clamp", d.lo = -0.25, d.hi = 0.5;
  ASSERT_EQ(packedSgemmCase(d), kernels::avx512Available()) << d.name;
  runCase(d);
  FusedCase e;
  e.name = "1x3 nhwc 1x1x70x384->144 residual none";
  e.nhwc = true, e.H = 1, e.W = 70, e.C = 384, e.O = 144, e.KH = 1, e.KW = 3, e.padding = {0, 0, 1, 1};
  e.activation = "none", e.bias = false;
  ASSERT_EQ(packedSgemmCase(e), kernels::avx512Available()) << e.name;
  runCase(e);
}

// conv1d as conv2d with H = 1 (and 1 x KW filters over several rows):
// windows read in place by the packed-B SGEMM, the ones reaching into the
// padding (left, right, both, asymmetric, none) gathered apart; odd lengths,
// strides 1 and 2, output channels not a multiple of its 48-column panels,
// batch 2, a window wider than the padding, every epilogue.
TEST(FusedConv2d, PackedSgemmRowWindow) {
  struct RowCase { int64_t N, H, W, C, O, KW, stride; std::vector<int64_t> padding; const char *act; bool residual; };
  const RowCase cases[] = {
      {1, 1, 151, 24, 130, 3, 2, {0, 0, 1, 1}, "relu", true},   {1, 1, 129, 24, 128, 3, 1, {0, 0, 1, 1}, "none", false},
      {2, 1, 100, 13, 200, 5, 1, {0, 0, 2, 1}, "clamp", true},   {1, 3, 140, 22, 144, 3, 2, {0, 0, 0, 0}, "relu", false},
      {1, 1, 70, 20, 160, 7, 1, {0, 0, 0, 6}, "none", true},    {1, 1, 131, 33, 129, 4, 2, {0, 0, 3, 0}, "clamp", false},
      {1, 1, 64, 40, 256, 2, 1, {0, 0, 1, 0}, "relu", true},
  };
  int i = 0;
  for (const RowCase &r : cases) {
    FusedCase c;
    c.nhwc = true, c.N = r.N, c.H = r.H, c.W = r.W, c.C = r.C, c.O = r.O, c.KH = 1, c.KW = r.KW, c.stride = r.stride;
    c.padding = r.padding, c.activation = r.act, c.residual = r.residual, c.bias = i % 3 != 2;
    c.lo = -0.25, c.hi = 0.5;
    c.name = "1x" + std::to_string(r.KW) + " s" + std::to_string(r.stride) + " nhwc " + std::to_string(r.N) + "x" +
             std::to_string(r.H) + "x" + std::to_string(r.W) + "x" + std::to_string(r.C) + "->" +
             std::to_string(r.O) + " " + r.act + (r.residual ? " residual" : "") + (c.bias ? "" : " no bias");
    ASSERT_EQ(packedSgemmCase(c), kernels::avx512Available()) << c.name;
    runCase(c);
    ++i;
  }
}

// Grouped layers of 4 channels per group (ResNeXt-50's first stage) on our
// AVX-512 kernel: 3x3 rows of 8-pixel tiles with the column reuse, edge
// tiles in the padding, tails of 1-7 pixels (a row shorter than a tile),
// stride 2, asymmetric and no padding, 5x5 and 1x3 windows, batch 2,
// 4 to 32 groups, every epilogue it takes (SiLU as the pass after it).
TEST(FusedConv2d, GroupedNarrowShapes) {
  struct GroupedShape { int64_t N, H, W, groups, KH, KW, stride; std::vector<int64_t> padding; const char *act; };
  const GroupedShape shapes[] = {
      {1, 9, 13, 4, 3, 3, 1, {1, 1, 1, 1}, "relu"},   {1, 12, 17, 16, 3, 3, 2, {1, 1, 1, 1}, "clamp"},
      {1, 7, 10, 8, 3, 3, 1, {0, 1, 1, 0}, "none"},   {2, 6, 20, 4, 3, 3, 1, {0, 0, 0, 0}, "silu"},
      {1, 4, 3, 32, 3, 3, 1, {1, 1, 1, 1}, "relu"},   {1, 11, 19, 4, 5, 5, 1, {2, 2, 2, 2}, "clamp"},
      {1, 5, 24, 12, 1, 3, 1, {0, 0, 1, 1}, "none"},  {1, 56, 56, 32, 3, 3, 1, {1, 1, 1, 1}, "relu"},
  };
  int i = 0;
  for (const GroupedShape &sh : shapes) {
    FusedCase c;
    c.nhwc = true, c.N = sh.N, c.H = sh.H, c.W = sh.W, c.groups = sh.groups, c.C = c.O = 4 * sh.groups;
    c.KH = sh.KH, c.KW = sh.KW, c.stride = sh.stride, c.padding = sh.padding;
    c.residual = false, c.bias = i % 3 != 2, c.activation = sh.act, c.lo = -0.25, c.hi = 0.5;
    c.name = "grouped " + std::to_string(sh.N) + "x" + std::to_string(sh.H) + "x" + std::to_string(sh.W) + "x" +
             std::to_string(c.C) + " " + std::to_string(sh.KH) + "x" + std::to_string(sh.KW) + " s" +
             std::to_string(sh.stride) + " " + sh.act + (c.bias ? "" : " no bias");
    if (c.O % 16 == 0) ASSERT_EQ(groupedNarrowCase(c), kernels::avx512Available()) << c.name;
    runCase(c);
    ++i;
  }
  EXPECT_EQ(gGroupedChosen > 0, kernels::avx512Available());
}

// The grouped kernel with strides and dilations that differ between rows
// and columns (the 3x3 column-reuse tile takes stride 1 and undilated
// columns whatever the rows do), against the portable kernel.
TEST(FusedConv2d, GroupedNarrowStridesAndDilations) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the grouped kernel needs AVX-512";
  struct Geometry { std::vector<int64_t> strides, dilations; };
  const Geometry geometries[] = {{{2, 1}, {1, 1}}, {{1, 2}, {1, 1}}, {{1, 1}, {2, 1}}, {{1, 1}, {1, 2}}, {{2, 1}, {2, 2}}};
  const int64_t H = 13, W = 21, C = 32, groups = 8;
  for (const Geometry &geo : geometries) {
    const int64_t OH = (H + 2 - geo.dilations[0] * 2 - 1) / geo.strides[0] + 1;
    const int64_t OW = (W + 2 - geo.dilations[1] * 2 - 1) / geo.strides[1] + 1;
    const std::vector<float> x = uniformFloats(H * W * C, 31), f = uniformFloats(C * 9 * 4, 32), b = uniformFloats(C, 33);
    auto run = [&](bool grouped, std::string *chosen) {
      OpCase c{"conv2d", {f32({1, H, W, C}, x), f32({C, 3, 3, 4}, f, true), f32({C}, b, true)},
               {outSpec(DataType::kFloat32, {1, OH, OW, C})}};
      c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", groups);
      c.attrInts("padding", {1, 1, 1, 1}).attrInts("strides", geo.strides).attrInts("dilations", geo.dilations);
#if WEBNN_HAVE_ONEDNN
      OneDnnScope noOneDnn(false);
#endif
      GroupedScope scope(grouped);
      ScopedKernelChoices choices;
      Status s = runOp(c, 2);
      EXPECT_TRUE(s.isOk()) << s.message();
      *chosen = choices.last("conv2d").chosen;
      return c.outputs[0].values();
    };
    std::string refKernel, kernel;
    const std::vector<double> want = run(false, &refKernel), got = run(true, &kernel);
    const std::string label = "strides " + std::to_string(geo.strides[0]) + "," + std::to_string(geo.strides[1]) +
                              " dilations " + std::to_string(geo.dilations[0]) + "," + std::to_string(geo.dilations[1]);
    EXPECT_EQ(refKernel, "portable") << label;
    EXPECT_EQ(kernel, "grouped-narrow-avx512") << label;
    ASSERT_EQ(got.size(), want.size()) << label;
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << label << " " << i;
  }
}

TEST(FusedConv2d, StridedClampNoResidual) {
  FusedCase c;
  c.name = "3x3 s2 nhwc clamp";
  c.nhwc = true, c.stride = 2, c.H = 13, c.W = 11, c.C = 3, c.O = 5;  // odd channel counts
  c.residual = false, c.activation = "clamp", c.lo = 0, c.hi = 6;
  runCase(c);
}

TEST(FusedConv2d, DepthwiseClamp) {
  FusedCase c;
  c.name = "depthwise 3x3 nhwc clamp";
  c.nhwc = true, c.C = c.O = c.groups = 32, c.H = c.W = 14;
  c.residual = false, c.activation = "clamp", c.lo = 0, c.hi = 6;
  runCase(c);
}

// Our AVX-512 depthwise kernel's tiles (8/4/2/1 pixels, 1-4 channel vectors,
// a masked channel tail), padding columns and rows, both strides and
// epilogues, rows (where they split evenly: 14x14, 6x9) or channel blocks
// (7x7) split over threads, against the portable kernel; MobileNetV2's
// shapes among them. Stride 1 takes two-row tiles (4/2/1 pixels) and a
// last single row for odd heights; the last three shapes are stride-1
// inputs past 512 KiB (one pass over all channels), MnasNet's 56x56x72 and
// odd rows and columns among them.
TEST(FusedConv2d, DepthwiseAvx512Shapes) {
  struct Shape3 { int64_t H, W, C, stride; };
  const Shape3 shapes[] = {{1, 1, 16, 1},  {2, 3, 17, 1},  {3, 2, 5, 2},    {5, 7, 40, 1}, {7, 7, 96, 1},
                           {9, 9, 17, 2},  {13, 11, 33, 1}, {14, 14, 64, 2}, {16, 16, 32, 1}, {10, 23, 48, 2},
                           {28, 28, 192, 1}, {56, 56, 144, 2}, {6, 9, 70, 1},  {14, 14, 384, 1},
                           {45, 47, 72, 1}, {56, 56, 72, 1}, {31, 29, 150, 1}};
  int i = 0;
  for (const Shape3 &sh : shapes) {
    FusedCase c;
    c.nhwc = true, c.H = sh.H, c.W = sh.W, c.C = c.O = c.groups = sh.C, c.stride = sh.stride;
    c.residual = false;
    c.N = i % 3 == 2 ? 2 : 1;
    c.bias = i % 4 != 1;
    const char *acts[] = {"clamp", "relu", "none"};
    c.activation = acts[i % 3];
    c.lo = -0.5, c.hi = 0.75;
    if (i % 5 == 3) c.padding = {0, 1, 1, 0};
    if (i % 5 == 4) c.padding = {1, 0, 0, 1};
    if (i % 7 == 6) c.pad = 0;
    c.name = "depthwise " + std::to_string(sh.H) + "x" + std::to_string(sh.W) + "x" + std::to_string(sh.C) + " s" +
             std::to_string(sh.stride) + " " + c.activation + (c.bias ? "" : " no bias");
    runCase(c);
    ++i;
  }
  EXPECT_EQ(gDepthwiseChosen > 0, kernels::avx512Available());
}

// The same kernel with 5x5 filters (EfficientNet, MnasNet, MobileNetV3):
// 8/4/2/1-pixel tiles, a masked channel tail, padding 0 to 2 on each side,
// both strides, SiLU among the epilogues; EfficientNet-B0's shapes among them.
TEST(FusedConv2d, DepthwiseAvx512Shapes5x5) {
  struct Shape3 { int64_t H, W, C, stride; };
  const Shape3 shapes[] = {{1, 1, 16, 1}, {3, 2, 5, 2},    {5, 7, 40, 1},  {7, 7, 96, 2},  {9, 11, 17, 1},
                           {14, 14, 64, 1}, {10, 23, 48, 2}, {28, 28, 240, 1}, {56, 56, 144, 2}, {7, 7, 1152, 1},
                           {6, 13, 70, 1}};
  int i = 0;
  for (const Shape3 &sh : shapes) {
    FusedCase c;
    c.nhwc = true, c.H = sh.H, c.W = sh.W, c.C = c.O = c.groups = sh.C, c.stride = sh.stride;
    c.KH = c.KW = 5, c.pad = 2;
    c.residual = false;
    c.N = i % 3 == 2 ? 2 : 1;
    c.bias = i % 4 != 1;
    const char *acts[] = {"silu", "clamp", "relu", "none"};
    c.activation = acts[i % 4];
    c.lo = -0.5, c.hi = 0.75;
    if (i % 5 == 3) c.padding = {1, 2, 2, 1};
    if (i % 5 == 4) c.padding = {2, 0, 0, 1};
    c.name = "depthwise 5x5 " + std::to_string(sh.H) + "x" + std::to_string(sh.W) + "x" + std::to_string(sh.C) +
             " s" + std::to_string(sh.stride) + " " + c.activation + (c.bias ? "" : " no bias");
    if (sh.H + 4 >= 5 && sh.W + 4 >= 5) runCase(c);
    ++i;
  }
  EXPECT_EQ(gDepthwiseChosen > 0, kernels::avx512Available());
}

TEST(FusedConv2d, PointwiseNarrowShapes) {
  struct Shape4 { int64_t N, H, W, C, O; };
  // Every column tile (16, 24 = 16 + masked 8, 32, masked 5 and 20), row
  // tails of 8-row tiles (odd pixel counts), batch 2, long and short K.
  // Then wide layers with a residual (ResNet-50's block ends, a masked
  // last panel, a row tail), and ones it must leave (no residual at i % 2).
  const Shape4 shapes[] = {{1, 56, 56, 144, 24}, {1, 112, 112, 32, 16}, {1, 28, 28, 192, 32}, {2, 7, 9, 13, 5},
                           {1, 11, 3, 40, 20},   {1, 1, 1, 8, 17},      {1, 14, 14, 1024, 32}, {1, 56, 56, 64, 256},
                           {1, 28, 28, 128, 512}, {1, 29, 31, 100, 70},  {1, 28, 28, 128, 64}};
  int i = 0;
  for (const Shape4 &sh : shapes) {
    FusedCase c;
    c.nhwc = true, c.N = sh.N, c.H = sh.H, c.W = sh.W, c.C = sh.C, c.O = sh.O;
    c.KH = c.KW = 1, c.pad = 0;
    c.residual = i % 2 == 0;
    c.bias = i % 3 != 2;
    const char *acts[] = {"none", "clamp", "relu"};
    c.activation = acts[i % 3];
    c.lo = -0.5, c.hi = 0.75;
    c.name = "narrow " + std::to_string(sh.N) + "x" + std::to_string(sh.H) + "x" + std::to_string(sh.W) + "x" +
             std::to_string(sh.C) + " -> " + std::to_string(sh.O) + " " + c.activation +
             (c.residual ? " residual" : "") + (c.bias ? "" : " no bias");
    runCase(c);
    ++i;
  }
  EXPECT_EQ(gNarrowChosen > 0, kernels::avx512Available());
}

// The filter as `webnnc compile --prepack` stores it ([C][O] floats): the
// kernel must read that copy, never the source (NaN here).
TEST(FusedConv2d, PointwiseNarrowUsesPrepackedFilter) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the narrow pointwise kernel needs AVX-512";
  const int64_t H = 9, W = 7, C = 40, O = 24;
  std::vector<float> x = uniformFloats(H * W * C, 21), f = uniformFloats(O * C, 22), b = uniformFloats(O, 23);
  OpCase ref{"conv2d", {f32({1, H, W, C}, x), f32({O, 1, 1, C}, f, true), f32({O}, b, true)},
             {outSpec(DataType::kFloat32, {1, H, W, O})}};
  ref.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
  {
    NarrowScope off(false);
    ASSERT_TRUE(runOp(ref).isOk());
  }
  std::vector<float> kn(size_t(C * O));
  for (int64_t k = 0; k < C; ++k)
    for (int64_t n = 0; n < O; ++n) kn[size_t(k * O + n)] = f[size_t(n * C + k)];
  std::vector<float> poisoned(f.size(), std::numeric_limits<float>::quiet_NaN());
  OpCase c{"conv2d", {f32({1, H, W, C}, x), f32({O, 1, 1, C}, poisoned, true), f32({O}, b, true)},
           {outSpec(DataType::kFloat32, {1, H, W, O})}};
  c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
  c.packed.push_back({1, "webnn.pointwise_kn." + std::to_string(C) + "x" + std::to_string(O), kn.data(),
                      kn.size() * sizeof(float)});
  ScopedKernelChoices choices;
  ASSERT_TRUE(runOp(c, 2).isOk());
  EXPECT_EQ(choices.last("conv2d").chosen, "pointwise-narrow") << choices.last("conv2d").describe();
  const std::vector<double> want = ref.outputs[0].values(), got = c.outputs[0].values();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << i;
}

// A 1x1 fusedConv2d feeding a depthwise 3x3 one, as the pair kernel
// (PointwiseDepthwise.h) and as the two nodes' own kernels: equal outputs,
// and the pair is made exactly where it should be.
struct PairCase {
  int64_t N = 1, H = 56, W = 56, K = 16, C = 96, stride = 1;
  std::vector<int64_t> padding = {1, 1, 1, 1};
  bool pointwiseBias = true, depthwiseBias = true;
  std::string pointwiseActivation = "clamp", depthwiseActivation = "clamp";
  bool expectFused = true;
};

// A pair kernel's output against the two nodes run apart: within 1e-4
// relative, the first five misses reported.
void expectPairNear(const std::vector<double> &got, const std::vector<double> &want, const std::string &name,
                    int threads) {
  ASSERT_EQ(got.size(), want.size()) << name;
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 5; ++i)
    if (std::fabs(got[i] - want[i]) > 1e-4 * (1.0 + std::fabs(want[i]))) {
      ADD_FAILURE() << name << " threads=" << threads << ": element " << i << " got " << got[i] << " want " << want[i];
      ++bad;
    }
}

void runPairCase(const PairCase &c) {
  const std::string name = std::to_string(c.N) + "x" + std::to_string(c.H) + "x" + std::to_string(c.W) + "x" +
                           std::to_string(c.K) + " -> " + std::to_string(c.C) + " s" + std::to_string(c.stride) +
                           " " + c.pointwiseActivation + "/" + c.depthwiseActivation;
  const int64_t OH = (c.H + c.padding[0] + c.padding[1] - 3) / c.stride + 1;
  const int64_t OW = (c.W + c.padding[2] + c.padding[3] - 3) / c.stride + 1;
  std::vector<float> x = uniformFloats(c.N * c.H * c.W * c.K, 11), pw = uniformFloats(c.C * c.K, 12),
                     pb = uniformFloats(c.C, 13), dw = uniformFloats(9 * c.C, 14), db = uniformFloats(c.C, 15);
  auto pointwise = [&](std::optional<TestTensor> input) {
    OpCase op{"fusedConv2d",
              {std::move(input), f32({c.C, 1, 1, c.K}, pw, true),
               c.pointwiseBias ? std::optional<TestTensor>(f32({c.C}, pb, true)) : std::nullopt},
              {outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C})}};
    op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
    op.attrString("activation", c.pointwiseActivation);
    if (c.pointwiseActivation == "clamp") op.attrFloat("activationMinValue", 0).attrFloat("activationMaxValue", 1.5);
    return op;
  };
  auto depthwise = [&](std::optional<TestTensor> input) {
    OpCase op{"fusedConv2d",
              {std::move(input), f32({c.C, 3, 3, 1}, dw, true),
               c.depthwiseBias ? std::optional<TestTensor>(f32({c.C}, db, true)) : std::nullopt},
              {outSpec(DataType::kFloat32, {c.N, OH, OW, c.C})}};
    op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", c.C);
    op.attrInts("padding", c.padding).attrInts("strides", {c.stride, c.stride});
    op.attrString("activation", c.depthwiseActivation);
    if (c.depthwiseActivation == "clamp") op.attrFloat("activationMinValue", -1).attrFloat("activationMaxValue", 1);
    return op;
  };
  // Reference: the two nodes' own kernels, the depthwise one portable.
  OpCase first = pointwise(f32({c.N, c.H, c.W, c.K}, x));
  ASSERT_TRUE(runOp(first).isOk()) << name;
  OpCase second = depthwise(first.outputs[0]);
  {
    DepthwiseScope portable(false);
    ASSERT_TRUE(runOp(second).isOk()) << name;
  }
  const std::vector<double> want = second.outputs[0].values();
  for (int threads : {1, 2}) {
    OpCase a = pointwise(f32({c.N, c.H, c.W, c.K}, x));
    OpCase b = depthwise(outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C}));
    bool fused = false;
    Status s = runPair(a, b, threads, &fused);
    ASSERT_TRUE(s.isOk()) << name << ": " << s.message();
    ASSERT_EQ(fused, c.expectFused && kernels::avx512Available()) << name;
    if (!fused) continue;
    expectPairNear(b.outputs[0].values(), want, name, threads);
  }
}

TEST(FusedConv2d, PointwiseDepthwisePair) {
  runPairCase({});                                              // MobileNetV2's shape class, stride 1
  runPairCase({.H = 112, .W = 112, .K = 16, .C = 96, .stride = 2});  // features.2
  {
    PairCase c{.N = 2, .H = 61, .W = 45, .K = 20, .C = 100, .stride = 2};  // odd sizes, a masked panel
    c.padding = {0, 1, 1, 0};
    c.pointwiseBias = false;
    c.pointwiseActivation = "relu", c.depthwiseActivation = "none";
    runPairCase(c);
  }
  {
    PairCase c{.H = 64, .W = 61, .K = 3, .C = 200, .stride = 1};
    c.depthwiseBias = false;
    c.pointwiseActivation = "none", c.depthwiseActivation = "relu";
    c.padding = {1, 1, 0, 0};
    runPairCase(c);
  }
  // SiLU on both halves (EfficientNet-B0's features.2.0 and features.2.1),
  // and on one only with odd sizes.
  {
    PairCase c{.H = 112, .W = 112, .K = 16, .C = 96, .stride = 2};
    c.pointwiseActivation = c.depthwiseActivation = "silu";
    runPairCase(c);
    c = PairCase{.H = 56, .W = 56, .K = 24, .C = 144, .stride = 1};
    c.pointwiseActivation = c.depthwiseActivation = "silu";
    runPairCase(c);
    c = PairCase{.N = 2, .H = 45, .W = 61, .K = 20, .C = 100, .stride = 2};
    c.pointwiseActivation = "silu", c.depthwiseActivation = "none";
    runPairCase(c);
    c = PairCase{.H = 64, .W = 45, .K = 7, .C = 120, .stride = 1};
    c.pointwiseActivation = "relu", c.depthwiseActivation = "silu";
    runPairCase(c);
  }
  // MobileNetV3-L's and MnasNet's 56x56 24 -> 72 (an expanded 882 KiB) at
  // stride 1; not V3-Small's 56x56 16 -> 72 at stride 2.
  runPairCase({.H = 56, .W = 56, .K = 24, .C = 72});
  runPairCase({.H = 56, .W = 56, .K = 16, .C = 72, .stride = 2, .expectFused = false});
  // Not paired: a long 1x1 (K > 32), an expanded tensor under 800 KiB
  // (MobileNetV2's 28x28x192), a sigmoid, and with the switch off.
  runPairCase({.H = 56, .W = 56, .K = 64, .C = 96, .expectFused = false});
  runPairCase({.H = 28, .W = 28, .K = 32, .C = 192, .expectFused = false});
  {
    PairCase c;
    c.depthwiseActivation = "sigmoid";
    c.expectFused = false;
    runPairCase(c);
  }
  {
    struct Off {
      Off() { kernels::setPointwiseDepthwiseEnabled(false); }
      ~Off() { kernels::setPointwiseDepthwiseEnabled(true); }
    } off;
    runPairCase({.expectFused = false});
  }
}

// A squeeze-excitation channel scale (mul by [N or 1, 1, 1, C]) and the
// narrow 1x1 after it, as the pair kernel (the filter scaled per run) and
// as the two nodes' own kernels: equal outputs, and the pair made exactly
// where it should be.
struct ScaleCase {
  int64_t N = 1, H = 56, W = 56, C = 96, O = 24;
  bool scaleFirst = false, perImage = false, bias = true, residual = false;
  std::string activation = "none";
  bool expectFused = true;
};

void runScaleCase(const ScaleCase &c) {
  const std::string name = std::to_string(c.N) + "x" + std::to_string(c.H) + "x" + std::to_string(c.W) + "x" +
                           std::to_string(c.C) + " -> " + std::to_string(c.O) + " " + c.activation +
                           (c.residual ? " residual" : "") + (c.scaleFirst ? " scale first" : "") +
                           (c.perImage ? " per image" : "");
  const int64_t SN = c.perImage ? c.N : 1;
  std::vector<float> x = uniformFloats(c.N * c.H * c.W * c.C, 51), sc = uniformFloats(SN * c.C, 52),
                     w = uniformFloats(c.O * c.C, 53), b = uniformFloats(c.O, 54),
                     r = uniformFloats(c.N * c.H * c.W * c.O, 55);
  auto mul = [&]() {
    TestTensor xt = f32({c.N, c.H, c.W, c.C}, x), st = f32({SN, 1, 1, c.C}, sc);
    OpCase op{"mul", {}, {outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C})}};
    op.inputs.push_back(c.scaleFirst ? st : xt);
    op.inputs.push_back(c.scaleFirst ? xt : st);
    return op;
  };
  auto conv = [&](std::optional<TestTensor> input) {
    OpCase op{c.residual || c.activation != "none" ? "fusedConv2d" : "conv2d",
              {std::move(input), f32({c.O, 1, 1, c.C}, w, true),
               c.bias ? std::optional<TestTensor>(f32({c.O}, b, true)) : std::nullopt},
              {outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.O})}};
    if (c.residual) op.inputs.push_back(f32({c.N, c.H, c.W, c.O}, r));
    op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
    if (op.op == "fusedConv2d") op.attrString("activation", c.activation);
    return op;
  };
  OpCase first = mul();
  ASSERT_TRUE(runOp(first).isOk()) << name;
  OpCase second = conv(first.outputs[0]);
  ASSERT_TRUE(runOp(second).isOk()) << name;
  const std::vector<double> want = second.outputs[0].values();
  // With a residual also with y over it (a residual that dies at the 1x1:
  // the pair must allow it, runPair checks).
  for (int run = 0; run < (c.residual ? 4 : 2); ++run) {
    const int threads = 1 + run % 2;
    OpCase a = mul();
    OpCase bb = conv(outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C}));
    if (run >= 2) bb.outputOverInput = 3;
    bool fused = false;
    Status s = runPair(a, bb, threads, &fused);
    ASSERT_TRUE(s.isOk()) << name << (run >= 2 ? " over residual" : "") << ": " << s.message();
    ASSERT_EQ(fused, c.expectFused && kernels::avx512Available()) << name;
    if (!fused) continue;
    expectPairNear(bb.outputs[0].values(), want, name, threads);
  }
}

// A per-channel multiply-add + clamp as a depthwise 1x1 (DenseNet's
// batchNormalization + relu after --webnn-batchnorm-relu-to-depthwise) and
// the 1x1 that alone reads it, as the pair kernel (AffinePointwisePair.cpp)
// and as the two nodes' own kernels: equal within rounding, and the pair
// made exactly where it should be.
struct AffineCase {
  int64_t N = 1, H = 56, W = 56, C = 64, O = 128;
  std::string dwActivation = "relu", activation = "relu";
  bool dwBias = true, bias = true;
  int64_t KH = 1;  // the consumer's filter size
  bool expectFused = true;
};

OpCase affineDepthwise(const AffineCase &c, std::optional<TestTensor> x) {
  OpCase op{"fusedConv2d",
            {std::move(x), f32({c.C, 1, 1, 1}, uniformFloats(c.C, 71), true),
             c.dwBias ? std::optional<TestTensor>(f32({c.C}, uniformFloats(c.C, 72), true)) : std::nullopt},
            {outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C})}};
  op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", c.C);
  op.attrString("activation", c.dwActivation);
  if (c.dwActivation == "clamp") op.attrFloat("activationMinValue", -0.25).attrFloat("activationMaxValue", 0.5);
  return op;
}

OpCase affineConsumer(const AffineCase &c, std::optional<TestTensor> input) {
  const int64_t pad = c.KH / 2;
  OpCase op{c.activation != "none" ? "fusedConv2d" : "conv2d",
            {std::move(input), f32({c.O, c.KH, c.KH, c.C}, uniformFloats(c.O * c.KH * c.KH * c.C, 73), true),
             c.bias ? std::optional<TestTensor>(f32({c.O}, uniformFloats(c.O, 74), true)) : std::nullopt},
            {outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.O})}};
  op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
  if (pad) op.attrInts("padding", {pad, pad, pad, pad});
  if (op.op == "fusedConv2d") op.attrString("activation", c.activation);
  if (c.activation == "clamp") op.attrFloat("activationMinValue", -0.5).attrFloat("activationMaxValue", 1.0);
  return op;
}

// The pair of `producer` and `consumer`, its output over the producer's
// input (runPairOverInput), against the two nodes run apart: made, and within
// 1e-4 relative at 1 and 2 threads.
void expectPairOverInputMatches(const OpCase &producer, const OpCase &consumer, const std::string &name) {
  OpCase first = producer;
  ASSERT_TRUE(runOp(first).isOk()) << name;
  OpCase second = consumer;
  second.inputs[0] = first.outputs[0];
  ASSERT_TRUE(runOp(second).isOk()) << name;
  const std::vector<double> want = second.outputs[0].values();
  for (int threads : {1, 2}) {
    OpCase a = producer, b = consumer;
    std::vector<float> got;
    bool fused = false;
    ASSERT_TRUE(runPairOverInput(a, b, threads, &got, &fused).isOk()) << name;
    ASSERT_TRUE(fused) << name;
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << name << ", " << i;
  }
}

TEST(FusedConv2d, PairOutputOverInput) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the pair kernels need AVX-512";
  // The SE scale + narrow 1x1 (RegNetY-400MF's block2 placed its output over x).
  for (bool residual : {false, true}) {
    const int64_t H = 28, W = 28, C = 104, O = residual ? 104 : 24;
    std::vector<float> x = uniformFloats(H * W * C, 61), sc = uniformFloats(C, 62), w = uniformFloats(O * C, 63),
                       r = uniformFloats(H * W * O, 64);
    OpCase mul{"mul", {f32({1, H, W, C}, x), f32({1, 1, 1, C}, sc)}, {outSpec(DataType::kFloat32, {1, H, W, C})}};
    OpCase conv{"fusedConv2d",
                {outSpec(DataType::kFloat32, {1, H, W, C}), f32({O, 1, 1, C}, w, true), std::nullopt},
                {outSpec(DataType::kFloat32, {1, H, W, O})}};
    if (residual) conv.inputs.push_back(f32({1, H, W, O}, r));
    conv.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrString("activation", "relu");
    expectPairOverInputMatches(mul, conv, "SE pair, residual " + std::to_string(residual));
  }
  // The expand + depthwise pair (EfficientNet-B0's features.2.0 shape, SiLU on both).
  {
    const int64_t H = 112, W = 112, K = 16, C = 96;
    std::vector<float> x = uniformFloats(H * W * K, 65), pw = uniformFloats(C * K, 66), dw = uniformFloats(9 * C, 67);
    OpCase a{"fusedConv2d", {f32({1, H, W, K}, x), f32({C, 1, 1, K}, pw, true)}, {outSpec(DataType::kFloat32, {1, H, W, C})}};
    a.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrString("activation", "silu");
    OpCase b{"fusedConv2d", {outSpec(DataType::kFloat32, {1, H, W, C}), f32({C, 3, 3, 1}, dw, true)},
             {outSpec(DataType::kFloat32, {1, 56, 56, C})}};
    b.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", C);
    b.attrInts("padding", {0, 1, 0, 1}).attrInts("strides", {2, 2}).attrString("activation", "silu");
    expectPairOverInputMatches(a, b, "expand + depthwise pair");
  }
  // The channel affine + 1x1 (the two steps apart, through the intermediate).
  {
    AffineCase c{.H = 10, .W = 10, .C = 48, .O = 48};
    OpCase a = affineDepthwise(c, f32({1, c.H, c.W, c.C}, uniformFloats(c.H * c.W * c.C, 68)));
    OpCase b = affineConsumer(c, outSpec(DataType::kFloat32, {1, c.H, c.W, c.C}));
    expectPairOverInputMatches(a, b, "channel affine + 1x1 pair");
  }
}

// The expand + depthwise pair with y where the plan put MobileNetV2's,
// V3's and EfficientNet-B0's features.2 (over x, here also partly before
// and after it): still one pass. On one thread in place where a top-down
// or bottom-up pass allows (at x's first byte both do for one of the
// directions: the intermediate's bytes untouched), else, and on two
// threads, from x's copy in the intermediate's bytes (they hold x after
// the run, not the expanded tensor), except where those bytes are fewer
// than x's (a 1x1 that narrows): then the steps apart.
TEST(FusedConv2d, PointwiseDepthwisePairOverInputCopiesInput) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the pair kernel needs AVX-512";
  struct Case {
    int64_t H, W, K, C;
    const char *activation;
  };
  const Case cases[] = {{112, 112, 16, 64, "relu"}, {112, 112, 16, 96, "clamp"}, {128, 128, 32, 16, "relu"}};
  for (const Case &c : cases) {
    const std::string name = std::to_string(c.H) + "x" + std::to_string(c.W) + "x" + std::to_string(c.K) + " -> " +
                             std::to_string(c.C);
    const int64_t OH = c.H / 2, OW = c.W / 2;
    std::vector<float> x = uniformFloats(c.H * c.W * c.K, 91), pw = uniformFloats(c.C * c.K, 92),
                       pb = uniformFloats(c.C, 93), dw = uniformFloats(9 * c.C, 94);
    OpCase a{"fusedConv2d", {f32({1, c.H, c.W, c.K}, x), f32({c.C, 1, 1, c.K}, pw, true), f32({c.C}, pb, true)},
             {outSpec(DataType::kFloat32, {1, c.H, c.W, c.C})}};
    a.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrString("activation", c.activation);
    if (std::string(c.activation) == "clamp") a.attrFloat("activationMinValue", 0).attrFloat("activationMaxValue", 1.5);
    OpCase b{"fusedConv2d", {outSpec(DataType::kFloat32, {1, c.H, c.W, c.C}), f32({c.C, 3, 3, 1}, dw, true)},
             {outSpec(DataType::kFloat32, {1, OH, OW, c.C})}};
    b.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", c.C);
    b.attrInts("padding", {0, 1, 0, 1}).attrInts("strides", {2, 2}).attrString("activation", "relu");
    OpCase first = a;
    ASSERT_TRUE(runOp(first).isOk()) << name;
    OpCase second = b;
    second.inputs[0] = first.outputs[0];
    ASSERT_TRUE(runOp(second).isOk()) << name;
    const std::vector<double> want = second.outputs[0].values();
    const bool copies = c.C >= c.K;
    for (int64_t offset : {int64_t(0), c.W * c.K * 7 + 3, -(OW * c.C * 5 + 1)})
      for (int threads : {1, 2}) {
        OpCase pa = a, pb2 = b;
        std::vector<float> got, mid;
        bool fused = false;
        ASSERT_TRUE(runPairOverInput(pa, pb2, threads, &got, &fused, offset, &mid).isOk()) << name;
        ASSERT_TRUE(fused) << name;
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
              << name << " offset " << offset << " threads " << threads << ", " << i;
        // Untouched (runPairOverInput zeroes it), x's copy, or (apart) the
        // expanded tensor, which differs from both.
        const bool untouched = std::all_of(mid.begin(), mid.end(), [](float v) { return v == 0.f; });
        const size_t n = std::min(x.size(), mid.size());
        const bool copied = std::equal(x.begin(), x.begin() + int64_t(n), mid.begin());
        const std::string where = name + " offset " + std::to_string(offset) + " threads " + std::to_string(threads);
        if (threads == 1 && offset == 0) EXPECT_TRUE(untouched) << where;
        else if (threads == 2) EXPECT_EQ(copied, copies) << where;
        else if (copies) EXPECT_TRUE(untouched || copied) << where;
      }
  }
}

TEST(FusedConv2d, ScaledPointwisePair) {
  runScaleCase({});                                                  // EfficientNet-B0's features.2.0
  runScaleCase({.H = 112, .W = 112, .C = 32, .O = 16, .scaleFirst = true});  // features.1.0
  runScaleCase({.C = 144, .residual = true, .activation = "none"});  // features.2.1's residual join
  runScaleCase({.N = 2, .H = 9, .W = 13, .C = 40, .O = 20, .perImage = true, .bias = false, .activation = "silu"});
  runScaleCase({.N = 2, .H = 7, .W = 11, .C = 24, .O = 5, .activation = "relu"});  // one scale for both images
  runScaleCase({.H = 28, .W = 28, .C = 104, .O = 104, .residual = true, .activation = "relu"});  // RegNetY-400MF
  // Not paired: a wide 1x1 the narrow tiles do not take, a sigmoid, a filter
  // larger than the product.
  runScaleCase({.H = 28, .W = 28, .C = 240, .O = 40, .expectFused = false});
  runScaleCase({.activation = "sigmoid", .expectFused = false});
  runScaleCase({.H = 2, .W = 2, .C = 64, .O = 16, .expectFused = false});
}

void runAffineCase(const AffineCase &c) {
  const std::string name = std::to_string(c.N) + "x" + std::to_string(c.H) + "x" + std::to_string(c.W) + "x" +
                           std::to_string(c.C) + " -> " + std::to_string(c.O) + " " + c.dwActivation + "/" +
                           c.activation + " k" + std::to_string(c.KH);
  std::vector<float> x = uniformFloats(c.N * c.H * c.W * c.C, 70);
  OpCase first = affineDepthwise(c, f32({c.N, c.H, c.W, c.C}, x));
  ASSERT_TRUE(runOp(first).isOk()) << name;
  OpCase second = affineConsumer(c, first.outputs[0]);
  ASSERT_TRUE(runOp(second).isOk()) << name;
  const std::vector<double> want = second.outputs[0].values();
  for (int threads : {1, 2}) {
    ScopedKernelChoices choices;
    OpCase a = affineDepthwise(c, f32({c.N, c.H, c.W, c.C}, x));
    OpCase b = affineConsumer(c, outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C}));
    bool fused = false;
    Status s = runPair(a, b, threads, &fused);
    ASSERT_TRUE(s.isOk()) << name << ": " << s.message();
    ASSERT_EQ(fused, c.expectFused && kernels::avx512Available()) << name;
    if (!fused) continue;
    EXPECT_EQ(choices.last("fusedConv2d + " + b.op).chosen, "affine-pointwise pair") << name;
    expectPairNear(b.outputs[0].values(), want, name, threads);
    // A session's warm-up helper may prepare the pair while its first run
    // does: the same result, and no race (tsan preset).
    OpCase a2 = affineDepthwise(c, f32({c.N, c.H, c.W, c.C}, x));
    OpCase b2 = affineConsumer(c, outSpec(DataType::kFloat32, {c.N, c.H, c.W, c.C}));
    s = runPair(a2, b2, threads, &fused, /*warmUpBeside=*/true);
    ASSERT_TRUE(s.isOk()) << name << ": " << s.message();
    expectPairNear(b2.outputs[0].values(), want, name + " (warm-up beside the first run)", threads);
  }
}

TEST(FusedConv2d, AffinePointwisePair) {
  runAffineCase({});                                      // DenseNet-121's denseblock1 layer 1
  runAffineCase({.H = 7, .W = 7, .C = 992});              // denseblock4's last: K blocks of 128 and a tail
  runAffineCase({.N = 2, .H = 5, .W = 7, .C = 37, .O = 80});  // row tiles of 6 and 4 rows, a 16-column block
  runAffineCase({.H = 9, .W = 9, .C = 170, .O = 48, .dwActivation = "clamp", .activation = "none", .dwBias = false,
                 .bias = false});
  runAffineCase({.H = 3, .W = 11, .C = 20, .O = 32, .dwActivation = "none", .activation = "clamp"});
  // Not paired: output channels not a multiple of 16, a 3x3 consumer.
  runAffineCase({.H = 14, .W = 14, .C = 64, .O = 40, .expectFused = false});
  runAffineCase({.H = 14, .W = 14, .C = 64, .O = 32, .KH = 3, .expectFused = false});
}

// DenseNet's input: x a slice of a wider concat buffer, its rows `pitch`
// floats apart (the concat-view plan); the pair reads it in place.
TEST(FusedConv2d, AffinePointwisePairReadsAStridedInput) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the pair kernels need AVX-512";
  AffineCase c{.H = 11, .W = 13, .C = 40, .O = 48};
  const int64_t M = c.H * c.W, pitch = 72;
  std::vector<float> wide = uniformFloats(M * pitch, 75), x(size_t(M * c.C));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t ch = 0; ch < c.C; ++ch) x[size_t(m * c.C + ch)] = wide[size_t(m * pitch + ch)];
  OpCase first = affineDepthwise(c, f32({1, c.H, c.W, c.C}, x));
  ASSERT_TRUE(runOp(first).isOk());
  OpCase second = affineConsumer(c, first.outputs[0]);
  ASSERT_TRUE(runOp(second).isOk());
  const std::vector<double> want = second.outputs[0].values();

  OpCase a = affineDepthwise(c, f32({1, c.H, c.W, c.C}, x));
  OpCase b = affineConsumer(c, outSpec(DataType::kFloat32, {1, c.H, c.W, c.C}));
  OperandDesc xd{}, dwf{}, dwb{}, mid{}, w{}, bias{}, y{};
  auto constant = [](const TestTensor &t, OperandDesc *d) {
    d->dtype = t.dtype, d->shape = t.shape, d->constantData = t.bytes.data();
    return d;
  };
  xd.dtype = mid.dtype = y.dtype = DataType::kFloat32;
  xd.shape = mid.shape = {1, c.H, c.W, c.C};
  xd.rowPitch = pitch;
  y.shape = {1, c.H, c.W, c.O};
  NodeDesc an, bn;
  an.op = a.op, bn.op = b.op;
  an.name = bn.name = "strided";
  an.attributes = a.attrs, bn.attributes = b.attrs;
  an.inputs = {&xd, constant(*a.inputs[1], &dwf), constant(*a.inputs[2], &dwb)};
  an.outputs = {&mid};
  bn.inputs = {&mid, constant(*b.inputs[1], &w), constant(*b.inputs[2], &bias)};
  bn.outputs = {&y};
  std::string why;
  std::unique_ptr<Kernel> k = kernels::makeAffinePointwisePair(an, bn, &why);
  ASSERT_TRUE(k) << why;
  EXPECT_TRUE(k->honoursRowPitch());
  std::vector<float> out(size_t(M * c.O));
  TensorBuffer bufs[] = {{DataType::kFloat32, &xd.shape, wide.data()},
                         {DataType::kFloat32, &dwf.shape, const_cast<uint8_t *>(a.inputs[1]->bytes.data())},
                         {DataType::kFloat32, &dwb.shape, const_cast<uint8_t *>(a.inputs[2]->bytes.data())},
                         {DataType::kFloat32, &w.shape, const_cast<uint8_t *>(b.inputs[1]->bytes.data())},
                         {DataType::kFloat32, &bias.shape, const_cast<uint8_t *>(b.inputs[2]->bytes.data())}};
  const TensorBuffer *ins[] = {&bufs[0], &bufs[1], &bufs[2], nullptr, &bufs[3], &bufs[4]};
  TensorBuffer yb{DataType::kFloat32, &y.shape, out.data()};
  TensorBuffer *outs[] = {&yb};
  for (int threads : {1, 2}) {
    std::fill(out.begin(), out.end(), 0.f);
    ThreadPool pool(threads);
    KernelContext ctx{ins, 6, outs, 1, &pool};
    ASSERT_TRUE(k->run(ctx).isOk());
    expectPairNear(std::vector<double>(out.begin(), out.end()), want, "strided x", threads);
  }
}

TEST(FusedConv2d, SigmoidNoBias) {
  FusedCase c;
  c.name = "3x3 nchw sigmoid no bias";
  c.bias = false, c.activation = "sigmoid";
  runCase(c);
}

// SiLU: our kernels and oneDNN run without activation and a pass applies it
// after them (the depthwise kernel row block by row block); every path
// against the reference.
TEST(FusedConv2d, SiluOnEveryPath) {
  FusedCase c;
  c.activation = "silu", c.residual = false;
  c.name = "3x3 nchw silu";
  runCase(c);
  c.name = "3x3 nhwc residual silu";
  c.nhwc = true, c.residual = true;
  runCase(c);
  FusedCase d;
  d.activation = "silu", d.residual = false;
  d.nhwc = true, d.C = d.O = d.groups = 32, d.H = d.W = 14;
  d.name = "depthwise 3x3 nhwc silu";
  runCase(d);
  d.name = "depthwise 3x3 s2 nhwc silu";
  d.stride = 2;
  runCase(d);
  // Rows in blocks with SiLU after each (two 1392-float rows per block here,
  // an odd row count leaving a block of one).
  d.name = "depthwise 3x3 nhwc silu, row blocks";
  d.stride = 1, d.H = 37, d.W = 29, d.C = d.O = d.groups = 48;
  runCase(d);
  FusedCase p;
  p.activation = "silu", p.residual = false;
  p.nhwc = true, p.KH = p.KW = 1, p.pad = 0, p.H = p.W = 5, p.C = 64, p.O = 520;
  p.name = "1x1 nhwc 5x5x64->520 silu";
  runCase(p);
  p.name = "1x1 nhwc 12x12x64->24 silu";
  p.H = p.W = 12, p.O = 24;
  runCase(p);
  // The narrow tiles with SiLU after a residual, a row tail and a masked panel.
  p.name = "1x1 nhwc 29x31x100->270 residual silu";
  p.H = 29, p.W = 31, p.C = 100, p.O = 270, p.residual = true;
  runCase(p);
  p.residual = false;
  p.name = "3x3 nhwc 7x7x40->260 silu";
  p.KH = p.KW = 3, p.pad = 1, p.H = p.W = 7, p.C = 40, p.O = 260;
  runCase(p);
}

// hardSwish (MobileNetV3): oneDNN's post-op, or our kernels without
// activation and a pass after them; every path against the reference (the
// 1x1 cases' sums over 64-100 channels cross -3 and 3, the bends).
TEST(FusedConv2d, HardSwishOnEveryPath) {
  FusedCase c;
  c.activation = "hardSwish", c.residual = false;
  c.name = "3x3 nchw hardSwish";
  runCase(c);
  c.name = "3x3 nhwc residual hardSwish";
  c.nhwc = true, c.residual = true;
  runCase(c);
  FusedCase d;
  d.activation = "hardSwish", d.residual = false;
  d.nhwc = true, d.C = d.O = d.groups = 32, d.H = d.W = 14;
  d.name = "depthwise 3x3 nhwc hardSwish";
  runCase(d);
  d.name = "depthwise 3x3 s2 nhwc hardSwish";
  d.stride = 2;
  runCase(d);
  d.name = "depthwise 5x5 nhwc hardSwish";
  d.stride = 1, d.KH = d.KW = 5, d.pad = 2, d.H = d.W = 15;
  runCase(d);
  FusedCase p;
  p.activation = "hardSwish", p.residual = false;
  p.nhwc = true, p.KH = p.KW = 1, p.pad = 0, p.H = p.W = 5, p.C = 64, p.O = 520;
  p.name = "1x1 nhwc 5x5x64->520 hardSwish";
  runCase(p);
  p.name = "1x1 nhwc 12x12x64->24 hardSwish";
  p.H = p.W = 12, p.O = 24;
  runCase(p);
  p.name = "1x1 nhwc 29x31x100->270 residual hardSwish";
  p.H = 29, p.W = 31, p.C = 100, p.O = 270, p.residual = true;
  runCase(p);
}

// The conv epilogues' SiLU (Silu.h) against the formula in double, every
// tail length, and its ends: below -88 exactly 0, NaN stays NaN, +-inf.
TEST(FusedConv2d, SiluEpilogueValues) {
  std::vector<float> x = uniformFloats(4096, 41);
  for (size_t i = 0; i < x.size(); ++i) x[i] *= 40.f;  // [-40, 40]
  const float ends[] = {-1e30f, -200.f, -88.5f, -88.f, -87.5f, -20.f, -1e-30f, -0.f, 0.f, 1e-30f, 20.f,
                        88.f,   100.f,  1e30f};
  x.insert(x.begin(), std::begin(ends), std::end(ends));
  auto want = [](float v) { return double(v) / (1.0 + std::exp(-double(v))); };
  for (int64_t n : {int64_t(1), int64_t(15), int64_t(16), int64_t(17), int64_t(33), int64_t(x.size())}) {
    std::vector<float> y(x.begin(), x.begin() + n);
    kernels::siluInPlace(y.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const double w = x[size_t(i)] < -88.f ? 0.0 : want(x[size_t(i)]);
      ASSERT_NEAR(y[size_t(i)], w, 1e-6 * std::fabs(w) + 1e-37) << "x = " << x[size_t(i)] << ", n = " << n;
    }
  }
  float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                     -std::numeric_limits<float>::infinity()};
  kernels::siluInPlace(special, 3);
  EXPECT_TRUE(std::isnan(special[0]));
  EXPECT_EQ(special[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(special[2], 0.f);
}

TEST(FusedConv2d, Float16ResidualRelu) {
  FusedCase c;
  c.name = "float16 3x3 nhwc residual relu";
  c.nhwc = true, c.dtype = DataType::kFloat16;
  runCase(c);
}

TEST(FusedConv2d, RejectsResidualOfWrongShape) {
  OpCase op{"fusedConv2d",
            {f32({1, 4, 4, 2}, std::vector<float>(32, 1.f)), f32({3, 1, 1, 2}, std::vector<float>(6, 1.f), true),
             std::nullopt, f32({1, 4, 4, 2}, std::vector<float>(32, 1.f))},
            {outSpec(DataType::kFloat32, {1, 4, 4, 3})}};
  op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi");
  Status s = runOp(op, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("residual"), std::string::npos) << s.message();
}

TEST(FusedConv2d, RejectsUnknownActivation) {
  OpCase op{"fusedConv2d",
            {f32({1, 4, 4, 2}, std::vector<float>(32, 1.f)), f32({3, 1, 1, 2}, std::vector<float>(6, 1.f), true)},
            {outSpec(DataType::kFloat32, {1, 4, 4, 3})}};
  op.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrString("activation", "gelu");
  Status s = runOp(op, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("activation"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnn::cpu::test
