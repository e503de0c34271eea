// The conv2d family's candidate table (conv/Conv2dSelection.cpp): which
// kernel a node gets, and that every candidate before it says why it
// refused, oneDNN's own reason included.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::test {
namespace {

// nhwc float32 conv2d, constant filter (ohwi) and bias.
OpCase conv2d(int64_t H, int64_t W, int64_t C, int64_t O, int64_t K, int64_t groups, int64_t pad) {
  const int64_t OH = H + 2 * pad - K + 1, OW = W + 2 * pad - K + 1;
  std::vector<float> x(size_t(H * W * C), 0.5f), f(size_t(O * K * K * (C / groups)), 0.25f), b(size_t(O), 0.1f);
  OpCase c{"conv2d", {f32({1, H, W, C}, x), f32({O, K, K, C / groups}, f, true), f32({O}, b, true)},
           {outSpec(DataType::kFloat32, {1, OH, OW, O})}};
  c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", groups);
  c.attrInts("padding", {pad, pad, pad, pad});
  return c;
}

// A 3x3 layer of 16 -> 16 channels over 12x12 pixels is taken by none of our
// special kernels: each refuses with its reason, then oneDNN (here switched
// off) says its own, and the portable kernel runs it.
TEST(ConvSelection, EveryRefusalIsRecorded) {
#if WEBNN_HAVE_ONEDNN
  onednn::Policy saved = onednn::policy();
  onednn::Policy off = saved;
  off.enabled = false;
  onednn::setPolicy(off);
#endif
  ScopedKernelChoices choices;
  OpCase c = conv2d(12, 12, 16, 16, 3, 1, 1);
  Status s = runOp(c);
#if WEBNN_HAVE_ONEDNN
  onednn::setPolicy(saved);
#endif
  ASSERT_TRUE(s.isOk()) << s.message();
  const kernels::KernelChoice choice = choices.last("conv2d");
  EXPECT_EQ(choice.chosen, "portable") << choice.describe();
  const bool avx512 = kernels::avx512Available();
  EXPECT_EQ(choice.whyRefused("depthwise-avx512"), avx512 ? "not depthwise" : "no AVX-512");
  EXPECT_EQ(choice.whyRefused("pointwise-narrow"), avx512 ? "not 1x1, stride 1, unpadded" : "no AVX-512");
  EXPECT_EQ(choice.whyRefused("pointwise-packed-sgemm"), "not 1x1, stride 1, unpadded");
  EXPECT_EQ(choice.whyRefused("im2col-packed-sgemm"), "more than 64 output pixels");
  EXPECT_EQ(choice.whyRefused("row-window-packed-sgemm"), "filter height is not 1");
  EXPECT_EQ(choice.whyRefused("grouped-narrow-avx512"), avx512 ? "not grouped" : "no AVX-512");
  EXPECT_EQ(choice.whyRefused("silu-after-own-kernel"), "activation is not silu");
#if WEBNN_HAVE_ONEDNN
  // oneDNN's reason (onednn::Conv2d::create), not one of ours.
  EXPECT_NE(choice.whyRefused("onednn").find("disabled"), std::string::npos) << choice.describe();
#endif
  // In table order, the chosen one after every refusal.
  ASSERT_GE(choice.refused.size(), 5u);
  EXPECT_EQ(choice.refused.front().first, "depthwise-avx512");
  EXPECT_EQ(choice.refused.back().first, "pointwise-packed-sgemm-then-epilogue-after-onednn");
  const std::string text = choice.describe();
  EXPECT_NE(text.find("conv2d '"), std::string::npos) << text;
  EXPECT_NE(text.find(": portable (refused: depthwise-avx512: "), std::string::npos) << text;
}

// Residual block ends the narrow tiles take: over its dying residual (the
// plan's in-place output) oneDNN's sum post-op runs one of 56x56 pixels with
// no copy first, so the narrow tiles are tried after oneDNN there, narrow
// projections (72 -> 24) included; at 28x28 and where y has bytes of its
// own they stay first.
TEST(ConvSelection, BlockEndOverItsResidualGoesToOneDnnFrom56x56) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the narrow tiles need AVX-512";
  struct Case {
    int64_t side, C, O;
    bool over, oneDnnFirst;
  };
  for (const Case &k : {Case{56, 64, 256, false, false}, Case{56, 64, 256, true, true},
                        Case{28, 128, 512, true, false}, Case{56, 72, 24, true, true},
                        Case{56, 72, 24, false, false}}) {
    OpCase c = conv2d(k.side, k.side, k.C, k.O, 1, 1, 0);
    c.op = "fusedConv2d";
    c.inputs.push_back(f32({1, k.side, k.side, k.O}, std::vector<float>(size_t(k.side * k.side * k.O), 0.125f)));
    c.attrString("activation", "relu");
    if (k.over) c.outputOverInput = 3;
    const std::string label = std::to_string(k.side) + "x" + std::to_string(k.side) + (k.over ? " over" : "");
    ScopedKernelChoices choices;
    Status s = runOp(c);
    ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
    const kernels::KernelChoice choice = choices.last("fusedConv2d");
#if WEBNN_HAVE_ONEDNN
    EXPECT_EQ(choice.chosen, k.oneDnnFirst ? "onednn" : "pointwise-narrow") << label << ": " << choice.describe();
    if (k.oneDnnFirst)
      EXPECT_EQ(choice.whyRefused("pointwise-narrow"),
                "a residual block end over its residual, 3136 output pixels or more (tried after oneDNN)");
#else
    EXPECT_EQ(choice.chosen, "pointwise-narrow") << label << ": " << choice.describe();
#endif
    // 0.5 * 0.25 * C + 0.1 + 0.125, relu.
    const double want = 0.125 * double(k.C) + 0.225;
    for (double v : c.outputs[0].values()) ASSERT_NEAR(v, want, 1e-3) << label;
  }
}

