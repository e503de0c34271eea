// The AMX loop of quantizedMatmul (kernels/QdqGemmAmx.cpp) against the
// portable one on the same packed bytes, bit for bit (the integer sums are
// exact, the epilogue the same float operations): K around the 64-k tile
// step (the zero padded last step), rows around the 16- and 32-row blocks
// (the rows left go to the VNNI loop), column tails and an odd last panel,
// per-column and one-for-all zero points, both epilogues, row ranges and
// panel ranges that start inside the matrix; then the quantizedMatmul
// kernel on AMX and with WEBNN_AMX's switch off, the same bytes. Skipped only
// where the CPU or the OS has no AMX.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/QdqGemm.h"

namespace webnn::cpu::test {
namespace {

struct Packed {
  std::vector<uint8_t> bytes;
  uint8_t *p = nullptr;
};

// A random [K, N] signed B packed with za and per-column (or one) zb, and a
// random A with its row sums.
struct Problem {
  int64_t M, K, N, lda;
  std::vector<uint8_t> A;
  std::vector<int32_t> rowSum;
  Packed packed;
  kernels::QdqPackedB view;
  std::vector<float> bias;

  Problem(int64_t m, int64_t k, int64_t n, bool uniformZb, uint32_t seed)
      : M(m), K(k), N(n), lda(kernels::qdqK4(k) * 4) {
    std::mt19937 rng(seed);
    A.assign(size_t(M * lda), 0);
    rowSum.assign(size_t(M), 0);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < K; ++c) rowSum[size_t(r)] += A[size_t(r * lda + c)] = uint8_t(rng());
    std::vector<int8_t> B(size_t(K * N));
    for (int8_t &x : B) x = int8_t(rng());
    std::vector<int32_t> zb(static_cast<size_t>(N));
    std::vector<float> scale(static_cast<size_t>(N));
    const int32_t z0 = int32_t(rng() % 256) - 128;
    for (int64_t c = 0; c < N; ++c) {
      zb[size_t(c)] = uniformZb ? z0 : int32_t(rng() % 256) - 128;
      scale[size_t(c)] = 1e-5f * float(c + 1);
      bias.push_back(0.25f * float(int(rng() % 17) - 8));
    }
    packed.bytes.assign(size_t(kernels::qdqPackedBytes(K, N)) + 64, 0);
    packed.p = packed.bytes.data() + (64 - reinterpret_cast<uintptr_t>(packed.bytes.data()) % 64) % 64;
    const int32_t za = int32_t(rng() % 256);
    kernels::qdqPackB(B.data(), N, K, N, za, zb.data(), 1, scale.data(), 1, packed.p);
    view = kernels::qdqPackedView(packed.p, K, N);
  }
};

// Epilogues: the scale alone, the quantize-dequantize round trip, and the
// round trip with a bias. With a bias the reference is the VNNI loop (the
// same AVX-512 epilogue): the portable loop's y * scale + bias may be
// contracted to one FMA by the compiler, a rounding the vector loops do not
// share.
void amxMatchesPortable(int64_t M, int64_t K, int64_t N, bool uniformZb, uint32_t seed) {
  Problem pr(M, K, N, uniformZb, seed);
  const int64_t panels = kernels::qdqPanels(N);
  for (int epilogue = 0; epilogue < 3; ++epilogue) {
    kernels::QdqEpilogue e;
    if (epilogue >= 1) {
      e.roundTrip = true;
      e.outScale = 0.01f;
      e.outZp = -3.f;
      e.qmin = -128.f;
      e.qmax = 127.f;
    }
    if (epilogue == 2) e.bias = pr.bias.data();
    auto reference = e.bias ? kernels::qdqGemmAvx512Vnni : kernels::qdqGemmPortable;
    struct Range {
      int64_t m0, p0;
    };
    for (Range r : {Range{0, 0}, Range{M / 3, panels / 2}}) {
      // Outside the range both leave Y as it was (NaN here).
      std::vector<float> want(size_t(M * N), std::nanf("")), got(want);
      reference(pr.A.data(), pr.lda, pr.rowSum.data(), pr.view, K, N, r.m0, M, r.p0, panels, want.data(), N, e);
      kernels::qdqGemmAmx(pr.A.data(), pr.lda, pr.rowSum.data(), pr.view, K, N, r.m0, M, r.p0, panels, got.data(),
                          N, e);
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)))
          << "M " << M << " K " << K << " N " << N << " rows from " << r.m0 << " panels from " << r.p0
          << " epilogue " << epilogue;
    }
  }
}

