// Transformer kernels against plain reference loops: the vectorized row
// kernels (exp through softmax, erf/gelu, layerNormalization over trailing
// axes) on both the AVX-512 and AVX2 paths, and webnn.fusedMatmul /
// webnn.fusedAttention through the registry, at odd sizes (1, tails that are
// not a multiple of 8 or 16) and 1 and 2 threads.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>

#include "runtime/backends/cpu/kernels/EncoderAttention.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"
#include "test/unit/kernels/KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

using kernels::Activation;

std::vector<float> randomValues(size_t n, uint32_t seed, float lo = -3.f, float hi = 3.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

double geluRef(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// Both instruction-set paths of the dispatchers (AVX-512 only where the CPU
// has it), the fused kernels included.
template <typename Fn>
void forEachPath(Fn &&fn) {
  bool had = kernels::setUseAvx512(false);
  fn("avx2", false);
  kernels::setUseAvx512(true);
  if (kernels::useAvx512()) fn("avx512", true);
  kernels::setUseAvx512(had);
}

TEST(TransformerSimd, ErfGeluExpAccuracy) {
  std::vector<float> x = randomValues(1003, 1, -6.f, 6.f);
  x.push_back(0.f);
  x.push_back(-0.f);
  x.push_back(1e-8f);
  std::vector<float> e(x.size()), g(x.size());
  forEachPath([&](const char *path, bool) {
    kernels::erfArray(x.data(), e.data(), int64_t(x.size()));
    kernels::geluArray(x.data(), g.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_NEAR(e[i], std::erf(double(x[i])), 2.5e-7) << path << " erf(" << x[i] << ")";
      double gr = geluRef(x[i]);
      // gelu's erf (erfRational) is within 3.4e-7 of erf, so gelu within
      // 0.5 |x| 3.4e-7 (+ rounding): relative only while gelu(x) ~ x.
      ASSERT_NEAR(g[i], gr, 2.5e-7 * std::max(1.0, std::abs(double(x[i])))) << path << " gelu(" << x[i] << ")";
    }
  });
}

// Far below 0 gelu is a tiny negative number: 0.5 x (1 + erf) must not
// come out positive where the fitted erf overshoots -1 by an ULP.
TEST(TransformerSimd, GeluNegativeTail) {
  std::vector<float> x;
  for (float v = -6.f; v > -120.f; v -= 0.37f) x.push_back(v);
  std::vector<float> g(x.size());
  forEachPath([&](const char *path, bool) {
    kernels::geluArray(x.data(), g.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_LE(g[i], 0.f) << path << " gelu(" << x[i] << ")";
      ASSERT_GE(g[i], -1e-6f) << path << " gelu(" << x[i] << ")";
    }
  });
}

// WPT's gelu bound, 18 ULP of the float32 result, over its inputs' range
// (|x| < 1), every 2^-12 and the tails of a vector.
TEST(TransformerSimd, GeluWithinWptUlpNearZero) {
  std::vector<float> x;
  for (int i = -4096; i <= 4096; ++i) x.push_back(float(i) / 4096.f);
  x.push_back(1e-30f);
  x.push_back(-1e-30f);
  std::vector<float> g(x.size());
  forEachPath([&](const char *path, bool) {
    kernels::geluArray(x.data(), g.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = float(geluRef(x[i]));
      int32_t a, b;
      std::memcpy(&a, &g[i], 4);
      std::memcpy(&b, &want, 4);
      ASSERT_LE(std::abs(int64_t(a) - int64_t(b)), 18) << path << " gelu(" << x[i] << ") = " << g[i] << ", want " << want;
    }
  });
}

// sigmoidArray (webnn sigmoid's float32 path) against the double formula:
// within 8 ulp wherever the result is a normal float (the WPT bound is 32);
// above 80 exactly 1; where the true result is below the smallest normal
// float (x < -87.33), within that smallest normal of it; NaN stays NaN;
// lengths not a multiple of the vector.
TEST(TransformerSimd, SigmoidAccuracy) {
  std::vector<float> x = randomValues(2001, 3, -90.f, 90.f);
  for (float v : {0.f, -0.f, 79.9f, 80.f, 80.1f, -79.9f, -80.f, -80.1f, -87.5f, -88.5f, -88.8f, -100.f, 100.f, 1e-8f,
                  INFINITY, -INFINITY})
    x.push_back(v);
  x.insert(x.begin() + 5, NAN);  // inside a full vector
  std::vector<float> y(x.size());
  forEachPath([&](const char *path, bool) {
    kernels::sigmoidArray(x.data(), y.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        ASSERT_TRUE(std::isnan(y[i])) << path;
        continue;
      }
      if (x[i] > 80.f) {
        ASSERT_EQ(y[i], 1.f) << path << " sigmoid(" << x[i] << ")";
        continue;
      }
      double ref = 1.0 / (1.0 + std::exp(-double(x[i])));
      if (ref < double(FLT_MIN)) {
        ASSERT_LE(std::abs(y[i] - ref), double(FLT_MIN)) << path << " sigmoid(" << x[i] << ")";
        continue;
      }
      double ulp = std::max(double(std::nextafter(float(ref), INFINITY) - float(ref)), 1e-45);
      ASSERT_LE(std::abs(y[i] - ref), 8 * ulp) << path << " sigmoid(" << x[i] << ")";
    }
  });
}

// siluArray (the SiLU pass after our convolution kernels), in place, against
// x * sigmoid(x) in double: within 8 ulp of the result, or 1e-37 absolute
// where it underflows; NaN stays NaN; tails shorter than a vector.
TEST(TransformerSimd, SiluArrayInPlace) {
  std::vector<float> x = randomValues(1003, 7, -100.f, 100.f);
  x.insert(x.begin() + 3, NAN);
  forEachPath([&](const char *path, bool) {
    std::vector<float> y = x;
    kernels::siluArray(y.data(), int64_t(y.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        ASSERT_TRUE(std::isnan(y[i])) << path;
        continue;
      }
      double ref = double(x[i]) / (1.0 + std::exp(-double(x[i])));
      double ulp = std::max(double(std::nextafter(float(std::abs(ref)), INFINITY) - float(std::abs(ref))), 1e-37);
      ASSERT_LE(std::abs(y[i] - ref), 8 * ulp) << path << " silu(" << x[i] << ")";
    }
  });
}

// A row's max of alpha * x and sum of exp(alpha * x - max), in double: the
// terms of the reference softmax.
std::pair<double, double> softmaxRowTerms(const float *xr, int64_t n, float alpha) {
  double mx = -INFINITY, sum = 0;
  for (int64_t j = 0; j < n; ++j) mx = std::max(mx, double(alpha) * xr[j]);
  for (int64_t j = 0; j < n; ++j) sum += std::exp(double(alpha) * xr[j] - mx);
  return {mx, sum};
}

TEST(TransformerSimd, SoftmaxRowsMatchReference) {
  for (int64_t n : {1, 7, 16, 33, 128, 131}) {
    int64_t rows = 5;
    std::vector<float> x = randomValues(size_t(rows * n), uint32_t(n), -20.f, 20.f), y(x.size());
    forEachPath([&](const char *path, bool) {
      for (float alpha : {1.f, 0.125f}) {
        kernels::softmaxRows(x.data(), y.data(), rows, n, alpha);
        for (int64_t r = 0; r < rows; ++r) {
          const float *xr = x.data() + r * n;
          const auto [mx, sum] = softmaxRowTerms(xr, n, alpha);
          for (int64_t j = 0; j < n; ++j) {
            double ref = std::exp(double(alpha) * xr[j] - mx) / sum;
            // float rounding of alpha * x - max (|.| up to 40) moves exp by
            // 1.2e-7 relative per unit of the argument, as for std::exp.
            double arg = std::abs(double(alpha) * xr[j] - mx);
            ASSERT_NEAR(y[r * n + j], ref, (1e-6 + 1.2e-7 * arg) * ref + 1e-30) << path << " n=" << n << " alpha=" << alpha;
          }
        }
      }
    });
  }
}

// A causal mask's -inf lanes and scores far below the row's max: no output is
// denormal (an Intel core's FMAs take a microcode assist per denormal, so the
// attention's P x V after such a softmax ran ~100x slower): masked lanes are
// exactly 0, the rest as the reference, and every value 0 or >= FLT_MIN.
TEST(TransformerSimd, SoftmaxRowsWriteNoDenormals) {
  const float ninf = -INFINITY;
  for (int64_t n : {1, 2, 7, 16, 33, 64, 131}) {
    const int64_t rows = n;
    std::vector<float> x = randomValues(size_t(rows * n), uint32_t(40 + n), -4.f, 4.f), y(x.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        if (j > r) x[r * n + j] = ninf;                                   // causal mask
        else if (j % 5 == 3) x[r * n + j] = -95.f - float(j % 7);        // exp underflows past FLT_MIN
        else if (j % 5 == 4) x[r * n + j] = -FLT_MAX;                     // a finite "masked" score
      }
    forEachPath([&](const char *path, bool) {
      for (float alpha : {1.f, 0.125f}) {
        kernels::softmaxRows(x.data(), y.data(), rows, n, alpha);
        for (int64_t r = 0; r < rows; ++r) {
          const float *xr = x.data() + r * n;
          const auto [mx, sum] = softmaxRowTerms(xr, n, alpha);
          for (int64_t j = 0; j < n; ++j) {
            float v = y[r * n + j];
            ASSERT_TRUE(v == 0.f || v >= FLT_MIN) << path << " n=" << n << " row " << r << " lane " << j << ": " << v;
            if (xr[j] == ninf) ASSERT_EQ(v, 0.f) << path << " n=" << n << " masked lane " << j;
            double ref = std::exp(double(alpha) * xr[j] - mx) / sum;
            double arg = std::min(100.0, std::abs(double(alpha) * xr[j] - mx));  // as in SoftmaxRowsMatchReference
            ASSERT_NEAR(v, ref, (1e-6 + 1.2e-7 * arg) * ref + 2e-38) << path << " n=" << n << " alpha=" << alpha;
          }
        }
      }
    });
  }
}

TEST(TransformerSimd, LayerNormRowsMatchReference) {
  for (int64_t n : {1, 5, 16, 24, 384, 771}) {
    int64_t rows = 3;
    // An offset mean: the two-pass variance must not cancel.
    std::vector<float> x = randomValues(size_t(rows * n), uint32_t(10 + n), 99.f, 101.f), y(x.size());
    std::vector<float> scale = randomValues(size_t(n), 3), bias = randomValues(size_t(n), 4);
    forEachPath([&](const char *path, bool) {
      for (bool affine : {false, true}) {
        const float *s = affine ? scale.data() : nullptr, *b = affine ? bias.data() : nullptr;
        kernels::layerNormRows(x.data(), y.data(), rows, n, s, b, 1e-5f);
        for (int64_t r = 0; r < rows; ++r) {
          const float *xr = x.data() + r * n;
          double mean = 0, var = 0;
          for (int64_t j = 0; j < n; ++j) mean += xr[j];
          mean /= double(n);
          for (int64_t j = 0; j < n; ++j) var += (xr[j] - mean) * (xr[j] - mean);
          double rstd = 1.0 / std::sqrt(var / double(n) + 1e-5);
          for (int64_t j = 0; j < n; ++j) {
            double ref = (xr[j] - mean) * rstd * (s ? s[j] : 1.0) + (b ? b[j] : 0.0);
            ASSERT_NEAR(y[r * n + j], ref, 2e-4 * (1.0 + std::abs(ref))) << path << " n=" << n;
          }
        }
      }
    });
  }
}

TEST(TransformerKernels, LayerNormalizationTrailingAxes) {
  // [2, R, W] over axes [1, 2] (rows of R * W) and [2] (rows of W); ViT's
  // 197 rows of 768 run in the pool's units.
  for (Shape xs : {Shape{2, 3, 20}, Shape{2, 197, 768}})
  for (std::vector<int64_t> axes : {std::vector<int64_t>{1, 2}, std::vector<int64_t>{2}}) {
    const int64_t total = xs[0] * xs[1] * xs[2];
    std::vector<float> x = randomValues(size_t(total), 7);
    int64_t n = axes.size() == 2 ? xs[1] * xs[2] : xs[2];
    Shape ss = axes.size() == 2 ? Shape{xs[1], xs[2]} : Shape{xs[2]};
    std::vector<float> scale = randomValues(size_t(n), 8), bias = randomValues(size_t(n), 9);
    for (int threads : {1, 2, 3}) {
      OpCase c{"layerNormalization", {f32(xs, x), f32(ss, scale, true), f32(ss, bias, true)},
               {outSpec(DataType::kFloat32, xs)}, {}};
      c.attrInts("axes", axes).attrFloat("epsilon", 1e-5);
      ASSERT_TRUE(runOp(c, threads).isOk());
      const float *y = c.outputs[0].as<float>();
      for (int64_t r = 0; r < total / n; ++r) {
        double mean = 0, var = 0;
        for (int64_t j = 0; j < n; ++j) mean += x[r * n + j];
        mean /= double(n);
        for (int64_t j = 0; j < n; ++j) var += (x[r * n + j] - mean) * (x[r * n + j] - mean);
        double rstd = 1.0 / std::sqrt(var / double(n) + 1e-5);
        for (int64_t j = 0; j < n; ++j)
          ASSERT_NEAR(y[r * n + j], (x[r * n + j] - mean) * rstd * scale[j] + bias[j], 1e-5 * (1 + std::abs(bias[j]) + std::abs(scale[j]) * 4));
      }
    }
  }
}

// Reference: y = act(alpha * a x b + bias + residual), a [batch, M, K], b [K, N].
std::vector<double> fusedMatmulRef(const std::vector<float> &a, const std::vector<float> &b, int64_t rows,
                                   int64_t K, int64_t N, double alpha, const float *bias, const float *residual,
                                   Activation act) {
  std::vector<double> y(size_t(rows * N));
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(a[m * K + k]) * b[k * N + n];
      s = alpha * s + (bias ? bias[n] : 0.0) + (residual ? residual[m * N + n] : 0.0);
      if (act == Activation::kRelu) s = std::max(s, 0.0);
      if (act == Activation::kGelu) s = geluRef(s);
      y[m * N + n] = s;
    }
  return y;
}