// A debug switch's refusal names the environment variable that set it.
TEST(ConvSelection, DebugSwitchIsTheReason) {
  const bool saved = kernels::depthwiseAvx512Enabled();
  kernels::setDepthwiseAvx512Enabled(false);
  ScopedKernelChoices choices;
  OpCase c = conv2d(9, 9, 32, 32, 3, 32, 1);  // depthwise 3x3
  Status s = runOp(c);
  kernels::setDepthwiseAvx512Enabled(saved);
  ASSERT_TRUE(s.isOk()) << s.message();
  const kernels::KernelChoice choice = choices.last("conv2d");
  EXPECT_EQ(choice.whyRefused("depthwise-avx512"), "off (WEBNN_DEPTHWISE_AVX512=0)") << choice.describe();
  EXPECT_EQ(choice.whyRefused("depthwise-avx512-after-onednn"), "off (WEBNN_DEPTHWISE_AVX512=0)");
  EXPECT_NE(choice.chosen, "depthwise-avx512");
  EXPECT_FALSE(choice.chosen.empty());
  // The switch and the debug options are one value.
  EXPECT_EQ(debugOptions().depthwiseAvx512.load(), saved);
}

// Where the CPU has AVX-512 the same depthwise layer is our kernel's, first
// in the table, with nothing refused before it.
TEST(ConvSelection, FirstCandidateTakesDepthwise) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the depthwise kernel needs AVX-512";
  ScopedKernelChoices choices;
  OpCase c = conv2d(9, 9, 32, 32, 3, 32, 1);
  ASSERT_TRUE(runOp(c).isOk());
  const kernels::KernelChoice choice = choices.last("conv2d");
  EXPECT_EQ(choice.chosen, "depthwise-avx512") << choice.describe();
  EXPECT_TRUE(choice.refused.empty()) << choice.describe();
}

// nhwc float32 conv1d as conv2d (H = 1, filter 1 x K), constant filter
// (ohwi) and bias, padding `pad` on both ends of the row.
OpCase conv1d(int64_t W, int64_t C, int64_t O, int64_t K, int64_t stride, int64_t pad, int64_t dilation,
              int64_t groups) {
  const int64_t OW = (W + 2 * pad - dilation * (K - 1) - 1) / stride + 1;
  std::vector<float> x(size_t(W * C), 0.5f), f(size_t(O * K * (C / groups)), 0.25f), b(size_t(O), 0.1f);
  OpCase c{"conv2d", {f32({1, 1, W, C}, x), f32({O, 1, K, C / groups}, f, true), f32({O}, b, true)},
           {outSpec(DataType::kFloat32, {1, 1, OW, O})}};
  c.attrString("inputLayout", "nhwc").attrString("filterLayout", "ohwi").attrInt("groups", groups);
  c.attrInts("padding", {0, 0, pad, pad}).attrInts("strides", {1, stride}).attrInts("dilations", {1, dilation});
  return c;
}

