// quantizedMatmul (kernels/QdqMatmul.cpp, QdqGemm.h) against a scalar
// reference of the QDQ meaning: operands quantized with quantizeLinear's
// rule (or given as int8/uint8), the products summed exactly as integers,
// scaled, quantized and dequantized again, bias added. Shapes with row,
// column and K tails; zero points 128 (uint8), asymmetric int8 ones,
// per-column weight zero points; constant and run-time B; 1 and 2 threads;
// the VNNI loop against the portable one on the same packed bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <random>
#include <utility>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/QdqGemm.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::test {
namespace {

struct Quant {
  DataType type;  // kInt8 or kUint8
  std::vector<float> scale;
  std::vector<int32_t> zero;
  float lo() const { return type == DataType::kInt8 ? -128.f : 0.f; }
  float hi() const { return type == DataType::kInt8 ? 127.f : 255.f; }
  int32_t quantize(float x, size_t i) const {
    float v = x / scale[i];
    if (std::isnan(v)) return zero[i];
    return int32_t(std::min(std::max(std::nearbyint(v) + float(zero[i]), lo()), hi()));
  }
};

TestTensor intTensor(DataType t, Shape s, const std::vector<int32_t> &v, bool c) {
  std::vector<double> d(v.begin(), v.end());
  return fromDoubles(t, std::move(s), d, c);
}

struct QdqCase {
  int64_t batch, M, K, N;
  Quant a, b;
  bool aFloat, bFloat, bBatched;
  bool roundTrip;
  Quant out;
  bool bias;
};

// Runs one case through the kernel and checks it against the reference.
void check(const QdqCase &c, int threads, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uf(-2.f, 2.f);
  std::uniform_int_distribution<int> ub(0, 255);
  auto ints = [&](DataType t, int64_t n) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t &x : v) x = ub(rng) - (t == DataType::kInt8 ? 128 : 0);
    return v;
  };
  const int64_t aCount = c.batch * c.M * c.K, bCount = (c.bBatched ? c.batch : 1) * c.K * c.N;
  std::vector<float> af(static_cast<size_t>(aCount)), bf(static_cast<size_t>(bCount));
  for (float &x : af) x = uf(rng);
  for (float &x : bf) x = uf(rng);
  std::vector<int32_t> ai = ints(c.a.type, aCount), bi = ints(c.b.type, bCount);
  std::vector<float> bias(static_cast<size_t>(c.N));
  for (float &x : bias) x = uf(rng);

  // Reference: integer operands, exact sum, the kernel's float epilogue.
  std::vector<int32_t> qa(static_cast<size_t>(aCount)), qb(static_cast<size_t>(bCount));
  for (int64_t i = 0; i < aCount; ++i) qa[size_t(i)] = c.aFloat ? c.a.quantize(af[size_t(i)], 0) : ai[size_t(i)];
  const bool perColumn = c.b.scale.size() > 1;
  for (int64_t i = 0; i < bCount; ++i)
    qb[size_t(i)] = c.bFloat ? c.b.quantize(bf[size_t(i)], 0) : bi[size_t(i)];
  Shape aShape = c.batch > 1 ? Shape{c.batch, c.M, c.K} : Shape{c.M, c.K};
  Shape bShape = c.bBatched ? Shape{c.batch, c.K, c.N} : Shape{c.K, c.N};
  Shape yShape = c.batch > 1 ? Shape{c.batch, c.M, c.N} : Shape{c.M, c.N};
  std::vector<float> want(static_cast<size_t>(c.batch * c.M * c.N));
  for (int64_t bt = 0; bt < c.batch; ++bt)
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        size_t col = perColumn ? size_t(n) : 0;
        int64_t acc = 0;
        for (int64_t k = 0; k < c.K; ++k)
          acc += int64_t(qa[size_t((bt * c.M + m) * c.K + k)] - c.a.zero[0]) *
                 (qb[size_t(((c.bBatched ? bt : 0) * c.K + k) * c.N + n)] - c.b.zero[col]);
        float y = float(acc) * (c.a.scale[0] * c.b.scale[col]);
        if (c.roundTrip) y = float(c.out.quantize(y, 0) - c.out.zero[0]) * c.out.scale[0];
        if (c.bias) y += bias[size_t(n)];
        want[size_t((bt * c.M + m) * c.N + n)] = y;
      }

  OpCase op;
  op.op = "quantizedMatmul";
  op.inputs.push_back(c.aFloat ? f32(aShape, af) : intTensor(c.a.type, aShape, ai, false));
  op.inputs.push_back(f32({1}, c.a.scale, true));
  op.inputs.push_back(intTensor(c.a.type, {1}, c.a.zero, true));
  op.inputs.push_back(c.bFloat ? f32(bShape, bf) : intTensor(c.b.type, bShape, bi, !c.bBatched));
  int64_t nb = int64_t(c.b.scale.size());
  op.inputs.push_back(f32({nb}, c.b.scale, true));
  op.inputs.push_back(intTensor(c.b.type, {int64_t(c.b.zero.size())}, c.b.zero, true));
  if (c.roundTrip) {
    op.inputs.push_back(f32({1}, c.out.scale, true));
    op.inputs.push_back(intTensor(c.out.type, {1}, c.out.zero, true));
  } else {
    op.inputs.push_back(std::nullopt);
    op.inputs.push_back(std::nullopt);
  }
  if (c.bias) op.inputs.push_back(f32({c.N}, bias, true));
  op.outputs.push_back(outSpec(DataType::kFloat32, yShape));
  for (int run = 0; run < 2; ++run) {  // the second run reuses the packed B
    ASSERT_TRUE(runOp(op, threads).isOk()) << runOp(op, threads).message();
    const float *got = op.outputs[0].as<float>();
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "element " << i << " of batch " << c.batch << " M " << c.M << " K " << c.K
                                 << " N " << c.N << " threads " << threads;
  }
}