TEST(QdqGemmAmx, MatchesPortable) {
  if (!kernels::amxInt8Supported()) GTEST_SKIP() << "no AMX-INT8 on this CPU, or the OS did not grant tile state";
  uint32_t seed = 11;
  for (int64_t K : {4, 60, 64, 65, 200, 768})
    for (int64_t M : {1, 15, 16, 17, 128})
      for (int64_t N : {1, 16, 17, 768}) amxMatchesPortable(M, K, N, (seed & 1) != 0, seed++);
  // A 16-row block after the 32-row ones, and rows left after it; K = 1 and 3
  // (all of K in the padded step), a long K with a tail.
  amxMatchesPortable(57, 131, 45, false, 3);
  amxMatchesPortable(48, 1, 33, true, 4);
  amxMatchesPortable(33, 3, 16, false, 5);
  amxMatchesPortable(40, 3073, 40, false, 6);
}

// Turns the AMX switch off for a scope (WEBNN_AMX=0's value), on again after.
struct ScopedAmxOff {
  ScopedAmxOff() { kernels::setAmxInt8Enabled(false); }
  ~ScopedAmxOff() { kernels::setAmxInt8Enabled(true); }
};

// quantizedMatmul through its factory: the choice reported names the loop
// (amx, or avx512-vnni with the switch off and why amx was refused), and
// both give the same bytes, over batches (several per thread's range of
// tasks), a run-time batched B (attention) and a constant per-column int8
// weight with a bias, 1 and 2 threads.
TEST(QdqGemmAmx, KernelOnAmxAndSwitchedOff) {
  if (!kernels::amxInt8Supported()) GTEST_SKIP() << "no AMX-INT8 here";
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> uf(-2.f, 2.f);
  struct Shape3 {
    int64_t batch, M, K, N;
    bool runTimeB;
  };
  for (Shape3 c : {Shape3{3, 40, 64, 50, true}, Shape3{1, 128, 200, 96, false}, Shape3{2, 33, 768, 17, false}}) {
    std::vector<float> a(size_t(c.batch * c.M * c.K)), b(size_t((c.runTimeB ? c.batch : 1) * c.K * c.N));
    for (float &x : a) x = uf(rng);
    for (float &x : b) x = uf(rng);
    std::vector<double> w(b.size()), zb(size_t(c.N));
    std::vector<float> sb(size_t(c.N)), bias(size_t(c.N));
    for (double &x : w) x = double(int(rng() % 256) - 128);
    for (size_t n = 0; n < size_t(c.N); ++n)
      zb[n] = double(int(rng() % 21) - 10), sb[n] = 0.001f * float(1 + rng() % 50), bias[n] = uf(rng);
    Shape aShape = {c.batch, c.M, c.K};
    OpCase op;
    op.op = "quantizedMatmul";
    op.inputs.push_back(f32(aShape, a));
    op.inputs.push_back(f32({1}, {0.02f}, true));
    op.inputs.push_back(fromDoubles(DataType::kUint8, {1}, {128}, true));
    if (c.runTimeB) {
      op.inputs.push_back(f32({c.batch, c.K, c.N}, b));
      op.inputs.push_back(f32({1}, {0.03f}, true));
      op.inputs.push_back(fromDoubles(DataType::kInt8, {1}, {-3}, true));
    } else {
      op.inputs.push_back(fromDoubles(DataType::kInt8, {c.K, c.N}, w, true));
      op.inputs.push_back(f32({c.N}, sb, true));
      op.inputs.push_back(fromDoubles(DataType::kInt8, {c.N}, zb, true));
    }
    op.inputs.push_back(f32({1}, {0.05f}, true));
    op.inputs.push_back(fromDoubles(DataType::kUint8, {1}, {120}, true));
    if (!c.runTimeB) op.inputs.push_back(f32({c.N}, bias, true));
    op.outputs.push_back(outSpec(DataType::kFloat32, {c.batch, c.M, c.N}));
    for (int threads : {1, 2}) {
      std::vector<float> y[2];
      for (int off = 0; off < 2; ++off) {
        ScopedKernelChoices choices;
        std::unique_ptr<ScopedAmxOff> amxOff(off ? new ScopedAmxOff : nullptr);
        ASSERT_TRUE(runOp(op, threads).isOk());
        const kernels::KernelChoice k = choices.last("quantizedMatmul");
        EXPECT_EQ(k.chosen, off ? "avx512-vnni" : "amx");
        EXPECT_EQ(k.whyRefused("amx"), off ? "off (WEBNN_AMX=0)" : "");
        const float *got = op.outputs[0].as<float>();
        y[off].assign(got, got + c.batch * c.M * c.N);
      }
      ASSERT_EQ(0, std::memcmp(y[0].data(), y[1].data(), y[0].size() * sizeof(float)))
          << "batch " << c.batch << " M " << c.M << " K " << c.K << " N " << c.N << " threads " << threads;
    }
  }
}