// conv1d (the audio encoder's 512 -> 512, kernel 3, stride 2) goes to the
// row-window packed SGEMM; dilated, grouped and short ones do not, each
// with its reason; a SiLU epilogue runs it then the pass.
TEST(ConvSelection, Conv1dTakesRowWindowKernel) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  auto choiceOf = [](OpCase c) {
    ScopedKernelChoices choices;
    Status s = runOp(c);
    EXPECT_TRUE(s.isOk()) << s.message();
    return choices.last(c.op);
  };
  kernels::KernelChoice plain = choiceOf(conv1d(401, 512, 512, 3, 2, 1, 1, 1));
  EXPECT_EQ(plain.chosen, "row-window-packed-sgemm") << plain.describe();
  EXPECT_EQ(plain.whyRefused("im2col-packed-sgemm"), "more than 64 output pixels") << plain.describe();
  EXPECT_EQ(choiceOf(conv1d(401, 64, 128, 3, 1, 2, 2, 1)).whyRefused("row-window-packed-sgemm"),
            "dilated along the row");
  EXPECT_EQ(choiceOf(conv1d(401, 64, 128, 3, 1, 1, 1, 4)).whyRefused("row-window-packed-sgemm"), "grouped");
  EXPECT_EQ(choiceOf(conv1d(60, 64, 128, 3, 1, 1, 1, 1)).whyRefused("row-window-packed-sgemm"),
            "fewer than 64 output columns");
  EXPECT_EQ(choiceOf(conv1d(401, 64, 96, 3, 1, 1, 1, 1)).whyRefused("row-window-packed-sgemm"),
            "fewer than 128 output channels");
  EXPECT_EQ(choiceOf(conv1d(4000, 1, 512, 10, 5, 0, 1, 1)).whyRefused("row-window-packed-sgemm"),
            "window of fewer than 64 floats");
  OpCase silu = conv1d(200, 80, 256, 3, 1, 1, 1, 1);
  silu.op = "fusedConv2d";
  silu.attrString("activation", "silu");
  kernels::KernelChoice s = choiceOf(silu);
  EXPECT_EQ(s.chosen, "silu-after-own-kernel") << s.describe();
  EXPECT_EQ(s.detail, "row-window-packed-sgemm") << s.describe();
}

// The kernel choice of `c` run as fusedConv2d "silu".
kernels::KernelChoice siluChoice(OpCase c) {
  c.op = "fusedConv2d";
  c.attrString("activation", "silu");
  ScopedKernelChoices choices;
  Status s = runOp(c);
  EXPECT_TRUE(s.isOk()) << s.message();
  return choices.last("fusedConv2d");
}

// fusedConv2d "silu" on a narrow 1x1: the pointwise tiles apply SiLU
// themselves (row blocks), no pass after them.
TEST(ConvSelection, PointwiseNarrowTakesSiluItself) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the narrow pointwise kernel needs AVX-512";
  const kernels::KernelChoice choice = siluChoice(conv2d(8, 8, 16, 24, 1, 1, 0));
  EXPECT_EQ(choice.chosen, "pointwise-narrow") << choice.describe();
  EXPECT_EQ(choice.whyRefused("depthwise-avx512"), "not depthwise") << choice.describe();
}

// fusedConv2d "silu" on a wide 1x1 over few pixels: the packed SGEMM
// without activation, SiLU after it; the choice names the kernel inside and
// why the clamp-epilogue candidates refused.
TEST(ConvSelection, SiluPassNamesItsKernel) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  const kernels::KernelChoice choice = siluChoice(conv2d(8, 8, 256, 512, 1, 1, 0));
  EXPECT_EQ(choice.chosen, "silu-after-own-kernel") << choice.describe();
  EXPECT_EQ(choice.detail, "pointwise-packed-sgemm") << choice.describe();
  EXPECT_EQ(choice.whyRefused("pointwise-packed-sgemm"), "activation is not none, relu or clamp");
}