Quant u8(float s, int32_t z) { return {DataType::kUint8, {s}, {z}}; }
Quant i8(float s, int32_t z) { return {DataType::kInt8, {s}, {z}}; }
Quant perColumnI8(int64_t N, uint32_t seed) {
  std::mt19937 rng(seed);
  Quant q{DataType::kInt8, {}, {}};
  for (int64_t n = 0; n < N; ++n) {
    q.scale.push_back(0.001f * float(1 + rng() % 50));
    q.zero.push_back(int32_t(rng() % 21) - 10);
  }
  return q;
}

TEST(QdqMatmul, WeightShapesWithTails) {
  uint32_t seed = 1;
  for (int64_t M : {1, 7, 9, 17})
    for (int64_t K : {1, 5, 64, 67})
      for (int64_t N : {1, 15, 17, 33, 50}) {
        // Float input, uint8 zero point 128, per-column int8 weight, round trip, bias.
        check({1, M, K, N, u8(0.02f, 128), perColumnI8(N, seed), true, false, false, true, u8(0.05f, 3), true}, 1,
              seed);
        // Float input, asymmetric int8 zero point, one weight scale, float result.
        check({1, M, K, N, i8(0.03f, -5), i8(0.01f, 0), true, false, false, false, {}, false}, 2, seed + 1);
        seed += 2;
      }
}

TEST(QdqMatmul, IntegerInputsAndUint8Weight) {
  // uint8 input as is (zero point 128), uint8 weight with zero point 128.
  check({1, 13, 40, 37, u8(0.02f, 128), u8(0.01f, 128), false, false, false, true, i8(0.2f, -7), true}, 2, 7);
  // int8 input, asymmetric, per-column int8 weight, float result.
  check({1, 5, 19, 20, i8(0.02f, 17), perColumnI8(20, 3), false, false, false, false, {}, true}, 1, 8);
}

TEST(QdqMatmul, RunTimeBatchedB) {
  // Attention-like: both operands activations, batched, zero points 7 / -3.
  check({3, 10, 16, 21, u8(0.03f, 7), i8(0.04f, -3), true, true, true, true, u8(0.1f, 100), false}, 2, 11);
  check({2, 9, 33, 16, i8(0.03f, 0), u8(0.04f, 128), true, true, true, false, {}, false}, 1, 12);
  // A rank-2 B fed at run time (int8, per column).
  check({2, 4, 8, 17, u8(0.05f, 128), perColumnI8(17, 5), true, false, false, true, u8(0.05f, 128), true}, 2, 13);
}

