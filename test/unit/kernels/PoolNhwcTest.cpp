// The nhwc walk of averagePool2d, maxPool2d and l2Pool2d (kernels/Pooling.cpp:
// channel blocks with their accumulators in registers, the window's real
// taps precomputed) against the nchw walk of the same kernel on the
// transposed input: channel counts with full blocks and a tail, padding that
// trims windows on every side, dilation, strides, ceil rounding with windows
// wholly in the padding, batch 2, 1 and 2 threads. Both walks visit a
// window's taps in the same order, so the results are bit-identical.
// maxPool2d's nhwc walk runs twice: MaxPoolAvx512.cpp's row (where the CPU
// has AVX-512) and the portable one, over channel counts under, at and over
// its 16-lane vectors and 64-channel groups (3, 16, 24, 33, 40, 64 + 7).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::test {
namespace {

struct NhwcCase {
  int64_t N, C, H, W, KH, KW, sh, sw, dh, dw;
  std::vector<int64_t> pad;  // top, bottom, left, right
  bool ceil;
};

int64_t outSize(int64_t in, int64_t k, int64_t d, int64_t s, int64_t p0, int64_t p1, bool ceil) {
  int64_t span = in + p0 + p1 - (k - 1) * d - 1;
  return span / s + 1 + (ceil && span % s != 0 ? 1 : 0);
}

OpCase poolOp(const std::string &op, const NhwcCase &c, bool nhwc, TestTensor x, int64_t OH, int64_t OW) {
  OpCase p;
  p.op = op;
  p.attrInts("windowDimensions", {c.KH, c.KW}).attrInts("padding", c.pad);
  p.attrInts("strides", {c.sh, c.sw}).attrInts("dilations", {c.dh, c.dw});
  p.attrString("layout", nhwc ? "nhwc" : "nchw");
  if (c.ceil) p.attrString("roundingType", "ceil");
  p.inputs.push_back(std::move(x));
  p.outputs.push_back(outSpec(DataType::kFloat32, nhwc ? Shape{c.N, OH, OW, c.C} : Shape{c.N, c.C, OH, OW}));
  return p;
}

TEST(PoolNhwc, MatchesTheNchwWalk) {
  const std::vector<NhwcCase> cases = {
      // GoogLeNet / SqueezeNet's 3x3 stride-2 pool, ceil rounding: 150 channels
      // are two full float blocks and a tail.
      {1, 150, 13, 13, 3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, true},
      // Padding on every side, 64 channels (exactly one block), batch 2.
      {2, 64, 9, 8, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, false},
      // Asymmetric window, strides and dilation; padding wider than a dilated tap.
      {1, 70, 11, 12, 2, 3, 1, 2, 2, 2, {2, 0, 3, 1}, false},
      // Ceil rounding with padding as large as the window: windows wholly in
      // the padding.
      {1, 5, 5, 5, 2, 2, 2, 2, 1, 1, {2, 1, 2, 1}, true},
      // A window larger than the image.
      {1, 17, 3, 4, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, false},
      // ShuffleNetV2's stem pool: 3x3 stride 2 padding 1 over 24 channels.
      {1, 24, 14, 13, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, false},
      // GoogLeNet's branch pools: 3x3 stride 1 padding 1, ceil rounding.
      {1, 40, 7, 9, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, true},
      // One masked vector (3 channels), one full vector (16), a full vector
      // and a one-lane tail (33), four vectors and a tail group (71), batch 2.
      {1, 3, 6, 7, 3, 3, 2, 2, 1, 1, {0, 1, 1, 0}, true},
      {2, 16, 5, 6, 2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, false},
      {1, 33, 8, 8, 3, 2, 2, 1, 2, 1, {1, 2, 0, 1}, false},
      {2, 71, 6, 5, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, true},
  };
  for (const char *op : {"maxPool2d", "averagePool2d", "l2Pool2d"}) {
    for (size_t k = 0; k < cases.size(); ++k) {
      const NhwcCase &c = cases[k];
      const int64_t OH = outSize(c.H, c.KH, c.dh, c.sh, c.pad[0], c.pad[1], c.ceil);
      const int64_t OW = outSize(c.W, c.KW, c.dw, c.sw, c.pad[2], c.pad[3], c.ceil);
      const std::vector<float> nchw = uniformFloats(c.N * c.C * c.H * c.W, uint32_t(31 + k));
      std::vector<float> nhwc(nchw.size());
      for (int64_t n = 0; n < c.N; ++n)
        for (int64_t ch = 0; ch < c.C; ++ch)
          for (int64_t p = 0; p < c.H * c.W; ++p)
            nhwc[size_t((n * c.H * c.W + p) * c.C + ch)] = nchw[size_t((n * c.C + ch) * c.H * c.W + p)];
      OpCase ref = poolOp(op, c, false, f32({c.N, c.C, c.H, c.W}, nchw), OH, OW);
      ASSERT_TRUE(runOp(ref, 1).isOk()) << op << " case " << k;
      const float *want = ref.outputs[0].as<float>();
      for (int run = 0; run < 4; ++run) {
        const int threads = 1 + run % 2;
        const bool avx512 = run >= 2;  // maxPool2d: MaxPoolAvx512.cpp's row
        const bool had = kernels::setUseAvx512(avx512);
        if (avx512 && !kernels::useAvx512()) {
          kernels::setUseAvx512(had);
          continue;
        }
        OpCase got = poolOp(op, c, true, f32({c.N, c.H, c.W, c.C}, nhwc), OH, OW);
        Status s = runOp(got, threads);
        kernels::setUseAvx512(had);
        ASSERT_TRUE(s.isOk()) << op << " case " << k << ": " << s.message();
        const float *y = got.outputs[0].as<float>();
        int64_t mismatches = 0;
        for (int64_t n = 0; n < c.N; ++n)
          for (int64_t ch = 0; ch < c.C; ++ch)
            for (int64_t p = 0; p < OH * OW; ++p)
              mismatches += y[(n * OH * OW + p) * c.C + ch] != want[(n * c.C + ch) * OH * OW + p];
        EXPECT_EQ(mismatches, 0) << op << " case " << k << ", " << threads << " thread(s)"
                                 << (avx512 ? ", AVX-512" : ", portable");
      }
    }
  }
}

// maxPool2d in nhwc skips a NaN input and keeps the first of equal values
// (-0 before +0) on both walks: MaxPoolAvx512.cpp's max_ps operand order
// matches the portable `v > acc ? v : acc`. A window of NaNs only gives
// -inf, one wholly in the padding 0.
TEST(PoolNhwc, MaxNanAndSignedZeroMatchThePortableWalk) {
  const NhwcCase c{1, 24, 4, 4, 2, 2, 2, 2, 1, 1, {0, 1, 0, 1}, true};
  const int64_t OH = outSize(c.H, c.KH, c.dh, c.sh, c.pad[0], c.pad[1], c.ceil);
  const int64_t OW = outSize(c.W, c.KW, c.dw, c.sw, c.pad[2], c.pad[3], c.ceil);
  std::vector<float> x = uniformFloats(c.H * c.W * c.C, 5);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 0; i < x.size(); i += 3) x[i] = nan;
  for (int64_t ch = 0; ch < c.C; ++ch) {  // pixel (0,0) -0, (0,1) +0, (1,*) NaN: window (0,0) all of them
    x[size_t(ch)] = -0.f;
    x[size_t(c.C + ch)] = 0.f;
    x[size_t(c.W * c.C + ch)] = x[size_t((c.W + 1) * c.C + ch)] = nan;
  }
  for (int64_t ch = 0; ch < c.C; ++ch)  // window (0,1): NaN only
    for (int64_t p : {2, 3, 6, 7}) x[size_t(p * c.C + ch)] = nan;
  auto run = [&](bool avx512) {
    const bool had = kernels::setUseAvx512(avx512);
    OpCase got = poolOp("maxPool2d", c, true, f32({c.N, c.H, c.W, c.C}, x), OH, OW);
    EXPECT_TRUE(runOp(got, 1).isOk());
    kernels::setUseAvx512(had);
    const float *y = got.outputs[0].as<float>();
    return std::vector<float>(y, y + OH * OW * c.C);
  };
  const std::vector<float> portable = run(false);
  for (int64_t ch = 0; ch < c.C; ++ch) {
    EXPECT_TRUE(std::signbit(portable[size_t(ch)]) && portable[size_t(ch)] == 0.f) << ch;
    EXPECT_EQ(portable[size_t(c.C + ch)], -std::numeric_limits<float>::infinity()) << ch;
  }
  if (!kernels::useAvx512()) GTEST_SKIP() << "no AVX-512";
  const std::vector<float> vec = run(true);
  ASSERT_EQ(vec.size(), portable.size());
  EXPECT_EQ(std::memcmp(vec.data(), portable.data(), vec.size() * sizeof(float)), 0);
}