// fusedConv2d "silu" on a depthwise 3x3: the depthwise kernel applies SiLU
// itself (row blocks), so no pass after it and no oneDNN.
TEST(ConvSelection, DepthwiseTakesSiluItself) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the depthwise kernel needs AVX-512";
  const kernels::KernelChoice choice = siluChoice(conv2d(9, 9, 32, 32, 3, 32, 1));
  EXPECT_EQ(choice.chosen, "depthwise-avx512") << choice.describe();
  EXPECT_TRUE(choice.refused.empty()) << choice.describe();
}

// A 1x1 with >= 512 output channels: the packed SGEMM before oneDNN up to
// 783 output pixels, after it from 784 (28x28) up, so that oneDNN's
// brgconv_1x1 runs ResNeXt-50's 28x28 block ends; with oneDNN off the
// packed SGEMM still takes it, after oneDNN's refusal.
TEST(ConvSelection, PackedPointwiseFrom784PixelsAfterOneDnn) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  auto choiceOf = [](OpCase c) {
    ScopedKernelChoices choices;
    Status s = runOp(c);
    EXPECT_TRUE(s.isOk()) << s.message();
    return choices.last("conv2d");
  };
  kernels::KernelChoice small = choiceOf(conv2d(27, 29, 256, 512, 1, 1, 0));  // 783 pixels
  EXPECT_EQ(small.chosen, "pointwise-packed-sgemm") << small.describe();
  kernels::KernelChoice big = choiceOf(conv2d(28, 28, 256, 512, 1, 1, 0));
  EXPECT_EQ(big.whyRefused("pointwise-packed-sgemm"), "784 output pixels or more (tried after oneDNN)")
      << big.describe();
#if WEBNN_HAVE_ONEDNN
  EXPECT_EQ(big.chosen, "onednn") << big.describe();
  onednn::Policy saved = onednn::policy();
  onednn::Policy off = saved;
  off.enabled = false;
  onednn::setPolicy(off);
  kernels::KernelChoice noOneDnn = choiceOf(conv2d(28, 28, 256, 512, 1, 1, 0));
  onednn::setPolicy(saved);
  EXPECT_EQ(noOneDnn.chosen, "pointwise-packed-sgemm-after-onednn") << noOneDnn.describe();
  EXPECT_NE(noOneDnn.whyRefused("onednn").find("disabled"), std::string::npos) << noOneDnn.describe();
#else
  EXPECT_EQ(big.chosen, "pointwise-packed-sgemm-after-onednn") << big.describe();
#endif
}

// fusedConv2d with a residual on a 1x1 with >= 512 output channels: the
// packed SGEMM before oneDNN below 196 output pixels (ResNet-50's 7x7
// block ends), after it from 196 (14x14) up; without a residual 196 pixels
// stay on the packed SGEMM.
TEST(ConvSelection, PackedPointwiseWithResidualFrom196PixelsAfterOneDnn) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  auto choiceOf = [](int64_t H, bool residual) {
    OpCase c = conv2d(H, H, 256, 512, 1, 1, 0);
    c.op = "fusedConv2d";
    c.attrString("activation", "relu");
    if (residual) c.inputs.push_back(f32({1, H, H, 512}, std::vector<float>(size_t(H * H * 512), 0.5f)));
    ScopedKernelChoices choices;
    Status s = runOp(c);
    EXPECT_TRUE(s.isOk()) << s.message();
    return choices.last("fusedConv2d");
  };
  kernels::KernelChoice small = choiceOf(13, true);  // 169 pixels
  EXPECT_EQ(small.chosen, "pointwise-packed-sgemm") << small.describe();
  kernels::KernelChoice plain = choiceOf(14, false);
  EXPECT_EQ(plain.chosen, "pointwise-packed-sgemm") << plain.describe();
  kernels::KernelChoice big = choiceOf(14, true);
  EXPECT_EQ(big.whyRefused("pointwise-packed-sgemm"), "a residual and 196 output pixels or more (tried after oneDNN)")
      << big.describe();
#if WEBNN_HAVE_ONEDNN
  EXPECT_EQ(big.chosen, "onednn") << big.describe();
#else
  EXPECT_EQ(big.chosen, "pointwise-packed-sgemm-after-onednn") << big.describe();
#endif
}