// The VNNI loops (the 8-row assembly tile, the intrinsic tiles for the rows
// left, an odd last panel) against the portable loop on the same packed
// bytes, bit for bit: row counts around multiples of 8, K not a multiple of
// 4, column tails, per-column and one-for-all zero points, row ranges that
// start inside a tile.
void vnniMatchesPortable(int64_t M, int64_t K, int64_t N, bool uniformZb, uint32_t seed) {
  const int64_t lda = kernels::qdqK4(K) * 4;
  std::mt19937 rng(seed);
  std::vector<uint8_t> A(size_t(M * lda), 0);
  std::vector<int32_t> rowSum(size_t(M), 0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) rowSum[size_t(m)] += A[size_t(m * lda + k)] = uint8_t(rng());
  std::vector<int8_t> B(size_t(K * N));
  for (int8_t &x : B) x = int8_t(rng());
  std::vector<int32_t> zb(static_cast<size_t>(N));
  std::vector<float> scale(static_cast<size_t>(N));
  const int32_t z0 = int32_t(rng() % 256) - 128;
  for (int64_t n = 0; n < N; ++n)
    zb[size_t(n)] = uniformZb ? z0 : int32_t(rng() % 256) - 128, scale[size_t(n)] = 1e-5f * float(n + 1);
  std::vector<uint8_t> packed(size_t(kernels::qdqPackedBytes(K, N)) + 64);
  uint8_t *p = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
  kernels::qdqPackB(B.data(), N, K, N, 255, zb.data(), 1, scale.data(), 1, p);
  kernels::QdqPackedB view = kernels::qdqPackedView(p, K, N);
  kernels::QdqEpilogue e;
  e.roundTrip = true;
  e.outScale = 0.01f;
  e.outZp = -3.f;
  e.qmin = -128.f;
  e.qmax = 127.f;
  const int64_t panels = kernels::qdqPanels(N);
  for (int64_t m0 : {int64_t(0), M / 3}) {
    std::vector<float> y1(static_cast<size_t>(M * N)), y2(static_cast<size_t>(M * N));
    kernels::qdqGemmPortable(A.data(), lda, rowSum.data(), view, K, N, m0, M, 0, panels, y1.data(), N, e);
    kernels::qdqGemmAvx512Vnni(A.data(), lda, rowSum.data(), view, K, N, m0, M, 0, panels, y2.data(), N, e);
    ASSERT_EQ(y1, y2) << "M " << M << " K " << K << " N " << N << " from row " << m0;
  }
}

TEST(QdqMatmul, VnniMatchesPortable) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX512-VNNI";
  uint32_t seed = 5;
  for (int64_t M : {1, 7, 8, 9, 16, 19, 33})
    for (int64_t K : {1, 4, 37, 64, 259})
      for (int64_t N : {5, 16, 45, 64, 100}) vnniMatchesPortable(M, K, N, (seed & 1) != 0, seed++);
  vnniMatchesPortable(128, 64, 128, true, 1);
  vnniMatchesPortable(24, 3073, 96, false, 2);
}

// The AVX-512 packing (run-time B, every run) writes the portable packing's
// bytes: K and N tails, per-column and one-for-all zero points and scales,
// a row stride wider than N.
TEST(QdqMatmul, PackBAvx512MatchesPortable) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX512-VNNI";
  std::mt19937 rng(9);
  for (int64_t K : {1, 3, 4, 5, 64, 131})
    for (int64_t N : {1, 15, 16, 17, 64, 70})
      for (int perColumn = 0; perColumn < 2; ++perColumn) {
        const int64_t ldb = N + perColumn * 3;
        std::vector<int8_t> B(size_t(K * ldb));
        for (int8_t &x : B) x = int8_t(rng());
        std::vector<int32_t> zb(static_cast<size_t>(N));
        std::vector<float> scale(static_cast<size_t>(N));
        for (int64_t n = 0; n < N; ++n) {
          zb[size_t(n)] = int32_t(rng() % 256) - 128;
          scale[size_t(n)] = 1e-3f * float(n + 1);
        }
        const int32_t za = int32_t(rng() % 256);
        const size_t bytes = size_t(kernels::qdqPackedBytes(K, N));
        std::vector<uint8_t> want(bytes), got(bytes, uint8_t(0xAB));
        kernels::qdqPackB(B.data(), ldb, K, N, za, zb.data(), perColumn, scale.data(), perColumn, want.data());
        kernels::qdqPackBAvx512(B.data(), ldb, K, N, za, zb.data(), perColumn, scale.data(), perColumn, got.data());
        ASSERT_EQ(want, got) << "K " << K << " N " << N << " per column " << perColumn;
      }
}

// quantizeLinear / dequantizeLinear with one scale (the QDQ activations
// left beside the fused matmuls) take an 8-wide path: the same values as the
// rule, ties to even, saturation and NaN included, over a length with a tail.
TEST(QdqMatmul, PerTensorQuantizeDequantize) {
  std::vector<float> x;
  for (int i = -40; i < 43; ++i) x.push_back(float(i) * 0.25f);  // halves at 0.05 scale ... and ties
  x.push_back(std::nanf(""));
  x.push_back(1e30f);
  x.push_back(-1e30f);
  for (DataType t : {DataType::kUint8, DataType::kInt8}) {
    Quant q{t, {0.5f}, {t == DataType::kUint8 ? 128 : -3}};
    const int64_t n = int64_t(x.size());
    OpCase op;
    op.op = "quantizeLinear";
    op.inputs = {f32({n}, x), f32({1}, q.scale, true), intTensor(t, {1}, q.zero, true)};
    op.outputs.push_back(outSpec(t, {n}));
    ASSERT_TRUE(runOp(op).isOk());
    std::vector<double> got = op.outputs[0].values();
    std::vector<int32_t> ints;
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[size_t(i)], double(q.quantize(x[size_t(i)], 0))) << "element " << i << " = " << x[size_t(i)];
      ints.push_back(int32_t(got[size_t(i)]));
    }
    OpCase dq;
    dq.op = "dequantizeLinear";
    dq.inputs = {intTensor(t, {n}, ints, false), f32({1}, q.scale, true), intTensor(t, {1}, q.zero, true)};
    dq.outputs.push_back(outSpec(DataType::kFloat32, {n}));
    ASSERT_TRUE(runOp(dq).isOk());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(dq.outputs[0].as<float>()[i], float(ints[size_t(i)] - q.zero[0]) * q.scale[0]);
  }
}

