// Channels-last normalization paths (instanceNormalization nhwc in channel
// blocks, batchNormalization over the last axis) against a double-precision
// reference, on shapes with several channel blocks and a partial one; and
// the vectorized gelu against its definition.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

std::vector<float> randomFloats(int64_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &x : v) x = d(rng);
  return v;
}

// Blocks of 64 channels, the last one partial: 130 = 64 + 64 + 2 (one
// vector, 2 lanes), 51 (three full vectors and 3 lanes), 33, 16, 1; a
// 1-pixel image; and values offset by 100 from a spread of 1, where a
// one-pass E[x^2] - E[x]^2 in float would lose the variance.
TEST(NormalizationKernels, InstanceNormNhwcChannelBlocks) {
  struct Shape4 {
    int64_t N, H, W, C;
    float lo, hi;
  };
  const Shape4 shapes[] = {{2, 5, 7, 130, -3.f, 5.f}, {1, 37, 1, 51, -3.f, 5.f}, {1, 4, 4, 33, -3.f, 5.f},
                           {2, 3, 3, 16, -3.f, 5.f},  {1, 9, 2, 1, -3.f, 5.f},   {1, 1, 1, 20, -3.f, 5.f},
                           {1, 301, 1, 70, 99.f, 101.f}};
  uint32_t seed = 1;
  for (const Shape4 &sh : shapes) {
    const int64_t N = sh.N, H = sh.H, W = sh.W, C = sh.C;
    std::vector<float> x = randomFloats(N * H * W * C, seed++, sh.lo, sh.hi),
                       scale = randomFloats(C, seed++, 0.5f, 1.5f), bias = randomFloats(C, seed++, -1.f, 1.f);
    for (bool affine : {true, false}) {
      OpCase c{"instanceNormalization",
               {f32({N, H, W, C}, x), affine ? std::optional<TestTensor>(f32({C}, scale, true)) : std::nullopt,
                affine ? std::optional<TestTensor>(f32({C}, bias, true)) : std::nullopt},
               {outSpec(DataType::kFloat32, {N, H, W, C})}};
      c.attrString("layout", "nhwc").attrFloat("epsilon", 1e-3);
      for (int threads : {1, 2}) {
        ASSERT_TRUE(runOp(c, threads).isOk());
        std::vector<double> got = c.outputs[0].values();
        for (int64_t n = 0; n < N; ++n)
          for (int64_t ch = 0; ch < C; ++ch) {
            double sum = 0, sq = 0;
            for (int64_t p = 0; p < H * W; ++p) sum += x[size_t((n * H * W + p) * C + ch)];
            double mean = sum / double(H * W);
            for (int64_t p = 0; p < H * W; ++p) {
              double d = x[size_t((n * H * W + p) * C + ch)] - mean;
              sq += d * d;
            }
            double rstd = 1.0 / std::sqrt(sq / double(H * W) + 1e-3);
            for (int64_t p = 0; p < H * W; ++p) {
              size_t i = size_t((n * H * W + p) * C + ch);
              double want =
                  (x[i] - mean) * rstd * (affine ? scale[size_t(ch)] : 1.0) + (affine ? bias[size_t(ch)] : 0.0);
              ASSERT_NEAR(got[i], want, 1e-4 * (1 + std::fabs(want)))
                  << "C " << C << " n " << n << " c " << ch << " p " << p << " threads " << threads;
            }
          }
      }
    }
  }
}

TEST(NormalizationKernels, BatchNormLastAxis) {
  const int64_t N = 2, H = 3, W = 4, C = 37;
  std::vector<float> x = randomFloats(N * H * W * C, 4, -2.f, 2.f), mean = randomFloats(C, 5, -0.5f, 0.5f),
                     var = randomFloats(C, 6, 0.5f, 2.f), scale = randomFloats(C, 7, 0.5f, 1.5f),
                     bias = randomFloats(C, 8, -1.f, 1.f);
  OpCase c{"batchNormalization",
           {f32({N, H, W, C}, x), f32({C}, mean, true), f32({C}, var, true), f32({C}, scale, true),
            f32({C}, bias, true)},
           {outSpec(DataType::kFloat32, {N, H, W, C})}};
  c.attrInt("axis", 3).attrFloat("epsilon", 1e-5);
  ASSERT_TRUE(runOp(c, 2).isOk());
  std::vector<double> got = c.outputs[0].values();
  for (size_t i = 0; i < x.size(); ++i) {
    size_t ch = i % size_t(C);
    double want = (x[i] - mean[ch]) / std::sqrt(double(var[ch]) + 1e-5) * scale[ch] + bias[ch];
    ASSERT_NEAR(got[i], want, 1e-5 * (1 + std::fabs(want))) << i;
  }
}

TEST(NormalizationKernels, GeluMatchesDefinition) {
  const int64_t n = 1000;  // not a multiple of the vector width
  std::vector<float> x = randomFloats(n, 9, -6.f, 6.f);
  OpCase c{"gelu", {f32({n}, x)}, {outSpec(DataType::kFloat32, {n})}};
  ASSERT_TRUE(runOp(c, 2).isOk());
  std::vector<double> got = c.outputs[0].values();
  for (int64_t i = 0; i < n; ++i) {
    double v = x[size_t(i)], want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    ASSERT_NEAR(got[size_t(i)], want, 1e-5 * (1 + std::fabs(want))) << v;
  }
}

}  // namespace
}  // namespace webnn::cpu::test