TEST(TransformerKernels, FusedMatmulBiasResidualActivation) {
  struct Case {
    int64_t batch, M, K, N;
    bool bias, residual;
    const char *act;
    double alpha;
  };
  // Large enough for oneDNN (>= 1 MFLOP) and small enough for the SGEMM path.
  Case cases[] = {{1, 128, 96, 200, true, false, "gelu", 1.0}, {2, 64, 64, 48, true, true, "none", 1.0},
                  {1, 3, 5, 7, true, true, "relu", 1.0},      {3, 17, 33, 19, false, false, "none", 0.125},
                  {1, 1, 1, 1, true, false, "gelu", 2.0}};
  uint32_t seed = 100;
  for (const Case &k : cases) {
    int64_t rows = k.batch * k.M;
    std::vector<float> a = randomValues(size_t(rows * k.K), seed++, -1.f, 1.f);
    std::vector<float> b = randomValues(size_t(k.K * k.N), seed++, -1.f, 1.f);
    std::vector<float> bias = randomValues(size_t(k.N), seed++), res = randomValues(size_t(rows * k.N), seed++);
    Activation act = std::string(k.act) == "gelu" ? Activation::kGelu
                     : std::string(k.act) == "relu" ? Activation::kRelu : Activation::kNone;
    std::vector<double> ref = fusedMatmulRef(a, b, rows, k.K, k.N, k.alpha, k.bias ? bias.data() : nullptr,
                                             k.residual ? res.data() : nullptr, act);
    forEachPath([&](const char *path, bool) {
    // A b given at run time leaves the epilogue to its own pass (in units).
    for (bool constantB : {true, false})
    for (int threads : {1, 2, 3}) {
      OpCase c{"fusedMatmul",
               {f32({k.batch, k.M, k.K}, a), f32({k.K, k.N}, b, constantB),
                k.bias ? std::optional<TestTensor>(f32({k.N}, bias, true)) : std::nullopt,
                k.residual ? std::optional<TestTensor>(f32({k.batch, k.M, k.N}, res)) : std::nullopt},
               {outSpec(DataType::kFloat32, {k.batch, k.M, k.N})}, {}};
      c.attrString("activation", k.act).attrFloat("alpha", k.alpha);
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      const float *y = c.outputs[0].as<float>();
      for (size_t i = 0; i < ref.size(); ++i)
        ASSERT_NEAR(y[i], ref[i], 1e-4 * (1 + std::abs(ref[i]))) << path << " M=" << k.M << " N=" << k.N << " i=" << i;
    }
    });
  }
}

