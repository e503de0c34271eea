// The packed-B AVX-512 GEMM (kernels/PackedSgemm.h) through the registry:
// matmul and fusedMatmul against a double-precision reference at shapes that
// reach every edge (row tiles of 1-8, more than one 256-row chunk, last
// panels 1-47 columns wide, K in several blocks, threads' units across row
// chunks), 1-3 threads, with B packed
// at the first run and B taken prepacked from the artifact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "test/unit/kernels/KernelTestUtil.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::test {
namespace {

using kernels::Activation;

std::vector<float> uniform(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

struct Shape3 {
  int64_t M, K, N;
};

std::vector<double> reference(const std::vector<float> &a, const std::vector<float> &b, const Shape3 &s,
                              const std::vector<float> *bias, const std::vector<float> *residual, bool gelu,
                              double alpha) {
  std::vector<double> y(size_t(s.M * s.N));
  for (int64_t m = 0; m < s.M; ++m)
    for (int64_t n = 0; n < s.N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < s.K; ++k) acc += double(a[m * s.K + k]) * b[k * s.N + n];
      acc = alpha * acc + (bias ? (*bias)[n] : 0.0) + (residual ? (*residual)[m * s.N + n] : 0.0);
      if (gelu) acc = 0.5 * acc * (1.0 + std::erf(acc / std::sqrt(2.0)));
      y[m * s.N + n] = acc;
    }
  return y;
}

void expectClose(const OpCase &c, const std::vector<double> &ref, const Shape3 &s, const char *what) {
  const float *y = c.outputs[0].as<float>();
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(y[i], ref[i], 2e-5 * (1 + std::abs(ref[i])) * std::sqrt(double(s.K)))
        << what << " M=" << s.M << " K=" << s.K << " N=" << s.N << " element " << i;
}

class PackedSgemm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX-512 on this CPU: the kernel never runs";
    enabled_.emplace(true);
  }
  std::optional<ScopedPackedSgemm> enabled_;  // restores the switch after each test
  ScopedRunCounting counting_;                 // packedSgemmRuns counts in these tests
};

// {520, 24, 1000}: 3 row chunks x 21 panels, threads' units of 2-3 tasks
// that cross from one row chunk to the next.
const Shape3 kShapes[] = {{16, 16, 32},  {37, 64, 100},  {128, 96, 200},  {300, 40, 48},
                          {20, 1100, 33}, {65, 2500, 97}, {128, 768, 144}, {520, 24, 1000}};

TEST_F(PackedSgemm, MatmulMatchesReference) {
  uint32_t seed = 1;
  for (const Shape3 &s : kShapes) {
    std::vector<float> a = uniform(size_t(s.M * s.K), seed++), b = uniform(size_t(s.K * s.N), seed++);
    std::vector<double> ref = reference(a, b, s, nullptr, nullptr, false, 1.0);
    for (int threads : {1, 2, 3}) {
      // a's batch dimensions fold into M; b may carry leading ones.
      OpCase c{"matmul", {f32({1, s.M, s.K}, a), f32({1, s.K, s.N}, b, true)},
               {outSpec(DataType::kFloat32, {1, s.M, s.N})}, {}};
      uint64_t before = kernels::packedSgemmRuns();
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      EXPECT_EQ(kernels::packedSgemmRuns(), before + 1) << "M=" << s.M << " K=" << s.K << " N=" << s.N;
      expectClose(c, ref, s, "matmul");
    }
  }
}

TEST_F(PackedSgemm, FusedMatmulEpilogueMatchesReference) {
  uint32_t seed = 50;
  for (const Shape3 &s : kShapes) {
    std::vector<float> a = uniform(size_t(s.M * s.K), seed++), b = uniform(size_t(s.K * s.N), seed++);
    std::vector<float> bias = uniform(size_t(s.N), seed++), res = uniform(size_t(s.M * s.N), seed++);
    for (bool gelu : {false, true}) {
      double alpha = gelu ? 1.0 : 0.125;
      std::vector<double> ref = reference(a, b, s, &bias, gelu ? nullptr : &res, gelu, alpha);
      for (int threads : {1, 2}) {
        OpCase c{"fusedMatmul",
                 {f32({s.M, s.K}, a), f32({s.K, s.N}, b, true), f32({s.N}, bias, true),
                  gelu ? std::nullopt : std::optional<TestTensor>(f32({s.M, s.N}, res))},
                 {outSpec(DataType::kFloat32, {s.M, s.N})}, {}};
        c.attrString("activation", gelu ? "gelu" : "none").attrFloat("alpha", alpha);
        uint64_t before = kernels::packedSgemmRuns();
        Status st = runOp(c, threads);
        ASSERT_TRUE(st.isOk()) << st.message();
        EXPECT_EQ(kernels::packedSgemmRuns(), before + 1);
        expectClose(c, ref, s, gelu ? "fusedMatmul gelu" : "fusedMatmul residual");
      }
    }
  }
}