// An inverted-residual expand (<= 160 input channels, >= 512 output
// channels): the packed SGEMM before oneDNN at 7x7, after it from 196
// output pixels (14x14) up, so that brgconv_1x1 runs MnasNet's and
// MobileNetV2's 14x14 96 -> 576 expands; 161 input channels stay packed.
TEST(ConvSelection, PackedExpandFrom196PixelsAfterOneDnn) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  auto choiceOf = [](int64_t H, int64_t C) {
    OpCase c = conv2d(H, H, C, 576, 1, 1, 0);
    c.op = "fusedConv2d";
    c.attrString("activation", "relu");
    ScopedKernelChoices choices;
    Status s = runOp(c);
    EXPECT_TRUE(s.isOk()) << s.message();
    return choices.last("fusedConv2d");
  };
  kernels::KernelChoice small = choiceOf(7, 96);
  EXPECT_EQ(small.chosen, "pointwise-packed-sgemm") << small.describe();
  kernels::KernelChoice wide = choiceOf(14, 161);
  EXPECT_EQ(wide.chosen, "pointwise-packed-sgemm") << wide.describe();
  kernels::KernelChoice expand = choiceOf(14, 160);
  EXPECT_EQ(expand.whyRefused("pointwise-packed-sgemm"),
            "<= 160 input channels and 196 output pixels or more (tried after oneDNN)")
      << expand.describe();
#if WEBNN_HAVE_ONEDNN
  EXPECT_EQ(expand.chosen, "onednn") << expand.describe();
#else
  EXPECT_EQ(expand.chosen, "pointwise-packed-sgemm-after-onednn") << expand.describe();
#endif
}

// A 1x1 over 64 pixels or fewer (7x7 maps) goes to the packed SGEMM from
// 192 output channels up, so that it runs MnasNet's and EfficientNet-B0's
// 7x7 projections (576 -> 192, 1152 -> 320); over more pixels it still
// needs 512.
TEST(ConvSelection, PackedPointwiseFrom192ChannelsAt7x7) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  auto choiceOf = [](int64_t H, int64_t O) {
    OpCase c = conv2d(H, H, 576, O, 1, 1, 0);
    ScopedKernelChoices choices;
    Status s = runOp(c);
    EXPECT_TRUE(s.isOk()) << s.message();
    return choices.last("conv2d");
  };
  kernels::KernelChoice project = choiceOf(7, 192);
  EXPECT_EQ(project.chosen, "pointwise-packed-sgemm") << project.describe();
  kernels::KernelChoice narrow = choiceOf(7, 160);
  EXPECT_EQ(narrow.whyRefused("pointwise-packed-sgemm"), "fewer than 192 output channels at 64 pixels or fewer")
      << narrow.describe();
  kernels::KernelChoice bigger = choiceOf(9, 192);  // 81 pixels
  EXPECT_EQ(bigger.whyRefused("pointwise-packed-sgemm"), "fewer than 512 output channels over 64 pixels")
      << bigger.describe();
}

// A plain 1x1 under oneDNN's FLOP floor that the tiles before oneDNN refuse
// (ShuffleNetV2 x0.5's 14x14 48 -> 48 and 7x7 96 -> 96, 0.9 MFLOP) goes to
// the packed SGEMM after oneDNN, whatever its channel counts, not to the
// portable kernel; one over the floor (14x14 64 -> 64) stays on oneDNN.
TEST(ConvSelection, PointwiseUnderOneDnnFloorTakesPackedSgemm) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  struct Case {
    int64_t side, C;
    bool underFloor;
  };
  for (const Case &k : {Case{14, 48, true}, Case{7, 96, true}, Case{14, 64, false}}) {
    OpCase c = conv2d(k.side, k.side, k.C, k.C, 1, 1, 0);
    c.op = "fusedConv2d";
    c.attrString("activation", "relu");
    const std::string label = std::to_string(k.side) + "x" + std::to_string(k.side) + " " + std::to_string(k.C);
    for (int threads : {1, 2}) {
      ScopedKernelChoices choices;
      Status s = runOp(c, threads);
      ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
      const kernels::KernelChoice choice = choices.last("fusedConv2d");
#if WEBNN_HAVE_ONEDNN
      if (k.underFloor) {
        EXPECT_EQ(choice.chosen, "pointwise-packed-sgemm-after-onednn") << label << ": " << choice.describe();
        EXPECT_EQ(choice.whyRefused("onednn"), "too small") << label << ": " << choice.describe();
      } else {
        EXPECT_EQ(choice.chosen, "onednn") << label << ": " << choice.describe();
      }
#else
      EXPECT_EQ(choice.chosen, "pointwise-packed-sgemm-after-onednn") << label << ": " << choice.describe();
#endif
      // 0.5 * 0.25 * C + 0.1, relu.
      const double want = 0.125 * double(k.C) + 0.1;
      for (double v : c.outputs[0].values()) ASSERT_NEAR(v, want, 1e-3) << label;
    }
  }
}