TEST(TransformerKernels, FusedMatmulRejectsBadOperands) {
  OpCase c{"fusedMatmul", {f32({4, 8}, randomValues(32, 1)), f32({8, 5}, randomValues(40, 2)),
                           f32({4}, randomValues(4, 3))},
           {outSpec(DataType::kFloat32, {4, 5})}, {}};
  EXPECT_FALSE(runOp(c).isOk());  // bias must have N = 5 values
  OpCase d{"fusedMatmul", {f32({4, 8}, randomValues(32, 1)), f32({8, 5}, randomValues(40, 2))},
           {outSpec(DataType::kFloat32, {4, 5})}, {}};
  d.attrString("activation", "tanh");
  EXPECT_FALSE(runOp(d).isOk());
  // matmul's own checks run on the product before a kernel is chosen, also
  // for a constant B the packed GEMM would take.
  OpCase e{"fusedMatmul", {f32({32, 8}, randomValues(256, 1)), f32({7, 64}, randomValues(448, 2), true)},
           {outSpec(DataType::kFloat32, {32, 64})}, {}};
  Status s = runOp(e);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("inner dimensions differ"), std::string::npos) << s.message();
}

// softmax(scale Q K^T) V per batch and head, in double; q [B, S, H * Dh],
// k and v [B, T, H * Dh].
std::vector<double> attentionRef(const std::vector<float> &q, const std::vector<float> &kk, const std::vector<float> &v,
                                 int64_t B, int64_t S, int64_t T, int64_t H, int64_t Dh, double scale) {
  const int64_t D = H * Dh;
  std::vector<double> ref(size_t(B * S * D));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t s = 0; s < S; ++s) {
        std::vector<double> p(static_cast<size_t>(T));
        double mx = -INFINITY, sum = 0;
        for (int64_t t = 0; t < T; ++t) {
          double dot = 0;
          for (int64_t d = 0; d < Dh; ++d)
            dot += double(q[(b * S + s) * D + h * Dh + d]) * kk[(b * T + t) * D + h * Dh + d];
          p[size_t(t)] = scale * dot;
          mx = std::max(mx, p[size_t(t)]);
        }
        for (double &x : p) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < Dh; ++d) {
          double acc = 0;
          for (int64_t t = 0; t < T; ++t) acc += p[size_t(t)] / sum * v[(b * T + t) * D + h * Dh + d];
          ref[(b * S + s) * D + h * Dh + d] = acc;
        }
      }
  return ref;
}