TEST(QdqMatmul, Errors) {
  OpCase op;
  op.op = "quantizedMatmul";
  op.inputs = {f32({2, 4}, std::vector<float>(8, 0.f)), f32({1}, {0.1f}, /*constant=*/false),
               intTensor(DataType::kUint8, {1}, {0}, true), intTensor(DataType::kInt8, {4, 3}, std::vector<int32_t>(12), true),
               f32({1}, {0.1f}, true), intTensor(DataType::kInt8, {1}, {0}, true)};
  op.outputs.push_back(outSpec(DataType::kFloat32, {2, 3}));
  Status s = runOp(op);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("must be constants"), std::string::npos) << s.message();
  op.inputs[1] = f32({1}, {0.1f}, true);
  op.inputs[4] = f32({2}, {0.1f, 0.2f}, true);  // neither 1 nor N = 3 scales
  s = runOp(op);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("wrong number of elements"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnn::cpu::test

namespace webnn::cpu::test {
namespace {
// Prints the VNNI loop's rate on BERT-base's shapes: ff1, ff2, q/k/v/out and
// one attention head's product (K 64), each the best of 30 runs on 1 thread.
double vnniRate(int64_t M, int64_t K, int64_t N) {
  const int64_t lda = kernels::qdqK4(K) * 4;
  std::vector<uint8_t> A(static_cast<size_t>(M * lda), 3);
  std::vector<int32_t> rowSum(static_cast<size_t>(M), int32_t(3 * K));
  std::vector<int8_t> B(static_cast<size_t>(K * N), 1);
  std::vector<int32_t> zb(static_cast<size_t>(N), 0);
  std::vector<float> scale(static_cast<size_t>(N), 1e-3f);
  std::vector<uint8_t> packed(static_cast<size_t>(kernels::qdqPackedBytes(K, N)) + 64);
  uint8_t *p = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
  kernels::qdqPackB(B.data(), N, K, N, 128, zb.data(), 1, scale.data(), 1, p);
  kernels::QdqPackedB view = kernels::qdqPackedView(p, K, N);
  kernels::QdqEpilogue e;
  e.roundTrip = true;
  e.outScale = 0.05f;
  std::vector<float> y(static_cast<size_t>(M * N));
  double best = 1e9;
  const int reps = M * K * N > (int64_t(1) << 24) ? 30 : 300;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    kernels::qdqGemmAvx512Vnni(A.data(), lda, rowSum.data(), view, K, N, 0, M, 0, kernels::qdqPanels(N), y.data(), N,
                               e);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("qdq VNNI GEMM %lldx%lldx%lld: %.4f ms, %.1f GMAC/s\n", (long long)M, (long long)K, (long long)N,
              best * 1e3, double(M * K * N) / best / 1e9);
  return best;
}

TEST(QdqMatmul, DISABLED_VnniRate) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX512-VNNI";
  vnniRate(128, 768, 3072);
  vnniRate(128, 3072, 768);
  vnniRate(128, 768, 768);
  vnniRate(128, 64, 128);
  vnniRate(128, 128, 64);
  // Packing one head's run-time B, portable and AVX-512.
  for (auto [K, N] : {std::pair<int64_t, int64_t>{64, 128}, {128, 64}}) {
    std::vector<int8_t> B(size_t(K * N), 3);
    std::vector<int32_t> zb(1, -5);
    std::vector<float> scale(1, 1e-3f);
    std::vector<uint8_t> out(size_t(kernels::qdqPackedBytes(K, N)));
    double best[2] = {1e9, 1e9};
    for (int rep = 0; rep < 300; ++rep)
      for (int v = 0; v < 2; ++v) {
        auto t0 = std::chrono::steady_clock::now();
        (v ? kernels::qdqPackBAvx512 : kernels::qdqPackB)(B.data(), N, K, N, 128, zb.data(), 0, scale.data(), 0,
                                                        out.data());
        best[v] = std::min(best[v], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    std::printf("qdq pack B %lldx%lld: portable %.2f us, AVX-512 %.2f us\n", (long long)K, (long long)N,
                best[0] * 1e6, best[1] * 1e6);
  }
}
}  // namespace
}  // namespace webnn::cpu::test