// gemm with a constant B (ONNX Gemm as a Linear layer: transB, a bias c of
// N values, alpha) runs the packed kernel; a c of M x N values, beta != 1
// or a transposed a stay with oneDNN or the portable kernel. All match the
// reference at 1-3 threads.
TEST_F(PackedSgemm, GemmMatchesReference) {
  uint32_t seed = 200;
  struct GemmCase {
    Shape3 s;
    bool bT, fullC, aT;
    double alpha, beta;
    bool packed;
  };
  const GemmCase cases[] = {{{197, 96, 100}, true, false, false, 1.0, 1.0, true},
                            {{37, 64, 100}, false, false, false, 0.5, 1.0, true},
                            {{520, 24, 1000}, true, false, false, 1.0, 1.0, true},
                            {{40, 32, 50}, true, true, false, 1.0, 1.0, false},
                            {{40, 32, 50}, true, false, false, 1.0, 0.5, false},
                            {{40, 32, 50}, false, false, true, 1.0, 1.0, false}};
  for (const GemmCase &g : cases) {
    const Shape3 &s = g.s;
    std::vector<float> a = uniform(size_t(s.M * s.K), seed++), b = uniform(size_t(s.K * s.N), seed++);
    std::vector<float> c = uniform(size_t(g.fullC ? s.M * s.N : s.N), seed++);
    // The reference's row-major a [M, K] and b [K, N], read from the
    // operands as the gemm's flags say.
    std::vector<float> aRef(a.size()), bRef(b.size()), cScaled(c.size());
    for (int64_t m = 0; m < s.M; ++m)
      for (int64_t k = 0; k < s.K; ++k) aRef[m * s.K + k] = g.aT ? a[k * s.M + m] : a[m * s.K + k];
    for (int64_t k = 0; k < s.K; ++k)
      for (int64_t n = 0; n < s.N; ++n) bRef[k * s.N + n] = g.bT ? b[n * s.K + k] : b[k * s.N + n];
    for (size_t i = 0; i < c.size(); ++i) cScaled[i] = float(g.beta * c[i]);
    std::vector<double> ref = reference(aRef, bRef, s, g.fullC ? nullptr : &cScaled, g.fullC ? &cScaled : nullptr,
                                        false, g.alpha);
    for (int threads : {1, 2, 3}) {
      OpCase op{"gemm",
                {f32(g.aT ? Shape{s.K, s.M} : Shape{s.M, s.K}, a), f32(g.bT ? Shape{s.N, s.K} : Shape{s.K, s.N}, b, true),
                 f32(g.fullC ? Shape{s.M, s.N} : Shape{s.N}, c, true)},
                {outSpec(DataType::kFloat32, {s.M, s.N})},
                {}};
      op.attrBool("bTranspose", g.bT).attrBool("aTranspose", g.aT).attrFloat("alpha", g.alpha).attrFloat("beta", g.beta);
      uint64_t before = kernels::packedSgemmRuns();
      Status st = runOp(op, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      EXPECT_EQ(kernels::packedSgemmRuns(), before + (g.packed ? 1 : 0))
          << "M=" << s.M << " K=" << s.K << " N=" << s.N << " bT=" << g.bT << " fullC=" << g.fullC;
      expectClose(op, ref, s, "gemm");
    }
  }
}

// B as the artifact stores it after `webnnc compile --prepack`: the kernel
// must read the packed copy, never the source (NaN here).
TEST_F(PackedSgemm, UsesPrepackedB) {
  const Shape3 s{40, 1500, 70};
  std::vector<float> a = uniform(size_t(s.M * s.K), 7), b = uniform(size_t(s.K * s.N), 8);
  std::vector<double> ref = reference(a, b, s, nullptr, nullptr, false, 1.0);
  kernels::PackedSgemmB layout(s.K, s.N);
  std::vector<float> packed(layout.bytes() / sizeof(float));
  layout.pack(b.data(), s.N, 1, packed.data());
  std::vector<float> poisoned(b.size(), std::numeric_limits<float>::quiet_NaN());
  OpCase c{"matmul", {f32({s.M, s.K}, a), f32({s.K, s.N}, poisoned, true)}, {outSpec(DataType::kFloat32, {s.M, s.N})},
           {}};
  c.packed.push_back({1, layout.layoutName(), packed.data(), layout.bytes()});
  Status st = runOp(c, 2);
  ASSERT_TRUE(st.isOk()) << st.message();
  expectClose(c, ref, s, "prepacked");
}

// What the kernel leaves to others: a non-constant b, bf16 (relaxed)
// products, one-row products (GEMVs), and everything when switched off.
TEST_F(PackedSgemm, LeavesOtherProductsAlone) {
  std::vector<float> a = uniform(64 * 64, 3), b = uniform(64 * 64, 4);
  auto runs = [&](bool constantB, int64_t M, bool relaxed) {
    OpCase c{"matmul", {f32({M, 64}, std::vector<float>(a.begin(), a.begin() + M * 64)), f32({64, 64}, b, constantB)},
             {outSpec(DataType::kFloat32, {M, 64})}, {}};
    c.relaxed = relaxed;
    uint64_t before = kernels::packedSgemmRuns();
    EXPECT_TRUE(runOp(c).isOk());
    return kernels::packedSgemmRuns() - before;
  };
  EXPECT_EQ(runs(true, 64, false), 1u);
  EXPECT_EQ(runs(false, 64, false), 0u);
  EXPECT_EQ(runs(true, 1, false), 0u);
#if WEBNN_HAVE_ONEDNN
  // Relaxed products are oneDNN's bf16 ones where the CPU has bf16; without
  // it they are float32, here, as in an exact artifact.
  std::string noBf16;
  EXPECT_EQ(runs(true, 64, true), onednn::bf16Available(&noBf16) ? 0u : 1u);
#else
  // Without oneDNN there is no bf16 path: relaxed products run in float32.
  EXPECT_EQ(runs(true, 64, true), 1u);
#endif
  kernels::setPackedSgemmEnabled(false);
  EXPECT_EQ(runs(true, 64, false), 0u);
}

}  // namespace
}  // namespace webnn::cpu::test