// Every path: the portable per-head SGEMMs, oneDNN's batched matmuls and
// (Dh a multiple of 16 on AVX-512) our encoder tiles (EncoderAttention.h),
// whose cases cover T off the 16- and 48-key steps, S != T, every
// register-tile width of P x V (Dh 16 to 128), a negative scale, and heads
// cut into pieces of rows at 2 and 3 threads.
TEST(TransformerKernels, FusedAttentionMatchesReference) {
  struct Case {
    int64_t B, S, T, H, Dh;
    double scale;
  };
  Case cases[] = {{1, 128, 128, 12, 64, 0.125}, {2, 5, 7, 3, 4, 0.5},      {1, 1, 1, 1, 1, 1.0},
                  {1, 9, 9, 2, 3, -0.7},        {1, 197, 197, 2, 64, 0.125}, {2, 30, 17, 3, 16, 0.3},
                  {1, 50, 49, 1, 32, -0.5},      {3, 1, 33, 2, 48, 0.2},      {1, 61, 100, 1, 128, 0.09},
                  {1, 26, 65, 2, 80, 0.1},       {1, 13, 1, 1, 96, 1.0},      {1, 40, 20, 1, 112, 0.1}};
  uint32_t seed = 300;
  for (const Case &k : cases) {
    int64_t D = k.H * k.Dh;
    std::vector<float> q = randomValues(size_t(k.B * k.S * D), seed++, -2.f, 2.f);
    std::vector<float> kk = randomValues(size_t(k.B * k.T * D), seed++, -2.f, 2.f);
    std::vector<float> v = randomValues(size_t(k.B * k.T * D), seed++, -2.f, 2.f);
    std::vector<double> ref = attentionRef(q, kk, v, k.B, k.S, k.T, k.H, k.Dh, k.scale);
    for (bool tiles : {true, false})
      for (int threads : {1, 2, 3}) {
        kernels::setEncoderAttentionEnabled(tiles);
        OpCase c{"fusedAttention", {f32({k.B, k.S, D}, q), f32({k.B, k.T, D}, kk), f32({k.B, k.T, D}, v)},
                 {outSpec(DataType::kFloat32, {k.B, k.S, D})}, {}};
        c.attrInt("heads", k.H).attrFloat("scale", k.scale);
        Status st = runOp(c, threads);
        kernels::setEncoderAttentionEnabled(true);
        ASSERT_TRUE(st.isOk()) << st.message();
        const float *y = c.outputs[0].as<float>();
        for (size_t i = 0; i < ref.size(); ++i)
          ASSERT_NEAR(y[i], ref[i], 1e-5 * (1 + std::abs(ref[i])))
              << "S=" << k.S << " T=" << k.T << " Dh=" << k.Dh << " tiles=" << tiles << " threads=" << threads
              << " i=" << i;
      }
  }
}