// A global average pool in nhwc (squeeze-excitation's) takes its own walk:
// 16-channel blocks over all pixels with four partial sums; threads take
// rows of one image where they split evenly (each part's sums added after),
// else the blocks. Against the sum in double: full blocks and a tail (8 wide
// and scalar), batch 2, pixel counts that do and do not divide by 4; 1, 2
// and 4 threads: rows in two parts (56x56, 28x28, 14x14x93) and four
// (32x32x40 at 4 threads), blocks for 7 and 3 rows on 2 threads, batch 2
// and a single row.
TEST(PoolNhwc, GlobalAverage) {
  struct Global {
    int64_t N, C, H, W;
  };
  for (const Global &c : {Global{1, 96, 56, 56}, Global{2, 37, 7, 7}, Global{1, 1152, 7, 7}, Global{1, 16, 1, 3},
                          Global{1, 104, 28, 28}, Global{2, 27, 5, 3}, Global{1, 93, 14, 14}, Global{1, 40, 32, 32},
                          Global{1, 64, 3, 200}}) {
    const std::vector<float> x = uniformFloats(c.N * c.H * c.W * c.C, 47);
    NhwcCase pc{c.N, c.C, c.H, c.W, c.H, c.W, 1, 1, 1, 1, {0, 0, 0, 0}, false};
    for (int threads : {1, 2, 4}) {
      OpCase got = poolOp("averagePool2d", pc, true, f32({c.N, c.H, c.W, c.C}, x), 1, 1);
      ASSERT_TRUE(runOp(got, threads).isOk());
      const float *y = got.outputs[0].as<float>();
      for (int64_t n = 0; n < c.N; ++n)
        for (int64_t ch = 0; ch < c.C; ++ch) {
          double sum = 0;
          for (int64_t p = 0; p < c.H * c.W; ++p) sum += x[size_t((n * c.H * c.W + p) * c.C + ch)];
          ASSERT_NEAR(y[n * c.C + ch], sum / double(c.H * c.W), 1e-6)
              << c.H << "x" << c.W << "x" << c.C << " channel " << ch << ", " << threads << " thread(s)";
        }
    }
  }
}

}  // namespace
}  // namespace webnn::cpu::test