// Prints the AMX and VNNI loops' rates on BERT-base's shapes (ff1, ff2,
// q/k/v/out, one head's two products), best of many runs on 1 thread: with
// B in cache, cold (a weight read from memory, as in the model: 32 copies
// of B used in turn, 77 MB for ff1), and with the scale-only epilogue (no
// quantize-dequantize round trip: the epilogue's share); then the float A's
// quantization.
TEST(QdqGemmAmx, DISABLED_Rate) {
  if (!kernels::amxInt8Supported()) GTEST_SKIP() << "no AMX-INT8 here";
  const int64_t shapes[][3] = {{128, 768, 3072}, {128, 3072, 768}, {128, 768, 768}, {128, 64, 128}, {128, 128, 64}};
  for (const auto &s : shapes)
    for (int copies : {1, 32, 0}) {  // 0: B in cache, the scale-only epilogue
      const int64_t M = s[0], K = s[1], N = s[2];
      if (copies != 1 && K < 768) continue;
      const bool roundTrip = copies != 0;
      copies = std::max(copies, 1);
      Problem pr(M, K, N, true, 1);
      const size_t bytes = size_t(kernels::qdqPackedBytes(K, N));
      std::vector<uint8_t> pool(bytes * size_t(copies) + 64);
      uint8_t *base = pool.data() + (64 - reinterpret_cast<uintptr_t>(pool.data()) % 64) % 64;
      for (int c = 0; c < copies; ++c) std::memcpy(base + c * bytes, pr.packed.p, bytes);
      kernels::QdqEpilogue e;
      e.roundTrip = roundTrip;
      e.outScale = 0.05f;
      std::vector<float> y(static_cast<size_t>(M * N));
      double best[2] = {1e9, 1e9};
      const int reps = M * K * N > (int64_t(1) << 24) ? 64 : 500;
      for (int rep = 0; rep < reps; ++rep)
        for (int v = 0; v < 2; ++v) {
          const kernels::QdqPackedB view = kernels::qdqPackedView(base + (rep % copies) * bytes, K, N);
          auto t0 = std::chrono::steady_clock::now();
          (v ? kernels::qdqGemmAmx : kernels::qdqGemmAvx512Vnni)(pr.A.data(), pr.lda, pr.rowSum.data(), view, K, N, 0,
                                                                 M, 0, kernels::qdqPanels(N), y.data(), N, e);
          best[v] = std::min(best[v], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
      std::printf("qdq GEMM %lldx%lldx%lld%s: VNNI %.4f ms (%.0f GMAC/s), AMX %.4f ms (%.0f GMAC/s)\n", (long long)M,
                  (long long)K, (long long)N, copies > 1 ? " cold B" : roundTrip ? "" : " scale only", best[0] * 1e3,
                  double(M * K * N) / best[0] / 1e9, best[1] * 1e3, double(M * K * N) / best[1] / 1e9);
    }
  // The float A's quantization each of those GEMMs does first (the same
  // quantizer for both loops): 128 rows of 768 and of 3072.
  for (int64_t K : {768, 3072}) {
    const int64_t M = 128, lda = kernels::qdqK4(K) * 4;
    std::vector<float> x(size_t(M * K));
    std::mt19937 rng(3);
    for (float &v : x) v = std::uniform_real_distribution<float>(-4.f, 4.f)(rng);
    std::vector<uint8_t> q(size_t(M * lda));
    std::vector<int32_t> rowSum(static_cast<size_t>(M));
    double best = 1e9;
    for (int rep = 0; rep < 200; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      kernels::qdqQuantizeRowsAvx512(x.data(), M, K, 0.03f, 128.f, 0.f, 255.f, 0, q.data(), lda, rowSum.data());
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("qdq quantize A %lldx%lld: %.4f ms (%.2f ns per value)\n", (long long)M, (long long)K, best * 1e3,
                best * 1e9 / double(M * K));
  }
}

}  // namespace
}  // namespace webnn::cpu::test