// One pixel (a squeeze-excitation's 1x1 after its global pool: RegNetY's
// 208 -> 52, 43 KB of filter, under oneDNN's floor and its GEMV rule's
// 64 KB): the packed SGEMM after oneDNN too; a sigmoid (the SE's second
// 1x1, 52 -> 208) as a pass after it. Fewer than 8 input channels
// (EfficientNet-B0's 4 -> 96) stay on the portable kernel.
TEST(ConvSelection, OnePixelPointwiseUnderOneDnnFloorTakesPackedSgemm) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed SGEMM kernels need AVX-512";
  struct Case {
    int64_t C, O;
    const char *activation, *kernel;
  };
  for (const Case &k : {Case{208, 52, "relu", "pointwise-packed-sgemm-after-onednn"},
                        Case{52, 208, "sigmoid", "pointwise-packed-sgemm-then-epilogue-after-onednn"},
                        Case{4, 96, "sigmoid", "portable"}}) {
    OpCase c = conv2d(1, 1, k.C, k.O, 1, 1, 0);
    c.op = "fusedConv2d";
    c.attrString("activation", k.activation);
    const std::string label = std::to_string(k.C) + " -> " + std::to_string(k.O) + " " + k.activation;
    ScopedKernelChoices choices;
    Status s = runOp(c);
    ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
    const kernels::KernelChoice choice = choices.last("fusedConv2d");
    EXPECT_EQ(choice.chosen, k.kernel) << label << ": " << choice.describe();
    // 0.5 * 0.25 * C + 0.1, then the activation.
    const double sum = 0.125 * double(k.C) + 0.1;
    const double want = std::string(k.activation) == "relu" ? sum : 1.0 / (1.0 + std::exp(-sum));
    for (double v : c.outputs[0].values()) ASSERT_NEAR(v, want, 1e-5 * (1 + want)) << label;
  }
}

// fusedConv2d "hardSwish": the depthwise 3x3 and the packed SGEMM run
// without activation and a pass after them (the choice names the kernel
// inside); a 1x1 our kernels refuse goes to oneDNN with its hardswish
// post-op.
TEST(ConvSelection, HardSwishOnOurKernelsOrOneDnn) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "our kernels need AVX-512";
  auto choiceOf = [](OpCase c) {
    c.op = "fusedConv2d";
    c.attrString("activation", "hardSwish");
    ScopedKernelChoices choices;
    Status s = runOp(c);
    EXPECT_TRUE(s.isOk()) << s.message();
    return choices.last("fusedConv2d");
  };
  kernels::KernelChoice dw = choiceOf(conv2d(9, 9, 32, 32, 3, 32, 1));
  EXPECT_EQ(dw.chosen, "depthwise-avx512") << dw.describe();
  kernels::KernelChoice packed = choiceOf(conv2d(8, 8, 256, 512, 1, 1, 0));
  EXPECT_EQ(packed.chosen, "hardswish-after-own-kernel") << packed.describe();
  EXPECT_EQ(packed.detail, "pointwise-packed-sgemm") << packed.describe();
  EXPECT_EQ(packed.whyRefused("silu-after-own-kernel"), "activation is not silu") << packed.describe();
#if WEBNN_HAVE_ONEDNN
  kernels::KernelChoice wide = choiceOf(conv2d(28, 28, 48, 240, 1, 1, 0));
  EXPECT_EQ(wide.chosen, "onednn") << wide.describe();
  EXPECT_EQ(wide.whyRefused("hardswish-after-own-kernel").rfind("none of our kernels takes it", 0), 0u)
      << wide.describe();
#endif
}

}  // namespace
}  // namespace webnn::cpu::test
