// Machine peaks for bench/run.py's "% of peak" column.
//
//   g++ -O3 -march=native -pthread peak.cpp -o peak && ./peak [--mem-mb N]
//
// Prints one JSON object:
//   fma_gflops: {"1": .., "2": ..}   fp32 FMA throughput, register-bound
//   read_gbps:  {"1": .., "2": ..}   streaming read bandwidth over a buffer far
//                                    larger than L3 (default 1 GiB)
// Each figure is the best of several repetitions: the VM's clock varies, and
// the best run is the closest to what the hardware can do.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec splat(float v) { return _mm512_set1_ps(v); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec load(const float *p) { return _mm512_load_ps(p); }
inline float hsum(Vec v) { return _mm512_reduce_add_ps(v); }
constexpr const char *kIsa = "avx512f";
#else
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec splat(float v) { return _mm256_set1_ps(v); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec load(const float *p) { return _mm256_load_ps(p); }
inline float hsum(Vec v) {
  alignas(32) float t[8];
  _mm256_store_ps(t, v);
  float s = 0;
  for (float x : t) s += x;
  return s;
}
constexpr const char *kIsa = "avx2";
#endif

// 16 independent accumulator chains: enough to cover FMA latency (4 cycles)
// times the number of FMA pipes (2 on Zen 4/5) with room to spare, all in
// registers (32 zmm).
constexpr int kChains = 16;

float fmaLoop(long iters) {
  Vec acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = splat(1.0f + i * 1e-3f);
  const Vec a = splat(0.999999f), b = splat(1e-7f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = fma(acc[i], a, b);
  }
  Vec s = acc[0];
  for (int i = 1; i < kChains; ++i) s = add(s, acc[i]);
  return hsum(s);
}

float readLoop(const float *p, size_t n) {
  Vec a0 = splat(0), a1 = splat(0), a2 = splat(0), a3 = splat(0);
  for (size_t i = 0; i + 4 * kLanes <= n; i += 4 * kLanes) {
    a0 = add(a0, load(p + i));
    a1 = add(a1, load(p + i + kLanes));
    a2 = add(a2, load(p + i + 2 * kLanes));
    a3 = add(a3, load(p + i + 3 * kLanes));
  }
  return hsum(add(add(a0, a1), add(a2, a3)));
}

// Runs body(t) on `threads` threads started together; returns the wall time
// from the common start to the last finish, in seconds.
template <typename Body>
double timeParallel(int threads, Body body) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  Clock::time_point start;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      body(t);
    });
  while (ready.load() != threads) {
  }
  start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto &th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

volatile float gSink;

double fmaGflops(int threads) {
  const long iters = 50'000'000;  // ~0.1-0.2 s per thread at peak
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    double s = timeParallel(threads, [&](int) { gSink = fmaLoop(iters); });
    double flops = 2.0 * kLanes * kChains * static_cast<double>(iters) * threads;
    best = std::max(best, flops / s / 1e9);
  }
  return best;
}

double readGbps(int threads, float *buf, size_t n) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    double s = timeParallel(threads, [&](int t) {
      size_t chunk = (n / threads) & ~static_cast<size_t>(4 * kLanes - 1);
      gSink = readLoop(buf + t * chunk, chunk);
    });
    best = std::max(best, n * sizeof(float) / s / 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char **argv) {
  size_t memMb = 1024;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--mem-mb") && i + 1 < argc) {
      memMb = std::strtoul(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: peak [--mem-mb N]\n");
      return 2;
    }
  }
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<int> counts = {1};
  if (hw >= 2) counts.push_back(2);

  size_t n = memMb * (1u << 20) / sizeof(float);
  float *buf = static_cast<float *>(std::aligned_alloc(64, n * sizeof(float)));
  if (!buf) {
    std::fprintf(stderr, "peak: cannot allocate %zu MiB\n", memMb);
    return 1;
  }
  // Touch every page (in parallel, so first-touch spreads pages the way the
  // reads will use them) before timing.
  timeParallel(static_cast<int>(counts.back()), [&](int t) {
    size_t chunk = n / counts.back();
    size_t end = t + 1 == counts.back() ? n : (t + 1) * chunk;
    for (size_t i = t * chunk; i < end; ++i) buf[i] = 1.0f;
  });

  std::printf("{\"isa\": \"%s\", \"mem_mb\": %zu, \"fma_gflops\": {", kIsa, memMb);
  for (size_t i = 0; i < counts.size(); ++i)
    std::printf("%s\"%d\": %.1f", i ? ", " : "", counts[i], fmaGflops(counts[i]));
  std::printf("}, \"read_gbps\": {");
  for (size_t i = 0; i < counts.size(); ++i)
    std::printf("%s\"%d\": %.1f", i ? ", " : "", counts[i], readGbps(counts[i], buf, n));
  std::printf("}}\n");
  std::free(buf);
  return 0;
}