// The encoder tiles called directly (the op test above cannot tell which
// kernel ran): strided heads, a piece of rows (nothing written outside
// them), a row whose scores reach 120 below its max (exp's clamp) and a NaN
// in one key, which every row attends.
TEST(TransformerKernels, EncoderAttentionTiles) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX-512 on this CPU: the tiles do not run here";
  const int64_t S = 37, T = 53, Dh = 32, stride = 3 * Dh;
  std::vector<float> q = randomValues(size_t(S * stride), 7, -1.f, 1.f);
  std::vector<float> k = randomValues(size_t(T * stride), 8, -1.f, 1.f);
  std::vector<float> v = randomValues(size_t(T * stride), 9, -1.f, 1.f);
  for (int64_t d = 0; d < Dh; ++d) q[size_t(5 * stride + d)] = d == 0 ? 60.f : 0.f;  // row 5: key scores ~ 60 k[t][0]
  k[size_t(0 * stride)] = 1.f;
  k[size_t(1 * stride)] = -1.f;  // key 1 scores 120 below key 0 in row 5
  std::vector<float> y(size_t(S * stride), -7.f), scratch(size_t(kernels::encoderAttentionScratchFloats(T, Dh)));
  kernels::EncoderAttentionHead h{q.data(), k.data(), v.data(), y.data(), S, T, Dh, stride, stride, stride, 1.f};
  kernels::encoderAttentionAvx512(h, 3, 30, scratch.data());
  // The reference sees one head of width Dh: repack the strided rows.
  auto dense = [&](const std::vector<float> &x, int64_t rows) {
    std::vector<float> o(size_t(rows * Dh));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t d = 0; d < Dh; ++d) o[size_t(r * Dh + d)] = x[size_t(r * stride + d)];
    return o;
  };
  std::vector<double> ref = attentionRef(dense(q, S), dense(k, T), dense(v, T), 1, S, T, 1, Dh, 1.0);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t d = 0; d < stride; ++d) {
      float got = y[size_t(s * stride + d)];
      if (s < 3 || s >= 30 || d >= Dh) {
        ASSERT_EQ(got, -7.f) << "wrote outside its rows or head: s=" << s << " d=" << d;
      } else {
        ASSERT_NEAR(got, ref[size_t(s * Dh + d)], 1e-5 * (1 + std::abs(ref[size_t(s * Dh + d)]))) << s << " " << d;
      }
    }
  // A NaN in key 2: every row sees every key, so every written output is NaN.
  k[size_t(2 * stride + 3)] = NAN;
  kernels::encoderAttentionAvx512(h, 0, S, scratch.data());
  for (int64_t s = 0; s < S; ++s) ASSERT_TRUE(std::isnan(y[size_t(s * stride)])) << s;
}

TEST(TransformerKernels, FusedAttentionRejectsBadHeads) {
  OpCase c{"fusedAttention", {f32({1, 2, 6}, randomValues(12, 1)), f32({1, 2, 6}, randomValues(12, 2)),
                              f32({1, 2, 6}, randomValues(12, 3))},
           {outSpec(DataType::kFloat32, {1, 2, 6})}, {}};
  c.attrInt("heads", 4).attrFloat("scale", 1.0);
  EXPECT_FALSE(runOp(c).isOk());
}

}  // namespace
}  // namespace webnn::cpu::test
