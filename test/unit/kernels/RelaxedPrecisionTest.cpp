// Relaxed precision (NodeDesc::relaxedPrecision, `webnnc compile --precision
// relaxed`): conv2d, fusedConv2d, matmul, gemm and fusedMatmul on oneDNN with
// bf16 operands and float32 accumulation. Each case runs exact and relaxed on
// the same inputs: where bf16 is available the relaxed result must stay
// within bf16's error of the exact one and must differ from it (bf16 really
// ran); where it is not (or WEBNN_BF16=0's policy), it must be bit-identical.
#include <gtest/gtest.h>

#include <cmath>

#include "KernelTestUtil.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif
#include "runtime/backends/cpu/kernels/EncoderAttention.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::test {
namespace {

#if WEBNN_HAVE_ONEDNN
int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::vector<double> run(OpCase c, bool relaxed, int threads, bool expectOneDnn, const std::string &label) {
  ScopedPackedSgemm packedOff(false);  // exact products on oneDNN, as relaxed ones
  c.relaxed = relaxed;
  ScopedRunCounting counting;  // executionCount() counts only then
  uint64_t before = onednn::executionCount();
  Status s = runOp(c, threads);
  EXPECT_TRUE(s.isOk()) << label << ": " << s.message();
  if (expectOneDnn) EXPECT_GT(onednn::executionCount() - before, 0u) << label << ": expected the oneDNN path";
  else EXPECT_EQ(onednn::executionCount() - before, 0u) << label << ": expected our own kernel";
  return c.outputs[0].values();
}

// Relaxed vs exact for `c` at 1 and 2 threads, with bf16 as the machine and
// policy allow, then with the policy's bf16 switched off.
// `exactOnOneDnn`: whether the exact kernel (and so the float32 fallback) runs on oneDNN.
void checkRelaxed(const OpCase &c, const std::string &what, bool exactOnOneDnn = true) {
  onednn::Policy saved = onednn::policy();
  for (bool allowBf16 : {true, false}) {
    onednn::Policy p = saved;
    p.bf16 = allowBf16;
    onednn::setPolicy(p);
    std::string why;
    bool bf16 = onednn::bf16Available(&why);
    if (!allowBf16) EXPECT_FALSE(bf16);
    for (int threads : {1, 2}) {
      std::string label = what + (bf16 ? " [bf16]" : " [float32: " + why + "]") + " threads=" + std::to_string(threads);
      std::vector<double> exact = run(c, false, threads, exactOnOneDnn, label + " exact");
      std::vector<double> relaxed = run(c, true, threads, exactOnOneDnn || bf16, label + " relaxed");
      ASSERT_EQ(exact.size(), relaxed.size()) << label;
      double maxAbs = 0, maxDiff = 0;
      for (size_t i = 0; i < exact.size(); ++i) {
        maxAbs = std::max(maxAbs, std::fabs(exact[i]));
        maxDiff = std::max(maxDiff, std::fabs(exact[i] - relaxed[i]));
      }
      if (bf16) {
        // bf16 keeps 8 significant bits: ~4e-3 per operand, partly averaging out over K.
        EXPECT_LE(maxDiff, 2e-2 * maxAbs) << label;
        EXPECT_GT(maxDiff, 1e-5 * maxAbs) << label << ": identical to float32, bf16 did not run";
      } else {
        EXPECT_EQ(maxDiff, 0.0) << label << ": the float32 fallback must equal the exact result";
      }
    }
  }
  onednn::setPolicy(saved);
}

OpCase convCase(const std::string &op, bool nhwc, int64_t C, int64_t H, int64_t O, int64_t K, int64_t stride,
                bool residual, uint32_t seed) {
  int64_t pad = K / 2, OH = (H + 2 * pad - K) / stride + 1;
  Shape xs = nhwc ? Shape{1, H, H, C} : Shape{1, C, H, H}, ys = nhwc ? Shape{1, OH, OH, O} : Shape{1, O, OH, OH};
  Shape fs = nhwc ? Shape{O, K, K, C} : Shape{O, C, K, K};
  OpCase c{op,
           {f32(xs, uniformFloats(count(xs), seed)), f32(fs, uniformFloats(count(fs), seed + 1), true),
            f32({O}, uniformFloats(O, seed + 2), true)},
           {outSpec(DataType::kFloat32, ys)}};
  if (residual) c.inputs.push_back(f32(ys, uniformFloats(count(ys), seed + 3)));
  c.attrString("inputLayout", nhwc ? "nhwc" : "nchw")
      .attrString("filterLayout", nhwc ? "ohwi" : "oihw")
      .attrInts("strides", {stride, stride})
      .attrInts("padding", {pad, pad, pad, pad});
  if (op == "fusedConv2d") c.attrString("activation", "relu");
  return c;
}

TEST(RelaxedPrecision, Conv2dAndFusedConv2d) {
  // 3x3 stride 1 (float32 would take Winograd; bf16 runs direct), 1x1 on
  // nchw, strided, and the fused form with its residual sum and relu post-ops.
  checkRelaxed(convCase("conv2d", true, 32, 20, 48, 3, 1, false, 10), "conv2d 3x3 nhwc");
  checkRelaxed(convCase("conv2d", false, 64, 20, 40, 1, 1, false, 20), "conv2d 1x1 nchw");
  checkRelaxed(convCase("conv2d", true, 24, 33, 40, 3, 2, false, 30), "conv2d 3x3 s2 nhwc");
  checkRelaxed(convCase("fusedConv2d", true, 32, 16, 32, 3, 1, true, 40), "fusedConv2d residual relu nhwc");
}

TEST(RelaxedPrecision, MatMulGemmFusedMatmul) {
  {  // constant b, a's batch folded into M
    OpCase c{"matmul", {f32({3, 64, 96}, uniformFloats(3 * 64 * 96, 1)), f32({96, 80}, uniformFloats(96 * 80, 2), true)},
             {outSpec(DataType::kFloat32, {3, 64, 80})}};
    checkRelaxed(c, "matmul const b");
  }
  {  // run-time b, converted per call
    OpCase c{"matmul", {f32({4, 33, 128}, uniformFloats(4 * 33 * 128, 3)), f32({4, 128, 65}, uniformFloats(4 * 128 * 65, 4))},
             {outSpec(DataType::kFloat32, {4, 33, 65})}};
    checkRelaxed(c, "matmul run-time b");
  }
  {  // gemm: transposes, alpha as output scale, beta * c as sum post-op
    OpCase c{"gemm",
             {f32({200, 70}, uniformFloats(200 * 70, 5)), f32({90, 200}, uniformFloats(90 * 200, 6), true),
              f32({90}, uniformFloats(90, 7), true)},
             {outSpec(DataType::kFloat32, {70, 90})}};
    c.attrBool("aTranspose", true).attrBool("bTranspose", true).attrFloat("alpha", 0.5).attrFloat("beta", 2.0);
    checkRelaxed(c, "gemm aT bT alpha beta c");
  }
  {  // fusedMatmul: the product in bf16, bias + gelu + residual in float32
    OpCase c{"fusedMatmul",
             {f32({1, 128, 256}, uniformFloats(128 * 256, 8)), f32({256, 192}, uniformFloats(256 * 192, 9), true),
              f32({192}, uniformFloats(192, 10), true), f32({1, 128, 192}, uniformFloats(128 * 192, 11))},
             {outSpec(DataType::kFloat32, {1, 128, 192})}};
    c.attrString("activation", "gelu");
    checkRelaxed(c, "fusedMatmul bias gelu residual");
  }
}

TEST(RelaxedPrecision, FusedAttention) {
  // Relaxed: batched bf16 oneDNN matmuls over strided head views, the output
  // written back in [B, S, H * Dh]. Exact (and relaxed without bf16): our
  // encoder tiles where AVX-512 runs them (EncoderAttention.h), else the
  // float32 oneDNN matmuls.
  for (double scale : {0.125, -0.25}) {
    const int64_t B = 2, S = 48, T = 40, D = 256;
    const bool tiles = kernels::useAvx512() && kernels::encoderAttentionEnabled() &&
                       kernels::encoderAttentionSupported(T, D / 4);
    OpCase c{"fusedAttention",
             {f32({B, S, D}, uniformFloats(B * S * D, 20)), f32({B, T, D}, uniformFloats(B * T * D, 21)),
              f32({B, T, D}, uniformFloats(B * T * D, 22))},
             {outSpec(DataType::kFloat32, {B, S, D})}};
    c.attrInt("heads", 4).attrFloat("scale", scale);
    checkRelaxed(c, "fusedAttention scale " + std::to_string(scale), !tiles);
  }
}

#else
TEST(RelaxedPrecision, NeedsOneDnn) { GTEST_SKIP() << "built without oneDNN: relaxed precision runs in float32"; }
#endif

}  // namespace
}  // namespace webnn::cpu::test
