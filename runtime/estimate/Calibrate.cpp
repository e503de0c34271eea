#include "estimate/Calibrate.h"

#include <immintrin.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "backends/cpu/CostFunctions.h"
#include "backends/cpu/ThreadPool.h"
#include "core/ArtifactLoader.h"
#include "core/Executor.h"
#include "estimate/Estimate.h"
#include "nlohmann/json.hpp"

namespace webnn::est {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// What a measurement's duration is read from. One thread: the thread's CPU
// time, so that other processes on a shared machine (time slices taken from
// this thread) do not enter the device profile; several threads: wall time,
// since their waits for each other are part of what the kernels cost.
// Reading the thread's CPU clock is a system call (about half a
// microsecond, where the monotonic clock's vDSO read takes 20 ns), and a
// part of it lands inside the interval it closes: `readSeconds` is what an
// empty interval measures, taken off every interval (a kernel of a
// microsecond would otherwise be timed at half again its time).
struct Stopwatch {
  bool cpu;
  double readSeconds = 0;
  explicit Stopwatch(int threads) : cpu(threads == 1) {
    std::vector<double> empty;
    for (int k = 0; k < 31; ++k) {
      double t0 = now();
      empty.push_back(now() - t0);
    }
    std::sort(empty.begin(), empty.end());
    readSeconds = empty[empty.size() / 2];
  }
  double now() const {
    timespec ts{};
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  }
  // Seconds since `t0` (a now()), less the clock's own share.
  double since(double t0) const { return std::max(0.0, now() - t0 - readSeconds); }
};

// ---- peaks: independent FMA chains, enough to cover the FMA latency.
__attribute__((target("avx2,fma"))) double fmaAvx2(int64_t iters) {
  __m256 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(float(i) * 1e-3f);
  const __m256 b = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], b, c);
  __m256 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, a[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return double(out[0]);
}
__attribute__((target("avx512f"))) double fmaAvx512(int64_t iters) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(float(i) * 1e-3f);
  const __m512 b = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (int64_t k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(a[i], b, c);
  __m512 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
  return double(_mm512_reduce_add_ps(s));
}
__attribute__((target("avx512f,avx512vnni"))) double vnniAvx512(int64_t iters) {
  __m512i a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_epi32(i);
  const __m512i b = _mm512_set1_epi8(3), c = _mm512_set1_epi8(-2);
  for (int64_t k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) a[i] = _mm512_dpbusd_epi32(a[i], b, c);
  __m512i s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_epi32(s, a[i]);
  // The accumulators wrap by design (only the work counts): sum the lanes
  // unsigned, where _mm512_reduce_add_epi32's signed adds would overflow.
  alignas(64) uint32_t lanes[16];
  _mm512_store_si512(lanes, s);
  uint64_t sum = 0;
  for (uint32_t v : lanes) sum += v;
  return double(sum);
}
__attribute__((target("avx512f,avx512bf16"))) double bf16Avx512(int64_t iters) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(float(i) * 1e-3f);
  const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3f80), c = (__m512bh)_mm512_set1_epi16(0x3380);
  for (int64_t k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) a[i] = _mm512_dpbf16_ps(a[i], b, c);
  __m512 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
  return double(_mm512_reduce_add_ps(s));
}

volatile double gSink;

// Operations per second with every thread running `fn` (opsPerIter per iteration).
double peakOps(cpu::ThreadPool &pool, double (*fn)(int64_t), double opsPerIter, double budget) {
  int T = pool.numThreads();
  int64_t iters = 1 << 14;
  double best = 0;
  // Runs of >= 15 ms (the clock ramps up, and a shared machine's other
  // processes take slices), best of five or of those that fit `budget`.
  auto start = Clock::now();
  Stopwatch clock(T);
  for (int rep = 0, timed = 0; rep < 16 && timed < 5 && (timed == 0 || secondsSince(start) < budget); ++rep) {
    double t0 = clock.now();
    pool.parallelFor(T, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) gSink = fn(iters);
    });
    double s = clock.now() - t0;
    if (s < 0.015) {
      iters *= 2;
      continue;
    }
    ++timed;
    best = std::max(best, double(T) * double(iters) * opsPerIter / s);
  }
  return best;
}

// ---- bandwidth: read, add, write back to another buffer, as kernels stream.
// The timed loops are left out of a sanitized build's instrumentation: with a
// shadow check per load they measure the sanitizer, not the memory (under
// ASan the read rate stayed ~10 GB/s from L2 to DRAM, so the L3 sweep saw no
// fall, kept the reported 300 MB and streamed 600 MB buffers through a short
// deadline). They touch only buffers allocated here, one thread each.
#define WEBNN_TIMED_LOOP __attribute__((target("avx2"), no_sanitize("address", "thread", "undefined")))
WEBNN_TIMED_LOOP void streamCopy(const float *src, float *dst, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 32; k += 8) _mm256_store_ps(dst + i + k, _mm256_add_ps(_mm256_load_ps(src + i + k), one));
  for (; i < n; ++i) dst[i] = src[i] + 1.0f;
}

// Read-only streaming, as a kernel reads weights: no write-allocate and no
// write-back, so DRAM delivers more than to a copy.
WEBNN_TIMED_LOOP float streamRead(const float *src, int64_t n) {
  __m256 a = _mm256_setzero_ps(), b = a, c = a, d = a;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a = _mm256_add_ps(a, _mm256_load_ps(src + i));
    b = _mm256_add_ps(b, _mm256_load_ps(src + i + 8));
    c = _mm256_add_ps(c, _mm256_load_ps(src + i + 16));
    d = _mm256_add_ps(d, _mm256_load_ps(src + i + 24));
  }
  alignas(32) float out[8];
  _mm256_store_ps(out, _mm256_add_ps(_mm256_add_ps(a, b), _mm256_add_ps(c, d)));
  float sum = 0;
  for (float v : out) sum += v;
  for (; i < n; ++i) sum += src[i];
  return sum;
}

struct Aligned {
  void operator()(void *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, Aligned>;
Buffer allocate(uint64_t bytes) {
  bytes = (bytes + 63) / 64 * 64;
  return Buffer(static_cast<uint8_t *>(std::aligned_alloc(64, bytes ? bytes : 64)));
}

// Each thread's source (and destination) buffer of the bandwidth passes,
// faulted in once per calibration and reused, the smaller sizes as
// prefixes: a fresh buffer per measurement paid its first touch every time
// (page faults, and a sanitizer's shadow pages), which took most of a short
// deadline's time before the grid.
// The bytes a pass streams for `perThread`: whole 256-byte groups (the
// stream loops' 64-float steps).
uint64_t streamBytes(uint64_t perThread) { return perThread / 4 / 64 * 64 * 4; }

struct StreamBuffers {
  std::vector<Buffer> src, dst;
  std::vector<uint64_t> srcBytes, dstBytes;
  void ensure(int threads, uint64_t bytes, bool withDst) {
    grow(src, srcBytes, threads, bytes);
    if (withDst) grow(dst, dstBytes, threads, bytes);
  }
  // The copies' destinations, once only reads are timed.
  void releaseDestinations() {
    dst.clear();
    dstBytes.clear();
  }

 private:
  static void grow(std::vector<Buffer> &bufs, std::vector<uint64_t> &sizes, int threads, uint64_t bytes) {
    if (bufs.size() < size_t(threads)) {
      bufs.resize(size_t(threads));
      sizes.resize(size_t(threads), 0);
    }
    for (size_t t = 0; t < size_t(threads); ++t)
      if (sizes[t] < bytes) {
        bufs[t].reset();
        bufs[t] = allocate(bytes);
        std::memset(bufs[t].get(), 0, size_t(bytes));
        sizes[t] = bytes;
      }
  }
};

// GB/s of streaming `perThread` bytes (source and destination apart) on every thread.
double bandwidth(cpu::ThreadPool &pool, uint64_t perThread, double seconds, StreamBuffers &buffers) {
  int T = pool.numThreads();
  const int64_t n = int64_t(streamBytes(perThread) / 4);
  buffers.ensure(T, streamBytes(perThread), true);
  std::vector<Buffer> &src = buffers.src, &dst = buffers.dst;
  auto pass = [&] {
    pool.parallelFor(T, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t)
        streamCopy(reinterpret_cast<float *>(src[size_t(t)].get()), reinterpret_cast<float *>(dst[size_t(t)].get()), n);
    });
  };
  pass();
  double best = 0;
  auto start = Clock::now();
  int reps = std::max<int>(1, int(4e6 / double(n)));
  Stopwatch clock(T);
  while (secondsSince(start) < seconds) {
    double t0 = clock.now();
    for (int r = 0; r < reps; ++r) pass();
    double s = clock.now() - t0;
    // A pass the clock did not see advance (a thread's CPU clock on a
    // loaded machine) says nothing; it would store an infinite bandwidth.
    if (s > 0) best = std::max(best, double(T) * double(n) * 8.0 * reps / s / 1e9);
  }
  return best;
}

// GB/s of reading `perThread` bytes on every thread.
double readBandwidth(cpu::ThreadPool &pool, uint64_t perThread, double seconds, StreamBuffers &buffers) {
  int T = pool.numThreads();
  const int64_t n = int64_t(streamBytes(perThread) / 4);
  buffers.ensure(T, streamBytes(perThread), false);
  std::vector<Buffer> &src = buffers.src;
  auto pass = [&] {
    pool.parallelFor(T, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) gSink = streamRead(reinterpret_cast<const float *>(src[size_t(t)].get()), n);
    });
  };
  pass();
  double best = 0;
  auto start = Clock::now();
  Stopwatch clock(T);
  while (secondsSince(start) < seconds) {
    double t0 = clock.now();
    pass();
    double s = clock.now() - t0;
    if (s > 0) best = std::max(best, double(T) * double(n) * 4.0 / s / 1e9);
  }
  return best;
}

// GB/s of reading the first `bytes` of `buf` on one thread: the best of a
// few passes after one that brings it into whatever cache keeps it.
double prefixReadGBs(const float *buf, uint64_t bytes, double seconds) {
  const int64_t n = int64_t(streamBytes(bytes) / 4);
  gSink = streamRead(buf, n);
  double best = 0;
  auto start = Clock::now();
  for (int k = 0; k < 2 || (k < 8 && secondsSince(start) < seconds); ++k) {
    auto t0 = Clock::now();
    gSink = streamRead(buf, n);
    double s = secondsSince(t0);
    if (s > 0) best = std::max(best, double(n) * 4.0 / s / 1e9);
  }
  return best;
}

// The L3 this process keeps, from one thread's read rate over growing
// working sets: sysfs reports the socket's whole L3, but a VM of a few vCPUs
// on a large server (300 MB reported on a 2-vCPU Xeon) shares it with the
// other tenants and falls to DRAM's rate long before. Sizes from twice the
// L2 up to twice the reported L3 (at most `maxBytes`: 256 MB reaches DRAM's
// rate on that VM, whose rate fell from 21 to 9 GB/s between 32 and 192 MB),
// in steps of sqrt(2).
uint64_t measureEffectiveL3(uint64_t reportedL3, uint64_t l2, uint64_t maxBytes, double seconds,
                            std::vector<std::pair<uint64_t, double>> *sweepOut) {
  if (reportedL3 == 0) return 0;
  const uint64_t top = std::min<uint64_t>(2 * reportedL3, maxBytes);
  uint64_t first = std::max<uint64_t>(2 * l2, 1 << 20);
  if (first * 2 > top) return reportedL3;
  Buffer buf = allocate(top);
  if (!buf) return reportedL3;
  std::memset(buf.get(), 1, top);
  std::vector<std::pair<uint64_t, double>> sweep;
  int steps = 0;
  for (double s = double(first); s <= double(top) * 1.0001; s *= std::sqrt(2.0)) ++steps;
  for (double s = double(first); s <= double(top) * 1.0001; s *= std::sqrt(2.0)) {
    const uint64_t bytes = std::min<uint64_t>(uint64_t(s) / 4096 * 4096, top);
    sweep.push_back({bytes, prefixReadGBs(reinterpret_cast<const float *>(buf.get()), bytes, seconds / steps)});
  }
  if (sweepOut) *sweepOut = sweep;
  return effectiveL3FromSweep(sweep, reportedL3);
}

double firstTouchGBs(int reps) {
  const size_t bytes = size_t(64) << 20;
  double best = 0;
  for (int rep = 0; rep < reps; ++rep) {
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    auto t0 = Clock::now();
    for (size_t o = 0; o < bytes; o += 4096) static_cast<volatile uint8_t *>(p)[o] = 1;
    double s = secondsSince(t0);
    ::munmap(p, bytes);
    best = std::max(best, double(bytes) / s / 1e9);
  }
  return best;
}

double forkJoinUs(cpu::ThreadPool &pool) {
  if (pool.numThreads() == 1) return 0;
  std::vector<double> v;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = Clock::now();
    for (int k = 0; k < 400; ++k)
      pool.parallelFor(pool.numThreads(), 1, [](int64_t b, int64_t e) { gSink = double(b + e); });
    v.push_back(secondsSince(t0) / 400 * 1e6);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

uint64_t cacheBytes(int level, const std::string &sysfsCpuDir) {
  std::ifstream in(sysfsCpuDir + "/cache/index" + std::to_string(level == 1 ? 0 : level) + "/size");
  std::string s;
  if (in >> s && !s.empty()) {
    uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    char unit = s.back();
    return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
  }
  // No cache directory in sysfs (a Firecracker VM has none): the C
  // library's reading of CPUID. Without any size the grid's evictions
  // shrink to their 1 MB and 8 MB floors, so its kernels run on warm
  // caches, and every cache-level rule of the estimate is off.
#ifdef _SC_LEVEL1_DCACHE_SIZE
  const long v = ::sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : level == 2 ? _SC_LEVEL2_CACHE_SIZE
                                                                           : _SC_LEVEL3_CACHE_SIZE);
  return v > 0 ? uint64_t(v) : 0;
#else
  return 0;
#endif
}

namespace {

// ---- one real kernel on synthetic operands, as the executor runs it.
struct Operand {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  bool constant = false;
  // Every element, where nonzero: an int32 operand's lengths a kernel reads
  // at run time, a float32 operand's value (pow's exponent).
  int32_t fill = 0;
  // A buffer the caller holds across runs (a decoder's past KV cache), not
  // an arena tensor a previous node just wrote: cold with the weights.
  bool caller = false;
};
struct Case {
  std::string op;
  std::vector<Operand> inputs;
  std::vector<Shape> outputs;
  cpu::NodeAttributes attrs;
};

uint64_t elements(const Shape &s) {
  uint64_t n = 1;
  for (int64_t d : s) n *= uint64_t(d);
  return n;
}

struct Probe {
  std::deque<cpu::OperandDesc> descs;
  std::vector<Buffer> buffers;
  std::deque<cpu::TensorBuffer> tensors;
  std::vector<const cpu::TensorBuffer *> ins;
  std::vector<cpu::TensorBuffer *> outs;
  cpu::NodeDesc node;
  std::vector<bool> constant;
  std::unique_ptr<cpu::Kernel> kernel;

  Status build(const Case &c) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    node.op = c.op;
    node.name = "calibration " + c.op;
    node.attributes = c.attrs;
    auto add = [&](DataType dt, const Shape &s, bool isConst, bool output, int32_t fill = 0) {
      uint64_t n = elements(s);
      buffers.push_back(allocate(n * uint64_t(dataTypeBits(dt)) / 8 + 64));
      bytes += n * uint64_t(dataTypeBits(dt)) / 8 + 64;
      uint8_t *data = buffers.back().get();
      if (dt == DataType::kFloat32) {
        float *f = reinterpret_cast<float *>(data);
        for (uint64_t i = 0; i < n; ++i) f[i] = output ? 0.f : fill ? float(fill) : dist(rng);
      } else {
        std::memset(data, 0, n * uint64_t(dataTypeBits(dt)) / 8 + 64);
        if (dt == DataType::kInt32)
          for (uint64_t i = 0; i < n; ++i) reinterpret_cast<int32_t *>(data)[i] = fill;
      }
      descs.push_back({dt, s, isConst ? data : nullptr});
      tensors.push_back({dt, &descs.back().shape, data});
      return std::make_pair(&descs.back(), &tensors.back());
    };
    for (const Operand &o : c.inputs) {
      auto [d, t] = add(o.dtype, o.shape, o.constant, false, o.fill);
      node.inputs.push_back(d);
      ins.push_back(t);
      constant.push_back(o.constant);
      if (o.constant || o.caller) coldBytes += double(elements(o.shape)) * dataTypeBits(o.dtype) / 8;
      else arenaInputs.push_back({t->data, elements(o.shape) * uint64_t(dataTypeBits(o.dtype)) / 8});
    }
    for (const Shape &s : c.outputs) {
      auto [d, t] = add(c.inputs.empty() ? DataType::kFloat32 : c.inputs[0].dtype, s, false, true);
      node.outputs.push_back(d);
      outs.push_back(t);
    }
    cpu::KernelFactory f = rt::findKernelFactory(c.op);
    if (!f) return unsupported("no CPU kernel for " + c.op);
    return f(node, &kernel);
  }
  // Reads the inputs a previous node would have just written, bringing them
  // back into the caches after an eviction of the L3.
  void touchArenaInputs() const {
    for (const auto &[data, bytes] : arenaInputs) {
      const volatile uint8_t *p = static_cast<const uint8_t *>(data);
      for (uint64_t o = 0; o < bytes; o += 64) (void)p[o];
    }
  }
  // Reads input `k` from `from` (another probe's output: a chain of
  // kernels, each fed by its predecessor) instead of its own buffer.
  void feed(size_t k, const cpu::TensorBuffer *from) {
    for (auto &[data, bytes] : arenaInputs)
      if (data == ins[k]->data) data = from->data;
    ins[k] = from;
  }
  double coldBytes = 0;  // weights and caller buffers
  uint64_t bytes = 0;     // every buffer it holds
  std::vector<std::pair<const void *, uint64_t>> arenaInputs;
  // The first failure of run() is kept: a probe that failed is not timed.
  void run(cpu::ThreadPool &pool) {
    cpu::KernelContext ctx{ins.data(), ins.size(), outs.data(), outs.size(), &pool};
    Status s = kernel->run(ctx);
    if (!s.isOk() && runStatus.isOk()) runStatus = s;
  }
  Status runStatus;
};

cpu::NodeAttributes attrs(std::initializer_list<std::pair<const char *, cpu::AttributeValue>> kv) {
  cpu::NodeAttributes a;
  for (const auto &[k, v] : kv) a.set(k, v);
  return a;
}
cpu::AttributeValue ints(std::vector<int64_t> v) {
  cpu::AttributeValue a;
  a.kind = cpu::AttributeValue::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
cpu::AttributeValue str(std::string s) {
  cpu::AttributeValue a;
  a.kind = cpu::AttributeValue::Kind::kString;
  a.s = std::move(s);
  return a;
}
cpu::AttributeValue integer(int64_t v) {
  cpu::AttributeValue a;
  a.i = v;
  return a;
}
Operand f32(Shape s, bool constant = false) { return {DataType::kFloat32, std::move(s), constant}; }

// NHWC convolution with an OHWI filter and a fused ReLU, as the compiler's
// convert-layout and fuse-conv passes emit most convolutions.
Case conv(int64_t H, int64_t W, int64_t C, int64_t O, int64_t k, int64_t stride, int64_t groups) {
  int64_t pad = k / 2;
  int64_t OH = (H + 2 * pad - k) / stride + 1, OW = (W + 2 * pad - k) / stride + 1;
  Case c{"fusedConv2d", {f32({1, H, W, C}), f32({O, k, k, C / groups}, true), f32({O}, true)}, {{1, OH, OW, O}}, {}};
  c.attrs = attrs({{"inputLayout", str("nhwc")}, {"filterLayout", str("ohwi")}, {"strides", ints({stride, stride})},
                   {"padding", ints({pad, pad, pad, pad})}, {"groups", integer(groups)}, {"activation", str("relu")}});
  return c;
}
// The same with a kh x kw filter and strides sh, sw: a conv1d run as a
// conv2d with H = 1 (audio feature extractors) has kh = 1.
Case convRect(int64_t H, int64_t W, int64_t C, int64_t O, int64_t kh, int64_t kw, int64_t sh, int64_t sw) {
  int64_t OH = (H - kh) / sh + 1, OW = (W - kw) / sw + 1;
  Case c{"fusedConv2d", {f32({1, H, W, C}), f32({O, kh, kw, C}, true), f32({O}, true)}, {{1, OH, OW, O}}, {}};
  c.attrs = attrs({{"inputLayout", str("nhwc")}, {"filterLayout", str("ohwi")}, {"strides", ints({sh, sw})},
                   {"padding", ints({0, 0, 0, 0})}, {"groups", integer(1)}, {"activation", str("relu")}});
  return c;
}
// A k x k convolution dilated by d, padded to keep the map's size (the
// taps outside it skipped by oneDNN's direct kernels); groups == C is depthwise.
Case convDilated(int64_t H, int64_t C, int64_t O, int64_t k, int64_t d, int64_t groups) {
  int64_t pad = d * (k - 1) / 2;
  Case c{"fusedConv2d", {f32({1, H, H, C}), f32({O, k, k, C / groups}, true), f32({O}, true)}, {{1, H, H, O}}, {}};
  c.attrs = attrs({{"inputLayout", str("nhwc")}, {"filterLayout", str("ohwi")}, {"strides", ints({1, 1})},
                   {"dilations", ints({d, d})}, {"padding", ints({pad, pad, pad, pad})}, {"groups", integer(groups)},
                   {"activation", str("relu")}});
  return c;
}
// resample2d of an nchw (axes 2, 3: one element per pixel) or nhwc (axes
// 1, 2: runs of C) map of H x H to S x S.
Case resample(const char *mode, bool nhwc, int64_t C, int64_t H, int64_t S) {
  Shape in = nhwc ? Shape{1, H, H, C} : Shape{1, C, H, H}, out = nhwc ? Shape{1, S, S, C} : Shape{1, C, S, S};
  Case c{"resample2d", {f32(in)}, {out}, {}};
  c.attrs = attrs({{"mode", str(mode)}, {"axes", ints(nhwc ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 3})},
                   {"sizes", ints({S, S})}});
  return c;
}
// matmulNBits as a decoder LLM's int4 layers run it: 4-bit blocks of 32
// with packed uint8 zero points, at `accuracyLevel` 4 (int8 activations,
// VNNI) or 0 (float); M rows (1: a decode step, more: a prefill).
Case matmulNBits(int64_t M, int64_t K, int64_t N, int64_t accuracy) {
  const int64_t blocks = K / 32;
  Case c{"matmulNBits",
         {f32({M, K}), {DataType::kUint8, {N, blocks, 16}, true}, f32({N * blocks}, true),
          {DataType::kUint8, {N * ((blocks * 4 + 7) / 8)}, true}},
         {{M, N}},
         {}};
  c.attrs = attrs({{"K", integer(K)}, {"N", integer(N)}, {"bits", integer(4)}, {"blockSize", integer(32)},
                   {"accuracyLevel", integer(accuracy)}});
  return c;
}
// lstm / gru over `steps` steps, forward: per step the gates' GEMV/GEMM
// of the input and the hidden state (kernels/LstmLayer.cpp, GruLayer.cpp).
// With `constWeights` false the weights are a previous node's output, packed
// on every run.
Case recurrent(const char *op, int64_t steps, int64_t batch, int64_t input, int64_t hidden,
               bool constWeights = true) {
  const int64_t gates = std::string(op) == "lstm" ? 4 : 3;
  Case c{op,
         {f32({steps, batch, input}), f32({1, gates * hidden, input}, constWeights),
          f32({1, gates * hidden, hidden}, constWeights), f32({1, gates * hidden}, true)},
         {},
         {}};
  for (int64_t i = 0; i < gates - 2; ++i) c.outputs.push_back({1, batch, hidden});  // lstm: hidden and cell state
  c.attrs = attrs({{"steps", integer(steps)}, {"hiddenSize", integer(hidden)}});
  return c;
}
// groupQueryAttention as a decoder LLM runs it (kernels/GqaAttention*):
// S new rows after `past` cached ones, H query heads sharing kvH key/value
// heads of size D; seqlensK and the total length say how many rows it reads.
Case gqa(int64_t S, int64_t past, int64_t H, int64_t kvH, int64_t D) {
  const int64_t T = past + S;
  Case c{"groupQueryAttention",
         {f32({1, S, H * D}), f32({1, S, kvH * D}), f32({1, S, kvH * D}), {DataType::kFloat32, {1, kvH, past, D}, false, 0, true},
          {DataType::kFloat32, {1, kvH, past, D}, false, 0, true}, {DataType::kInt32, {1}, false, int32_t(T - 1)},
          {DataType::kInt32, {1}, false, int32_t(T)}},
         {{1, S, H * D}, {1, kvH, T, D}, {1, kvH, T, D}},
         {}};
  c.attrs = attrs({{"numHeads", integer(H)}, {"kvNumHeads", integer(kvH)}});
  return c;
}
Case matmul(int64_t M, int64_t K, int64_t N) { return {"matmul", {f32({M, K}), f32({K, N}, true)}, {{M, N}}, {}}; }
// gemm as ONNX Gemm (a CNN's classifier, a Linear layer) compiles: B
// transposed ([N, K], as stored), a bias C; oneDNN, or the portable SGEMM
// under its size floor.
Case gemmBt(int64_t M, int64_t K, int64_t N) {
  Case c{"gemm", {f32({M, K}), f32({N, K}, true), f32({N}, true)}, {{M, N}}, {}};
  cpu::AttributeValue yes;
  yes.kind = cpu::AttributeValue::Kind::kBool;
  yes.i = 1;
  c.attrs = attrs({{"bTranspose", yes}});
  return c;
}
Case bmm(int64_t B, int64_t M, int64_t K, int64_t N) {
  return {"matmul", {f32({B, M, K}), f32({B, K, N})}, {{B, M, N}}, {}};
}
Case unary(const char *op, int64_t n) { return {op, {f32({n})}, {{n}}, {}}; }
Case binary(int64_t n) { return {"add", {f32({n}), f32({n})}, {{n}}, {}}; }
// Squaring by pow (a spectrum's power, a norm): x ^ 2 with a constant exponent.
Case powSquare(int64_t n) {
  Operand two{DataType::kFloat32, {1}, true, 2};
  return {"pow", {f32({n}), two}, {{n}}, {}};
}
Case reshape(int64_t n) {
  Case r{"reshape", {f32({n})}, {{n / 16, 16}}, {}};
  r.attrs = attrs({{"newShape", ints({n / 16, 16})}});
  return r;
}
Case transpose(int64_t a, int64_t b, int64_t c, int64_t d) {
  Case t{"transpose", {f32({a, b, c, d})}, {{a, c, b, d}}, {}};
  t.attrs = attrs({{"permutation", ints({0, 2, 1, 3})}});
  return t;
}
// NCHW <-> NHWC as the compiler's layout conversion emits them around
// layers it keeps in NCHW: the tiled (or, with a side <= 4, narrow) kernel.
Case toNhwc(int64_t C, int64_t H, int64_t W) {
  Case t{"transpose", {f32({1, C, H, W})}, {{1, H, W, C}}, {}};
  t.attrs = attrs({{"permutation", ints({0, 2, 3, 1})}});
  return t;
}
Case toNchw(int64_t H, int64_t W, int64_t C) {
  Case t{"transpose", {f32({1, H, W, C})}, {{1, C, H, W}}, {}};
  t.attrs = attrs({{"permutation", ints({0, 3, 1, 2})}});
  return t;
}
// convTranspose2d, NHWC with an OHWI filter as compiled CNNs run it (a
// segmentation or detection head's upsampling): k x k, stride s, padding p.
Case convTranspose(int64_t H, int64_t C, int64_t O, int64_t k, int64_t s, int64_t p) {
  int64_t OH = (H - 1) * s + k - 2 * p;
  Case c{"convTranspose2d", {f32({1, H, H, C}), f32({O, k, k, C}, true)}, {{1, OH, OH, O}}, {}};
  c.attrs = attrs({{"inputLayout", str("nhwc")}, {"filterLayout", str("ohwi")}, {"strides", ints({s, s})},
                   {"padding", ints({p, p, p, p})}});
  return c;
}
Case reduce(int64_t rows, int64_t cols) {
  Case c{"reduceMean", {f32({rows, cols})}, {{rows}}, {}};
  c.attrs = attrs({{"axes", ints({1})}});
  return c;
}
Case softmax(int64_t rows, int64_t cols) {
  Case c{"softmax", {f32({rows, cols})}, {{rows, cols}}, {}};
  c.attrs = attrs({{"axis", integer(1)}});
  return c;
}
Case layerNorm(int64_t rows, int64_t cols) {
  Case c{"layerNormalization", {f32({rows, cols}), f32({cols}, true), f32({cols}, true)}, {{rows, cols}}, {}};
  c.attrs = attrs({{"axes", ints({1})}});
  return c;
}
// nhwc instanceNormalization (InstanceNormNhwc.h's kernel on AVX-512):
// scale and bias constant.
Case instanceNormNhwc(int64_t N, int64_t H, int64_t W, int64_t C) {
  Case c{"instanceNormalization", {f32({N, H, W, C}), f32({C}, true), f32({C}, true)}, {{N, H, W, C}}, {}};
  c.attrs = attrs({{"layout", str("nhwc")}});
  return c;
}
Case pool(const char *op, int64_t H, int64_t C, int64_t k, int64_t stride) {
  int64_t OH = (H - k) / stride + 1;
  Case c{op, {f32({1, H, H, C})}, {{1, OH, OH, C}}, {}};
  c.attrs = attrs({{"layout", str("nhwc")}, {"windowDimensions", ints({k, k})}, {"strides", ints({stride, stride})}});
  return c;
}
Case attention(int64_t S, int64_t D, int64_t heads) {
  Case c{"fusedAttention", {f32({1, S, D}), f32({1, S, D}), f32({1, S, D})}, {{1, S, D}}, {}};
  c.attrs = attrs({{"heads", integer(heads)}});
  return c;
}

// The grid, per family in the order measured: sizes of the models this
// runtime meets (CNN stages, transformer blocks), small to large spread so a
// deadline still leaves a usable spread.
std::vector<std::vector<Case>> grid() {
  return {
      {matmul(128, 768, 768), matmul(1, 1024, 1024), matmul(128, 768, 3072), matmul(16, 256, 256),
       matmul(196, 384, 1536), matmul(1, 2048, 1000), matmul(512, 512, 512), matmul(4, 128, 64),
       matmul(64, 3072, 768), matmul(1024, 64, 256), matmul(49, 384, 1536), matmul(1, 64, 10), matmul(1, 256, 32),
       gemmBt(1, 1536, 1000), gemmBt(1, 1024, 1280)},
      {gemmBt(1, 512, 1000), gemmBt(1, 128, 256), gemmBt(8, 256, 128), gemmBt(1, 320, 1000)},
      {conv(56, 56, 64, 64, 3, 1, 1), conv(14, 14, 256, 256, 3, 1, 1), conv(112, 112, 3, 32, 3, 2, 1),
       conv(28, 28, 128, 128, 3, 1, 1), conv(7, 7, 512, 512, 3, 1, 1), conv(56, 56, 128, 128, 3, 2, 32),
       conv(224, 224, 3, 64, 7, 2, 1), conv(28, 28, 96, 96, 3, 1, 1), convRect(1, 400, 512, 512, 1, 3, 1, 2),
       conv(56, 56, 128, 128, 3, 2, 1), conv(4, 4, 512, 512, 3, 1, 1), convRect(1, 100, 512, 512, 1, 2, 1, 2),
       conv(28, 28, 32, 64, 5, 1, 1), conv(32, 32, 3, 16, 3, 2, 1), conv(14, 14, 16, 32, 3, 1, 1),
       conv(16, 16, 8, 16, 3, 1, 1), conv(8, 8, 32, 32, 3, 1, 1), conv(14, 14, 96, 208, 3, 1, 1),
       convDilated(64, 64, 64, 3, 2, 1), conv(7, 7, 128, 192, 3, 1, 1), convDilated(32, 256, 256, 3, 8, 1),
       conv(28, 28, 160, 320, 3, 1, 1), convDilated(16, 320, 128, 3, 12, 1), conv(28, 28, 16, 32, 5, 1, 1),
       convDilated(16, 320, 128, 3, 24, 1), conv(16, 16, 3, 8, 3, 1, 1), conv(24, 24, 8, 16, 3, 2, 1),
       // Framed single-channel conv1d (an STFT front end: a long window, a
       // hop, few frames) on oneDNN's direct kernel; 3x3 layers narrowing
       // to few output channels (a detection head's) on Winograd.
       convRect(1, 2048, 1, 201, 1, 400, 1, 160), conv(64, 64, 96, 24, 3, 1, 1),
       convRect(1, 4096, 1, 129, 1, 256, 1, 128), conv(40, 40, 64, 32, 3, 1, 1),
       convRect(1, 1536, 1, 321, 1, 640, 1, 224),
       // A conv1d of a few frames under oneDNN's floor (the portable kernel:
       // one SGEMM block, wide K): the portable points above have 144-256
       // pixels or one, and priced such layers at twice their time.
       convRect(1, 10, 96, 128, 1, 3, 1, 1)},
      // conv1d on the row-window packed SGEMM (conv2d.rowwindow): audio
      // front ends' lengths (hundreds to thousands of frames), 64-512
      // channels, kernels of 2-5 taps at strides 1 and 2.
      {convRect(1, 2000, 512, 512, 1, 2, 1, 2), convRect(1, 3000, 128, 128, 1, 3, 1, 1),
       convRect(1, 1200, 80, 384, 1, 3, 1, 1), convRect(1, 600, 384, 384, 1, 3, 1, 2),
       convRect(1, 256, 64, 128, 1, 5, 1, 1), convRect(1, 130, 512, 256, 1, 3, 1, 1)},
      // Grouped layers on oneDNN of fewer than 16 channels per group
      // (conv2d.grouped.onednn; 8 here: 4 are our grouped kernel's), stride
      // 1 on maps of 7x7 to 28x28 and stride 2 onto 56x56: a 7x7 map ran at
      // about half the rate per FLOP of a 28x28 one. The parameters ignore
      // the stride, so one point per output size: two of one size would
      // share parameters, and the first would shadow the second.
      {conv(28, 28, 192, 192, 3, 1, 24), conv(7, 7, 384, 384, 3, 1, 48), conv(14, 14, 256, 256, 3, 1, 32),
       conv(112, 112, 64, 64, 3, 2, 8)},
      // 4 channels per group on our grouped kernel (conv2d.grouped4): maps
      // of 7 to 112 columns (8-pixel tiles and their tails), 32-512
      // channels, 3x3 at strides 1 and 2.
      {conv(56, 56, 64, 64, 3, 1, 16), conv(28, 28, 256, 256, 3, 1, 64), conv(112, 112, 32, 32, 3, 1, 8),
       conv(14, 14, 512, 512, 3, 1, 128), conv(20, 20, 192, 192, 3, 1, 48), conv(28, 28, 128, 128, 3, 2, 32),
       conv(7, 7, 1024, 1024, 3, 1, 256)},
      {conv(56, 56, 64, 256, 1, 1, 1), conv(14, 14, 96, 576, 1, 1, 1), conv(112, 112, 32, 16, 1, 1, 1),
       conv(7, 7, 512, 2048, 1, 1, 1), conv(28, 28, 128, 512, 1, 1, 1), conv(56, 56, 24, 144, 1, 1, 1),
       conv(7, 7, 160, 960, 1, 1, 1), conv(14, 14, 1024, 256, 1, 1, 1), conv(28, 28, 192, 32, 1, 1, 1),
       conv(14, 14, 480, 64, 1, 1, 1), conv(7, 7, 832, 128, 1, 1, 1), conv(28, 28, 192, 16, 1, 1, 1),
       // 7x7 layers of 192-511 output channels, which the packed SGEMM's
       // tiles run since 759daad (its other 7x7 points have 960 and 2048:
       // four and eight times the panels to share between threads).
       conv(7, 7, 768, 256, 1, 1, 1), conv(7, 7, 320, 320, 1, 1, 1),
       // Squeeze-and-excitation layers on a pooled 1x1 map (EfficientNet-B0's
       // squeezes and expands): calls of microseconds, mostly the kernel's
       // fixed cost, which the ratios of the points above do not carry.
       // Squeezes to <= 32 channels run our narrow 1x1; the expands with a
       // filter under 64 KB the portable kernel (conv2d.portable's points),
       // from 64 KB (1152 <-> 48) oneDNN's matrix-vector product.
       conv(1, 1, 480, 20, 1, 1, 1), conv(1, 1, 20, 480, 1, 1, 1), conv(1, 1, 1152, 48, 1, 1, 1),
       conv(1, 1, 48, 1152, 1, 1, 1), conv(1, 1, 96, 4, 1, 1, 1), conv(1, 1, 4, 96, 1, 1, 1)},
      {conv(112, 112, 32, 32, 3, 1, 32), conv(28, 28, 192, 192, 3, 1, 192), conv(7, 7, 960, 960, 3, 1, 960),
       conv(56, 56, 144, 144, 3, 2, 144), conv(14, 14, 576, 576, 3, 1, 576), conv(14, 14, 480, 480, 5, 1, 480),
       conv(56, 56, 96, 96, 3, 1, 96), convDilated(64, 64, 64, 3, 2, 64), convDilated(32, 256, 256, 5, 2, 256),
       conv(28, 28, 240, 240, 5, 1, 240), conv(28, 28, 240, 240, 5, 2, 240), convDilated(32, 128, 128, 3, 4, 128),
       conv(80, 80, 48, 48, 3, 2, 48), conv(48, 48, 128, 128, 3, 2, 128), conv(32, 32, 256, 256, 3, 2, 256)},
      {resample("linear", false, 64, 32, 64), resample("nearest-neighbor", false, 64, 32, 64),
       resample("linear", true, 64, 32, 64), resample("nearest-neighbor", true, 64, 32, 64),
       resample("linear", false, 16, 32, 128), resample("nearest-neighbor", false, 16, 32, 256),
       resample("linear", false, 8, 32, 256), resample("linear", true, 16, 64, 128),
       resample("nearest-neighbor", true, 16, 64, 128),
       // nchw maps whose input and output fit the L2: their byte roofline
       // is the L2's, half the L3 one of the points above, while the
       // per-pixel walk that bounds them costs the same.
       resample("nearest-neighbor", false, 32, 16, 32), resample("nearest-neighbor", false, 16, 40, 80),
       resample("linear", false, 16, 40, 80)},
      {binary(1 << 16), binary(1 << 10), binary(1 << 20), binary(1 << 18), binary(1 << 22)},
      {powSquare(1 << 12), powSquare(1 << 8), powSquare(1 << 16)},
      {unary("relu", 1 << 16), unary("relu", 1 << 10), unary("relu", 1 << 20), unary("relu", 1 << 22)},
      // Two reads of x and one write, in channel groups per thread: a
      // GroupNorm over a conv1d's frames (one image, 512 channels), a CNN
      // stage's map, two images of 48 channels (a group per image). Paid
      // for by the binary and relu points at 8K elements the 1K and 64K
      // ones bracket.
      {instanceNormNhwc(1, 2000, 1, 512), instanceNormNhwc(1, 28, 28, 128), instanceNormNhwc(2, 16, 16, 48)},
      {unary("sigmoid", 1 << 16), unary("sigmoid", 1 << 10), unary("sigmoid", 1 << 20)},
      {unary("exp", 1 << 16), unary("exp", 1 << 10), unary("exp", 1 << 20)},
      {unary("tanh", 1 << 16), unary("tanh", 1 << 10), unary("tanh", 1 << 20)},
      {unary("erf", 1 << 16), unary("erf", 1 << 10), unary("erf", 1 << 20)},
      {unary("gelu", 1 << 16), unary("gelu", 1 << 10), unary("gelu", 1 << 20)},
      {unary("sqrt", 1 << 16), unary("sqrt", 1 << 10)},
      {unary("log", 1 << 16), unary("log", 1 << 10), unary("log", 1 << 20)},
      {unary("sin", 1 << 16), unary("sin", 1 << 10)},
      {unary("cos", 1 << 16), unary("cos", 1 << 10)},
      {unary("tan", 1 << 16), unary("tan", 1 << 10)},
      {unary("softplus", 1 << 16), unary("softplus", 1 << 10)},
      {unary("elu", 1 << 16), unary("elu", 1 << 10)},
      {recurrent("lstm", 64, 1, 128, 256), recurrent("gru", 64, 1, 80, 256), recurrent("lstm", 1, 1, 64, 64),
       recurrent("gru", 1, 1, 128, 128), recurrent("lstm", 8, 4, 128, 128), recurrent("gru", 16, 1, 64, 64),
       recurrent("lstm", 200, 1, 80, 128)},
      {recurrent("lstm", 1, 1, 128, 128, false), recurrent("gru", 1, 1, 64, 64, false),
       recurrent("lstm", 16, 1, 64, 64, false), recurrent("gru", 8, 1, 256, 256, false),
       recurrent("lstm", 1, 2, 32, 96, false)},
      {reshape(1 << 12), reshape(1 << 8), reshape(1 << 16), reshape(1 << 20)},
      {transpose(1, 128, 12, 64), transpose(1, 8, 4, 16), transpose(1, 512, 16, 64), transpose(1, 32, 32, 32),
       transpose(1, 1024, 32, 64)},
      {toNhwc(64, 56, 56), toNchw(28, 28, 128), toNhwc(3, 224, 224), toNhwc(256, 14, 14), toNchw(112, 112, 16),
       toNhwc(16, 32, 32), toNchw(64, 64, 2)},
      {convTranspose(64, 32, 32, 2, 2, 0), convTranspose(16, 256, 128, 2, 2, 0), convTranspose(128, 16, 1, 2, 2, 0),
       convTranspose(14, 64, 32, 4, 2, 1), convTranspose(32, 64, 32, 2, 2, 0), convTranspose(28, 32, 16, 3, 2, 1),
       convTranspose(8, 128, 64, 2, 2, 0), convTranspose(56, 24, 16, 4, 2, 1)},
      {reduce(128, 768), reduce(1, 1000), reduce(2048, 49), reduce(16, 64), reduce(4096, 512)},
      {softmax(1536, 128), softmax(1, 1000), softmax(512, 64), softmax(2364, 197), softmax(8, 16)},
      {layerNorm(128, 768), layerNorm(1, 768), layerNorm(197, 768), layerNorm(16, 64), layerNorm(3136, 96)},
      {pool("maxPool2d", 112, 64, 3, 2), pool("averagePool2d", 7, 2048, 7, 1), pool("maxPool2d", 56, 128, 2, 2),
       pool("averagePool2d", 14, 256, 2, 2), pool("averagePool2d", 7, 64, 7, 1), pool("averagePool2d", 112, 32, 112, 1),
       pool("averagePool2d", 28, 240, 28, 1), pool("maxPool2d", 28, 256, 3, 1), pool("maxPool2d", 14, 480, 3, 1),
       pool("maxPool2d", 80, 48, 3, 2), pool("maxPool2d", 40, 160, 3, 2)},
      {matmulNBits(1, 768, 2048, 4), matmulNBits(64, 768, 768, 4), matmulNBits(1, 2048, 768, 4),
       matmulNBits(256, 768, 2048, 4), matmulNBits(1, 768, 32000, 4), matmulNBits(16, 2048, 768, 4),
       matmulNBits(4, 1024, 1024, 4), matmulNBits(1, 1024, 1024, 0), matmulNBits(128, 1024, 1024, 0),
       matmulNBits(8, 4096, 1024, 4), matmulNBits(32, 1536, 4096, 4), matmulNBits(96, 2048, 2048, 4),
       matmulNBits(8, 1280, 6144, 4)},
      {gqa(1, 256, 12, 4, 64), gqa(64, 0, 12, 4, 64), gqa(1, 1024, 12, 4, 64), gqa(16, 0, 32, 8, 128),
       gqa(1, 64, 32, 8, 128), gqa(128, 0, 12, 4, 64), gqa(1, 2048, 12, 4, 64), gqa(8, 512, 12, 4, 64)},
      {bmm(12, 128, 64, 128), bmm(12, 128, 128, 64), bmm(8, 64, 64, 64), bmm(1, 256, 256, 256), bmm(6, 197, 64, 197)},
      {attention(128, 768, 12), attention(64, 512, 8), attention(197, 768, 12), attention(16, 256, 4),
       attention(128, 384, 12), attention(64, 256, 8), attention(49, 384, 6)},
  };
}

struct Timed {
  double ms = 0;  // the median
  double hotMs = 0;  // the same, rerun without evicting (hot > 0 only)
  // Each run with weights and caller buffers evicted from the L3 (cold only).
  std::vector<double> coldRunsMs;
  double spread = 0;  // log(p90/p10) / 2.56
  double firstMs = 0;
  double warmUpMs = 0;
};

// Between timed runs every thread streams through twice its L2 (untimed):
// in a graph the nodes before this one have pushed its operands out of L1
// and L2, so a kernel rerun on hot caches would look faster than it runs.
struct Evictor {
  std::vector<Buffer> scratch;
  uint64_t bytes = 0;
  // Its L3 eviction reads the bandwidth passes' first source buffer (grown
  // to twice the L3 if it is shorter): one first touch of that size fewer
  // per thread count (under a sanitizer, seconds of a short deadline).
  StreamBuffers &streams;
  Evictor(int threads, uint64_t l2, StreamBuffers &streams)
      : bytes(std::max<uint64_t>(2 * l2, 1 << 20)), streams(streams) {
    for (int t = 0; t < threads; ++t) {
      scratch.push_back(allocate(bytes));
      std::memset(scratch.back().get(), 1, bytes);
    }
  }
  // Pushes everything out of the L3 too, as a run whose working set
  // exceeds it has by the time it reads a weight again. By reading: the
  // lines left behind are clean, as a run's streamed weights leave them
  // (dirty ones would make the timed kernel pay their write-back).
  void runL3(uint64_t l3) {
    const uint64_t need = std::max<uint64_t>(2 * l3, 8 << 20);
    streams.ensure(1, need, false);
    gSink = streamRead(reinterpret_cast<const float *>(streams.src[0].get()), int64_t(need / 4));
  }
  // In a graph other kernels ran just before this one: their code pushed
  // its code out of the instruction caches and retrained the branch
  // predictors. A few small kernels of other families, run between timed
  // runs, do the same (a microsecond kernel rerun alone ran 2-4x faster
  // than between a model's nodes).
  std::vector<std::unique_ptr<Probe>> others;
  void disturb(cpu::ThreadPool &pool) {
    if (others.empty())
      for (const Case &c : {binary(1 << 12), transpose(1, 16, 8, 32), softmax(64, 64), conv(8, 8, 32, 32, 1, 1, 1)}) {
        auto probe = std::make_unique<Probe>();
        if (probe->build(c) && probe->kernel) others.push_back(std::move(probe));
      }
    for (auto &o : others) o->run(pool);
  }
  void run(cpu::ThreadPool &pool) {
    pool.parallelFor(pool.numThreads(), 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e && size_t(t) < scratch.size(); ++t) {
        volatile uint8_t *p = scratch[size_t(t)].get();
        for (uint64_t o = 0; o < bytes; o += 64) p[o] = uint8_t(p[o] + 1);
      }
    });
  }
};

// Runs the probe until `budget` seconds or `maxRuns` runs (at least
// `minRuns` after the first); with `hot`, then as many again back to back, caches
// left warm. With `l3` > 0, also `coldRuns` runs after evicting the L3
// (weights and caller buffers cold, the inputs a previous node wrote read
// back in); coldRunsMs stays empty with none. Past `hardSeconds` from the start
// (warm-up included) each kind of run stops after its first: a kernel far
// slower than its grid point was sized for (a sanitized build, a slow
// machine) then keeps the calibration's deadline.
Timed timeProbe(Probe &p, cpu::ThreadPool &pool, Evictor &evict, double budget, bool hot = false,
                uint64_t l3 = 0, int coldRuns = 5, size_t minRuns = 5, size_t maxRuns = 40,
                double hardSeconds = 1e9) {
  Timed r;
  const auto entered = Clock::now();
  auto overrun = [&] { return secondsSince(entered) > hardSeconds; };
  Stopwatch clock(pool.numThreads());
  double w0 = clock.now();
  p.kernel->warmUp(pool.numThreads());
  r.warmUpMs = (clock.now() - w0) * 1e3;
  double f0 = clock.now();
  p.run(pool);
  r.firstMs = (clock.now() - f0) * 1e3;
  p.run(pool);
  // A kernel of microseconds is timed by the wall clock even on one thread:
  // the CPU clock's system call before it leaves the core's branch and
  // micro-op state cold (kernel-entry mitigations), so such kernels measured
  // 2-4x slower than between the nodes of a graph. A time slice taken by
  // another process is rare in so short a run, and the median ignores it.
  const bool fine = clock.cpu && r.firstMs < 0.05;
  Stopwatch wall(2);
  const Stopwatch &timer = fine ? wall : clock;
  std::vector<double> v;
  auto start = Clock::now();
  while (v.size() < maxRuns && (v.size() < minRuns || secondsSince(start) < budget) && !(!v.empty() && overrun())) {
    evict.run(pool);
    evict.disturb(pool);
    double t0 = timer.now();
    p.run(pool);
    v.push_back(timer.since(t0) * 1e3);
  }
  std::sort(v.begin(), v.end());
  // The median at any thread count, as the estimate prices a run's median.
  // Several threads are timed by the wall clock, where a core taken away
  // stalls a whole parallel region; on a VM whose host takes its second
  // vCPU now and then, the runs meet that as often as the grid does (the
  // fastest fifth priced a 2-vCPU Zen 5 VM's 2-thread runs low where its
  // 1-thread ones were right). A visit without its cores is left out apart
  // (visitsWithTheirCores).
  r.ms = v[v.size() / 2];
  if (v.size() >= 8) r.spread = std::log(v[v.size() * 9 / 10] / std::max(v[v.size() / 10], 1e-6)) / 2.5631;
  if (hot) {
    // Its data left in L1/L2, other kernels' code run in between.
    std::vector<double> h;
    for (size_t k = 0; k < v.size() && !(k > 0 && overrun()); ++k) {
      evict.disturb(pool);
      double t0 = timer.now();
      p.run(pool);
      h.push_back(timer.since(t0) * 1e3);
    }
    std::sort(h.begin(), h.end());
    r.hotMs = h[h.size() / 2];
  }
  if (l3 > 0 && coldRuns > 0) {
    std::vector<double> c;
    for (int k = 0; k < coldRuns && !(k > 0 && overrun()); ++k) {
      evict.runL3(l3);
      p.touchArenaInputs();
      evict.run(pool);
      evict.disturb(pool);
      double t0 = timer.now();
      p.run(pool);
      c.push_back(timer.since(t0) * 1e3);
    }
    r.coldRunsMs = std::move(c);
  }
  return r;
}

double nodeOverheadUs(cpu::ThreadPool &pool) {
  Probe p;
  if (!p.build(binary(16)) || !p.kernel) return 0;
  p.run(pool);
  if (!p.runStatus.isOk()) return 0;
  std::vector<double> v;
  Stopwatch clock(pool.numThreads());
  for (int rep = 0; rep < 7; ++rep) {
    double t0 = clock.now();
    for (int k = 0; k < 1000; ++k) p.run(pool);
    v.push_back((clock.now() - t0) / 1000 * 1e6);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A graph of `nodes` relu nodes in a chain over 16 floats, built in memory
// as the loader would hand it over, for timing the executor itself.
Status reluChain(int nodes, std::shared_ptr<rt::PreparedGraph> *out) {
  rt::LoadedGraph g;
  g.name = "calibration chain";
  for (int i = 0; i <= nodes; ++i) {
    rt::LoadedTensor t;
    t.name = "t" + std::to_string(i);
    t.shape = {16};
    t.byteSize = t.interfaceByteSize = 64;
    t.role = i == 0 ? rt::TensorRole::kInput : rt::TensorRole::kIntermediate;
    t.producer = i - 1;
    g.tensors.push_back(std::move(t));
  }
  for (int i = 0; i < nodes; ++i) {
    rt::LoadedNode n;
    n.op = "relu";
    n.name = "relu" + std::to_string(i);
    n.inputs = {i};
    n.outputs = {i + 1};
    g.nodes.push_back(std::move(n));
  }
  g.inputs = {0};
  g.outputs = {uint32_t(nodes)};
  return rt::prepareGraph(std::move(g), out);
}

// Microseconds per Executor::run of a `nodes`-long relu chain on `threads`:
// the median of batches of back-to-back runs, as a benchmark loop runs them.
double chainRunUs(int nodes, int threads) {
  std::shared_ptr<rt::PreparedGraph> g;
  if (!reluChain(nodes, &g)) return -1;
  std::unique_ptr<rt::Executor> ex;
  if (!rt::Executor::create(g, threads, &ex)) return -1;
  alignas(64) float input[16] = {};
  if (!ex->setInput(0, input, sizeof input) || !ex->run()) return -1;
  std::vector<double> v;
  Stopwatch clock(threads);
  for (int rep = 0; rep < 7; ++rep) {
    double t0 = clock.now();
    for (int k = 0; k < 200; ++k)
      if (!ex->run()) return -1;
    v.push_back((clock.now() - t0) / 200 * 1e6);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ---- kernels inside a graph against the same kernels alone.
//
// Calibration's chains are a model's stretch of nodes as real kernels, run
// back to back as a graph runs them and also timed one by one as the grid
// times its kernels; what the estimate adds for a graph's nodes comes from
// the difference.

constexpr int kSameInput = -2;
struct ChainNode {
  Case c;
  // The chain position whose output is the second input (add, mul); -1:
  // the graph's input; kSameInput: the node's first input again.
  int residual = -1;
};

// A mobile net's inverted-residual stages: 1x1 expand, depthwise 3x3, 1x1
// project, the residual add, a swish (sigmoid, mul), stride-2 depthwise
// transitions; nodes of 2-50 us.
std::vector<ChainNode> mobileChain() {
  std::vector<ChainNode> v;
  auto block = [&](int64_t H, int64_t C, int64_t E, bool swish) {
    int start = int(v.size()) - 1;  // the block's input: the previous node's output
    v.push_back({conv(H, H, C, E, 1, 1, 1)});
    v.push_back({conv(H, H, E, E, 3, 1, E)});
    v.push_back({conv(H, H, E, C, 1, 1, 1)});
    v.push_back({{"add", {f32({1, H, H, C}), f32({1, H, H, C})}, {{1, H, H, C}}, {}}, start});
    if (swish) {
      int x = int(v.size()) - 1;
      v.push_back({unary("sigmoid", H * H * C)});
      v.back().c.inputs[0].shape = {1, H, H, C};
      v.back().c.outputs[0] = {1, H, H, C};
      v.push_back({{"mul", {f32({1, H, H, C}), f32({1, H, H, C})}, {{1, H, H, C}}, {}}, x});
    }
  };
  v.push_back({conv(28, 28, 32, 32, 1, 1, 1)});
  block(28, 32, 96, false);
  block(28, 32, 96, true);
  v.push_back({conv(28, 28, 32, 32, 3, 2, 32)});
  v.push_back({conv(14, 14, 32, 64, 1, 1, 1)});
  block(14, 64, 192, false);
  block(14, 64, 192, true);
  v.push_back({conv(14, 14, 64, 64, 3, 2, 64)});
  v.push_back({conv(7, 7, 64, 160, 1, 1, 1)});
  block(7, 160, 480, false);
  block(7, 160, 480, true);
  return v;
}

// Whether each of the pool's threads has a core of its own just now: the
// same FMA work on every thread at once takes at most 1.3x what it takes on
// one thread alone (on a shared machine another process may hold a core
// for seconds; a chain timed then says nothing of the device).
bool poolHasItsCores(cpu::ThreadPool &pool) {
  if (pool.numThreads() == 1) return true;
  __builtin_cpu_init();
  double (*fn)(int64_t) = __builtin_cpu_supports("avx512f") ? &fmaAvx512 : &fmaAvx2;
  const int64_t iters = 1 << 15;  // ~0.5 ms
  auto timeOnce = [&](int threads) {
    auto t0 = Clock::now();
    pool.parallelFor(threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) gSink = fn(iters);
    });
    return secondsSince(t0);
  };
  double one = INFINITY, all = INFINITY;
  for (int k = 0; k < 3; ++k) {
    one = std::min(one, timeOnce(1));
    all = std::min(all, timeOnce(pool.numThreads()));
  }
  return all <= 1.3 * one;
}

// The chain as the loader would hand it over, weightless (the estimate
// reads no constant data): what the estimate prices it as.
Status chainGraph(const std::vector<ChainNode> &chain, std::shared_ptr<rt::PreparedGraph> *out) {
  rt::LoadedGraph g;
  g.name = "calibration chain";
  auto tensor = [&](DataType dt, const Shape &s, rt::TensorRole role, int32_t producer) {
    rt::LoadedTensor t;
    t.name = "t" + std::to_string(g.tensors.size());
    t.dtype = t.interfaceType = dt;
    t.shape = s;
    t.byteSize = t.interfaceByteSize = elements(s) * uint64_t(dataTypeBits(dt)) / 8;
    t.role = role;
    t.producer = producer;
    if (role == rt::TensorRole::kConstant) g.weightsSize += t.byteSize;
    g.tensors.push_back(std::move(t));
    return int32_t(g.tensors.size() - 1);
  };
  std::vector<int32_t> outputOf;
  int32_t current = tensor(DataType::kFloat32, chain[0].c.inputs[0].shape, rt::TensorRole::kInput, -1);
  g.inputs = {uint32_t(current)};
  for (size_t i = 0; i < chain.size(); ++i) {
    const Case &c = chain[i].c;
    rt::LoadedNode n;
    n.op = c.op;
    n.name = c.op + std::to_string(i);
    n.attributes = c.attrs;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      if (k == 0) n.inputs.push_back(current);
      else if (c.inputs[k].constant) n.inputs.push_back(tensor(c.inputs[k].dtype, c.inputs[k].shape, rt::TensorRole::kConstant, -1));
      else if (chain[i].residual == kSameInput) n.inputs.push_back(current);
      else n.inputs.push_back(chain[i].residual < 0 ? g.inputs[0] : outputOf[size_t(chain[i].residual)]);
    }
    current = tensor(DataType::kFloat32, c.outputs[0], rt::TensorRole::kIntermediate, int32_t(i));
    n.outputs = {current};
    outputOf.push_back(current);
    g.nodes.push_back(std::move(n));
  }
  g.outputs = {uint32_t(current)};
  return rt::prepareGraph(std::move(g), out);
}

// One chain on `threads`: its kernels run back to back on the pool, each
// reading what the previous one wrote, as the executor runs a graph's
// nodes (the executor's own costs are measured apart: node and run
// overhead), and the same kernels alone as the grid times them, each on the
// thread count the estimate prices it with (Estimate's pricedThreads).
// Both on the same pools, in rounds that
// each time the chain and then its kernels alone: a stall of the machine
// (another process taking a core for seconds) spoils a round, not the
// comparison; the terms are medians over the rounds.
struct ChainTiming {
  int nodes = 0;          // 0: not measured
  bool stalled = false;   // not measured: a core was elsewhere in all rounds but one
  double spread = 0;      // log(p90 / p10) / 2.56 of the chain's runs
  // Per round: the chain's run (the median, as timeProbe's) and its nodes
  // timed alone (the sum).
  std::vector<double> graphMs, aloneMs;
};
ChainTiming timeChain(const std::vector<ChainNode> &chain, const DeviceProfile &p,
                      std::vector<std::unique_ptr<cpu::ThreadPool>> &pools,
                      std::vector<std::unique_ptr<Evictor>> &evictors, int threads, double budget) {
  ChainTiming r;
  std::shared_ptr<rt::PreparedGraph> g;
  Estimate priced;
  EstimateOptions eo;
  eo.threads = threads;
  if (!chainGraph(chain, &g) || !estimateGraph(*g, p, eo, &priced) || priced.nodes.size() != chain.size()) return r;
  // One probe per node (each its own weights), fed by its predecessors.
  std::vector<std::unique_ptr<Probe>> probes;
  for (size_t i = 0; i < chain.size(); ++i) {
    auto probe = std::make_unique<Probe>();
    if (!probe->build(chain[i].c) || !probe->kernel) return r;
    if (i > 0) {
      const cpu::TensorBuffer *previous = probes.back()->outs[0];
      probe->feed(0, previous);
      for (size_t k = 1; k < chain[i].c.inputs.size(); ++k) {
        if (chain[i].c.inputs[k].constant) continue;
        const int from = chain[i].residual;
        probe->feed(k, from == kSameInput ? previous : from < 0 ? probes[0]->ins[0] : probes[size_t(from)]->outs[0]);
      }
    }
    probe->kernel->warmUp(threads);
    probes.push_back(std::move(probe));
  }
  // The kernels timed alone: one per shape and priced thread count (the
  // chains' shapes tell their options apart: strides and groups change the
  // output or the filter shape).
  struct Distinct {
    Probe *probe = nullptr;
    int threads = 1;
    int count = 0;
  };
  std::vector<Distinct> distinct;
  std::map<std::pair<std::string, int>, size_t> index;
  for (size_t i = 0; i < chain.size(); ++i) {
    const Case &c = chain[i].c;
    std::string key = c.op + " -> " + shapeToString(c.outputs[0]);
    for (const Operand &o : c.inputs) key += " " + shapeToString(o.shape);
    const int T = std::clamp(priced.nodes[i].pricedThreads, 1, int(pools.size()));
    auto [it, added] = index.insert({{key, T}, distinct.size()});
    if (added)
      distinct.push_back({probes[i].get(), T, 0});
    ++distinct[it->second].count;
  }
  cpu::ThreadPool &pool = *pools[size_t(threads - 1)];
  auto runChain = [&] {
    for (auto &probe : probes) probe->run(pool);
  };
  runChain();
  const int rounds = 4;
  const double slice = budget / 2 / rounds;
  Stopwatch clock(threads);
  std::vector<double> all;
  for (int round = 0; round < rounds; ++round) {
    if (!poolHasItsCores(pool)) continue;
    std::vector<double> v;
    auto start = Clock::now();
    while (v.size() < 100 && (v.size() < 5 || secondsSince(start) < slice)) {
      double t0 = clock.now();
      runChain();
      v.push_back(clock.since(t0) * 1e3);
    }
    std::sort(v.begin(), v.end());
    double alone = 0;
    for (Distinct &d : distinct) {
      Timed m = timeProbe(*d.probe, *pools[size_t(d.threads - 1)], *evictors[size_t(d.threads - 1)],
                          slice / double(distinct.size()), false, 0);
      alone += d.count * m.ms;
    }
    // A round during which a core went elsewhere is not kept.
    if (!poolHasItsCores(pool)) continue;
    all.insert(all.end(), v.begin(), v.end());
    r.graphMs.push_back(v[v.size() / 2]);
    r.aloneMs.push_back(alone);
  }
  for (auto &probe : probes)
    if (!probe->runStatus.isOk()) return ChainTiming{};
  // Two rounds at least, each with every thread on a core of its own.
  if (r.graphMs.size() < 2) {
    r.stalled = true;
    return r;
  }
  std::sort(all.begin(), all.end());
  r.spread = std::log(all[all.size() * 9 / 10] / std::max(all[all.size() / 10], 1e-9)) / 2.5631;
  r.nodes = int(chain.size());
  return r;
}

double medianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

uint64_t effectiveL3FromSweep(const std::vector<std::pair<uint64_t, double>> &sweep, uint64_t reportedL3) {
  if (sweep.size() < 4) return reportedL3;
  // The L3's rate: the better of the two smallest sizes; DRAM's: the lower
  // of the two largest (one noisy pass moves neither much).
  const double l3 = std::max(sweep[0].second, sweep[1].second);
  const double dram = std::min(sweep[sweep.size() - 1].second, sweep[sweep.size() - 2].second);
  // No fall worth the name: the reported L3 holds (or it is beyond the sweep).
  if (!(dram > 0) || l3 < 1.5 * dram) return reportedL3;
  // The last size before the rate first falls below the geometric middle
  // of the two: past it most of a cycled working set comes from DRAM.
  const double middle = std::sqrt(l3 * dram);
  uint64_t kept = sweep[0].first;
  for (const auto &[bytes, gbs] : sweep) {
    if (gbs < middle) break;
    kept = bytes;
  }
  return std::min(kept, reportedL3);
}

std::vector<GridVisit> gridVisitOrder(const std::vector<size_t> &familySizes, int maxThreads, int passes) {
  std::vector<GridVisit> pass;
  size_t rounds = 0;
  for (size_t n : familySizes) rounds = std::max(rounds, n);
  for (size_t r = 0; r < rounds; ++r)
    for (size_t f = 0; f < familySizes.size(); ++f)
      if (r < familySizes[f])
        for (int T = 1; T <= std::max(1, maxThreads); ++T) pass.push_back({f, r, T, 0});
  std::vector<GridVisit> order;
  for (int k = 0; k < std::max(1, passes); ++k)
    for (GridVisit v : pass) {
      v.pass = k;
      order.push_back(v);
    }
  return order;
}

double combineVisits(std::vector<double> visitMs) {
  if (visitMs.empty()) return 0;
  std::sort(visitMs.begin(), visitMs.end());
  const size_t n = visitMs.size();
  return n % 2 ? visitMs[n / 2] : std::sqrt(visitMs[n / 2 - 1] * visitMs[n / 2]);
}

int coldRunsPerVisit(int pass, int passes) {
  if (passes <= 1) return 3;
  return pass < passes ? 2 : 0;
}

double pooledColdMs(const std::vector<std::vector<double>> &visitRunsMs, const std::vector<double> &visitScales) {
  std::vector<double> all;
  for (size_t i = 0; i < visitRunsMs.size(); ++i) {
    const double scale = i < visitScales.size() && visitScales[i] > 0 ? visitScales[i] : 1.0;
    for (double ms : visitRunsMs[i])
      if (ms > 0) all.push_back(ms * scale);
  }
  return combineVisits(all);
}

void keepMedianRates(const RateMoments &m, ThreadProfile *t) {
  auto keep = [](const std::vector<double> &v, double *field) {
    std::vector<double> measured;
    for (double x : v)
      if (x > 0) measured.push_back(x);
    if (!measured.empty()) *field = medianOf(measured);
  };
  keep(m.fma, &t->peakGflops);
  keep(m.vnni, &t->vnniGops);
  keep(m.bf16, &t->bf16Gflops);
  keep(m.dramRead, &t->dramReadGBs);
  keep(m.l1, &t->l1GBs);
  keep(m.l2, &t->l2GBs);
  keep(m.l3, &t->l3GBs);
}

InGraphTerm inGraphNodeUs(const std::vector<ChainRound> &rounds, double runOverheadMs, int nodes, double spread) {
  InGraphTerm g;
  if (rounds.empty() || nodes <= 0) {
    g.withinSpread = true;
    return g;
  }
  std::vector<double> graph, extra;
  for (const ChainRound &r : rounds) {
    graph.push_back(r.graphMs);
    extra.push_back(r.graphMs - runOverheadMs - r.aloneMs);
  }
  g.graphMs = medianOf(graph);
  g.perNodeUs = medianOf(extra) * 1e3 / nodes;
  g.aloneMs = g.graphMs - g.perNodeUs * 1e-3 * nodes;
  g.withinSpread = !(g.aloneMs > 0 && std::fabs(std::log(g.graphMs / g.aloneMs)) > spread);
  return g;
}

double visitBudgetSeconds(double secondsLeft, double reserve, size_t visitsLeft, double overheadSeconds) {
  const double n = double(std::max<size_t>(visitsLeft, 1));
  return std::clamp((secondsLeft - reserve - std::max(0.0, overheadSeconds) * n) / n, kMinVisitSeconds,
                    kMaxVisitSeconds);
}

std::vector<size_t> visitsWithTheirCores(const std::vector<double> &referenceMs, double oneThreadReferenceMs) {
  std::vector<size_t> with, all;
  for (size_t i = 0; i < referenceMs.size(); ++i) {
    all.push_back(i);
    if (oneThreadReferenceMs > 0 && referenceMs[i] > 0 && 1.3 * referenceMs[i] <= oneThreadReferenceMs) with.push_back(i);
  }
  return with.empty() ? all : with;
}

double pointWithoutItsCoresMs(double timedMs, double oneThreadMs, const std::vector<double> &familySpeedUps,
                              const std::vector<double> &allSpeedUps) {
  const std::vector<double> &s = familySpeedUps.size() >= 3 ? familySpeedUps : allSpeedUps;
  if (!(oneThreadMs > 0) || s.empty()) return timedMs;
  const double speedUp = medianOf(s);
  return speedUp > 0 ? oneThreadMs / speedUp : timedMs;
}

VisitDrift visitDrift(const std::vector<std::vector<std::pair<double, double>>> &visits, double referenceMedianMs) {
  VisitDrift d;
  std::vector<double> raw, scaled;
  auto deviation = [](std::vector<double> v) {
    const double mid = combineVisits(v);
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::fabs(std::log(x / mid)));
    return medianOf(dev);
  };
  for (const auto &point : visits) {
    std::vector<double> r, s;
    for (const auto &[ms, refMs] : point)
      if (ms > 0 && refMs > 0) {
        r.push_back(ms);
        s.push_back(ms * referenceMedianMs / refMs);
      }
    if (r.size() < 2) continue;
    raw.push_back(deviation(r));
    scaled.push_back(deviation(s));
  }
  d.points = int(raw.size());
  if (raw.empty() || !(referenceMedianMs > 0)) return d;
  d.raw = medianOf(raw);
  d.scaled = medianOf(scaled);
  d.scale = d.scaled < 0.8 * d.raw;
  return d;
}

Status calibrate(const CalibrateOptions &options, DeviceProfile *out) {
  auto start = Clock::now();
  int maxThreads = std::max(1, options.maxThreads);
  double deadline = std::max(1.0, options.deadlineSeconds);
  auto say = [&](const std::string &s) {
    if (options.progress) options.progress(s);
  };
  auto left = [&] { return deadline - secondsSince(start); };
  DeviceProfile p = describeThisDevice(maxThreads);
  p.l1Bytes = cacheBytes(1);
  p.l2Bytes = cacheBytes(2);
  p.l3ReportedBytes = cacheBytes(3);
  // Everything below (bandwidths, evictions, the estimate's residency)
  // works on the L3 this process keeps.
  std::vector<std::pair<uint64_t, double>> sweep;
  p.l3Bytes = measureEffectiveL3(p.l3ReportedBytes, p.l2Bytes, uint64_t(deadline < 10 ? 128 : 256) << 20,
                                 std::min(0.3, deadline / 100), &sweep);
  if (p.l3Bytes != p.l3ReportedBytes) {
    char line[160];
    std::snprintf(line, sizeof line, "L3: %.0f MB reported, %.0f MB kept (the read rate's fall toward DRAM's)",
                  double(p.l3ReportedBytes) / (1 << 20), double(p.l3Bytes) / (1 << 20));
    say(line);
  }
  if (!sweep.empty()) {
    std::string rates = "L3 sweep, one thread's read GB/s by working set (MB):";
    for (const auto &[bytes, gbs] : sweep) {
      char one[40];
      std::snprintf(one, sizeof one, " %.0f: %.1f", double(bytes) / (1 << 20), gbs);
      rates += one;
    }
    say(rates);
  }
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f");
  bool vnni = avx512 && __builtin_cpu_supports("avx512vnni");
  bool bf16 = avx512 && __builtin_cpu_supports("avx512bf16");
  std::vector<std::unique_ptr<cpu::ThreadPool>> pools;
  StreamBuffers streams;  // before the evictors, which read its first buffer
  std::vector<std::unique_ptr<Evictor>> evictors;
  // The DRAM buffers are first touched (page faults) before they are timed:
  // with 4x the L3 that is most of the time before the grid, which under a
  // short deadline on a loaded machine left no time for any grid point.
  // A short deadline streams 2x the L3 (no less a DRAM measurement: each
  // pass evicts what the previous one left) and faults one first-touch
  // buffer, not three.
  const bool shortDeadline = deadline < 10;
  const uint64_t dramTimesL3 = shortDeadline ? 2 : 4;
  // Peaks and bandwidths first: with them alone the model has its roofline.
  for (int T = 1; T <= maxThreads; ++T) {
    pools.push_back(std::make_unique<cpu::ThreadPool>(T));
    evictors.push_back(std::make_unique<Evictor>(T, p.l2Bytes, streams));
    cpu::ThreadPool &pool = *pools.back();
    pool.startWorkers();
    ThreadProfile t;
    t.threads = T;
    // The measurements before the grid take at most about a fifth of the deadline.
    double peakBudget = std::min(0.1, deadline / 60 / maxThreads);
    t.peakGflops = (avx512 ? peakOps(pool, &fmaAvx512, 12 * 16 * 2, peakBudget)
                           : peakOps(pool, &fmaAvx2, 12 * 8 * 2, peakBudget)) / 1e9;
    if (vnni) t.vnniGops = peakOps(pool, &vnniAvx512, 12 * 64 * 2, peakBudget) / 1e9;
    if (bf16) t.bf16Gflops = peakOps(pool, &bf16Avx512, 12 * 32 * 2, peakBudget) / 1e9;
    double bwSeconds = std::min(0.15, std::max(0.01, deadline / 100 / maxThreads));
    const uint64_t dramBytes = std::max<uint64_t>(p.l3Bytes * dramTimesL3 / uint64_t(T), 64 << 20);
    streams.ensure(T, streamBytes(dramBytes), true);  // the largest first: the others are its prefixes
    t.l1GBs = bandwidth(pool, std::max<uint64_t>(p.l1Bytes / 4, 4096), bwSeconds, streams);
    t.l2GBs = bandwidth(pool, std::max<uint64_t>(p.l2Bytes / 4, 65536), bwSeconds, streams);
    t.l3GBs = bandwidth(pool, std::max<uint64_t>(p.l3Bytes / 4 / uint64_t(T), 1 << 20), bwSeconds, streams);
    t.dramGBs = bandwidth(pool, dramBytes, bwSeconds * 2, streams);
    t.dramReadGBs = readBandwidth(pool, dramBytes, bwSeconds * 2, streams);
    t.forkJoinUs = forkJoinUs(pool);
    t.nodeOverheadUs = nodeOverheadUs(pool);
    // The executor's own costs: what one more node adds inside a graph
    // (dispatch, the profiling and cancellation checks, a 16-float kernel)
    // and a run's fixed entry and exit (arena, bindings, the node loop's
    // set-up), from chains of 1 and 33 tiny nodes.
    double one = chainRunUs(1, T), many = chainRunUs(33, T);
    if (one > 0 && many > one) {
      t.nodeOverheadUs = std::max(t.nodeOverheadUs, (many - one) / 32);
      t.runOverheadUs = std::max(0.0, one - t.nodeOverheadUs);
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "threads %d: fp32 FMA %.1f GFLOP/s%s%s, copy GB/s L1 %.0f L2 %.0f L3 %.0f DRAM %.1f (read %.1f), "
                  "fork/join %.2f us, node %.2f us, run %.2f us",
                  T, t.peakGflops, vnni ? (", VNNI " + std::to_string(int(t.vnniGops)) + " GOP/s").c_str() : "",
                  bf16 ? (", BF16 " + std::to_string(int(t.bf16Gflops)) + " GFLOP/s").c_str() : "", t.l1GBs,
                  t.l2GBs, t.l3GBs, t.dramGBs, t.dramReadGBs, t.forkJoinUs, t.nodeOverheadUs, t.runOverheadUs);
    say(line);
    p.threads.push_back(std::move(t));
  }
  // The grid's re-measurements copy no more than an L3's share: DRAM's
  // destinations are not kept.
  streams.releaseDestinations();
  p.firstTouchGBs = firstTouchGBs(shortDeadline ? 1 : 3);
  // Time kept back from the grid for the point under way to finish (its
  // probe times at least 5 runs): half a second, a tenth of a short deadline.
  const double chainBudget = std::min(0.3, deadline / 100);
  const double reserve = std::min(0.5, deadline / 10);
  // The in-graph chain: kernels inside a graph against the same kernels
  // alone. A difference within the chain's own run-to-run spread is not
  // taken as a term. There is no chain for weights from DRAM
  // (graphColdFactor stays 1: the grid's evicted runs): a decode chain of
  // GEMVs fitted one factor on what eviction added to its kernels, a small
  // part of the chain's time, and that leverage made the factor swing
  // between 0.25x and 2.4x across calibrations of one machine, pricing
  // decoders high or low by the calibration's moment (docs/ESTIMATE.md).
  auto stalledLine = [](int T, const char *term) {
    return "threads " + std::to_string(T) +
           ": another process held a core through the chain's rounds: no in-graph term for " + term;
  };
  // The mobile chain, before the grid: a mobile net's stages give the cost
  // per node. Before, so that a grid point that overruns its share (a slow
  // machine, a sanitized build) cannot leave it no time; it prices each node
  // at the thread count the estimate would, which depends on shapes and the
  // peaks measured above, not on the grid. Its weights fit the L3: its
  // kernels count at their L3 times. It is timed again between the grid's
  // passes, as the peaks are, and the term is taken over the rounds of all
  // those moments (inGraphNodeUs): on a VM whose host's speed moves by
  // minutes, one moment's 2-thread term ranged from none to more than
  // twice its usual size across calibrations.
  const std::vector<ChainNode> mobile = mobileChain();
  struct ChainMoments {
    std::vector<ChainRound> rounds;
    std::vector<double> spreads;
    int nodes = 0, moments = 0;
  };
  std::vector<ChainMoments> chains(static_cast<size_t>(maxThreads));
  auto timeMobileChain = [&](bool first) {
    for (int T = 1; T <= maxThreads; ++T) {
      ChainTiming m = timeChain(mobile, p, pools, evictors, T, chainBudget);
      if (m.stalled) {
        if (first) say(stalledLine(T, "nodes"));
      } else if (m.nodes == 0) {
        if (first) say("threads " + std::to_string(T) + ": the mobile chain could not be built or run: no in-graph term");
      } else {
        ChainMoments &c = chains[size_t(T - 1)];
        for (size_t r = 0; r < m.graphMs.size(); ++r) c.rounds.push_back({m.graphMs[r], m.aloneMs[r]});
        c.spreads.push_back(m.spread);
        c.nodes = m.nodes;
        ++c.moments;
      }
    }
  };
  auto setGraphNodeTerms = [&] {
    for (int T = 1; T <= maxThreads; ++T) {
      const ChainMoments &c = chains[size_t(T - 1)];
      if (c.moments == 0) continue;
      ThreadProfile &t = p.threads[size_t(T - 1)];
      const double spread = medianOf(c.spreads);
      const InGraphTerm g = inGraphNodeUs(c.rounds, t.runOverheadUs * 1e-3, c.nodes, spread);
      t.graphNodeUs = g.withinSpread ? 0 : g.perNodeUs;
      t.graphChainNodes = c.nodes;
      char line[320];
      std::snprintf(line, sizeof line,
                    "threads %d: %d-node mobile chain %.3f ms in a graph, %.3f ms alone (spread %.3f; %zu rounds at %d "
                    "moment(s)): %+.2f us per node%s",
                    T, c.nodes, g.graphMs, g.aloneMs, spread, c.rounds.size(), c.moments, g.perNodeUs,
                    g.withinSpread ? ", within the spread" : "");
      say(line);
    }
  };
  timeMobileChain(true);
  setGraphNodeTerms();
  // The grid: every point timed in kGridPasses visits, one per pass over
  // the whole grid (gridVisitOrder), each pass breadth first over families
  // with every thread count per point, so that a deadline that cuts the grid
  // short still leaves a usable spread of sizes.
  std::vector<std::vector<Case>> cases = grid();
  std::vector<size_t> familySizes;
  for (const auto &f : cases) familySizes.push_back(f.size());
  // A short deadline times each point once: its few points are worth more
  // than their second visits.
  const int passes = shortDeadline ? 1 : kGridPasses;
  const std::vector<GridVisit> order = gridVisitOrder(familySizes, maxThreads, passes);
  bool complete = true;
  size_t timedPoints = 0;
  std::vector<double> jit, spreads;
  struct Pieced {
    int threads;
    cpu::NodeCost cost;
    double ms;
  };
  std::vector<Pieced> pieced;  // grid kernels a multi-threaded run cut into pieces
  // One point's visits. Its probe (operands, packed weights, JIT code) is
  // kept between visits while the kept probes hold at most kKeptBytes;
  // beyond that it is built again for each visit (the same synthetic data).
  struct PointTiming {
    std::unique_ptr<Probe> probe;
    bool tried = false, usable = false, kept = false;
    cpu::NodeCost cost;
    bool small = false, cold = false;
    // Per visit: the kernel's time, hot time, cold runs (none: empty) and
    // the speed reference's time at that moment.
    std::vector<double> ms, hotMs, referenceMs;
    std::vector<std::vector<double>> coldRunsMs;
    double warmUpMs = 0, firstMs = 0;
  };
  constexpr uint64_t kKeptBytes = uint64_t(512) << 20;
  uint64_t keptBytes = 0;
  std::map<std::tuple<size_t, size_t, int>, PointTiming> timings;
  // The host's speed at each visit, per thread count: a fixed matmul (64 x
  // 512 x 512, its weights in the L2) timed hot, as the grid times (the
  // thread's CPU time on one thread, the wall clock's fastest on more),
  // at most every quarter second.
  struct SpeedReference {
    std::unique_ptr<Probe> probe;
    double lastAt = -1, lastMs = 0;
    std::vector<double> samples;
  };
  std::vector<SpeedReference> references(static_cast<size_t>(maxThreads));
  auto referenceNow = [&](int T) {
    SpeedReference &r = references[size_t(T - 1)];
    const double at = secondsSince(start);
    if (r.lastAt >= 0 && at - r.lastAt < 0.25) return r.lastMs;
    if (!r.probe) {
      r.probe = std::make_unique<Probe>();
      if (!r.probe->build(matmul(64, 512, 512)) || !r.probe->kernel) return 0.0;
      r.probe->kernel->warmUp(T);
    }
    cpu::ThreadPool &pool = *pools[size_t(T - 1)];
    Stopwatch clock(T);
    r.probe->run(pool);
    std::vector<double> v;
    for (int k = 0; k < 5; ++k) {
      double t0 = clock.now();
      r.probe->run(pool);
      v.push_back(clock.since(t0) * 1e3);
    }
    std::sort(v.begin(), v.end());
    r.lastAt = at;
    r.lastMs = clock.cpu ? v[v.size() / 2] : v[0];
    r.samples.push_back(r.lastMs);
    return r.lastMs;
  };
  // The peaks, DRAM's read rate and the cache levels' copy rates too are
  // measured again between passes; each keeps the median of its moments
  // (the grid's ratios are taken over that roofline; the read rate prices
  // weights streamed from DRAM, and moves with the host's state as much as
  // the grid's kernels do; a point in the L2 is restated for a node past
  // it by the L3's rate over the L2's, and one moment's 2-thread L2 rate
  // ranged threefold across calibrations of a 2-vCPU VM).
  const size_t nThreads = static_cast<size_t>(maxThreads);
  std::vector<RateMoments> rates(nThreads);
  for (int T = 1; T <= maxThreads; ++T) {
    const ThreadProfile &t = p.threads[size_t(T - 1)];
    RateMoments &r = rates[size_t(T - 1)];
    r.fma.push_back(t.peakGflops);
    if (vnni) r.vnni.push_back(t.vnniGops);
    if (bf16) r.bf16.push_back(t.bf16Gflops);
    r.dramRead.push_back(t.dramReadGBs);
    r.l1.push_back(t.l1GBs);
    r.l2.push_back(t.l2GBs);
    r.l3.push_back(t.l3GBs);
  }
  auto measurePeaksAgain = [&] {
    const double peakBudget = std::min(0.05, deadline / 120 / maxThreads);
    for (int T = 1; T <= maxThreads; ++T) {
      cpu::ThreadPool &pool = *pools[size_t(T - 1)];
      RateMoments &r = rates[size_t(T - 1)];
      r.fma.push_back((avx512 ? peakOps(pool, &fmaAvx512, 12 * 16 * 2, peakBudget)
                              : peakOps(pool, &fmaAvx2, 12 * 8 * 2, peakBudget)) / 1e9);
      if (vnni) r.vnni.push_back(peakOps(pool, &vnniAvx512, 12 * 64 * 2, peakBudget) / 1e9);
      if (bf16) r.bf16.push_back(peakOps(pool, &bf16Avx512, 12 * 32 * 2, peakBudget) / 1e9);
      const uint64_t dramBytes = std::max<uint64_t>(p.l3Bytes * dramTimesL3 / uint64_t(T), 64 << 20);
      r.dramRead.push_back(
          readBandwidth(pool, dramBytes, std::min(0.15, std::max(0.01, deadline / 100 / maxThreads)), streams));
      const double cacheBudget = std::min(0.05, std::max(0.005, deadline / 300 / maxThreads));
      const uint64_t l3Share = std::max<uint64_t>(p.l3Bytes / 4 / uint64_t(T), 1 << 20);
      streams.ensure(T, streamBytes(l3Share), true);  // the largest first: the others are its prefixes
      r.l1.push_back(bandwidth(pool, std::max<uint64_t>(p.l1Bytes / 4, 4096), cacheBudget, streams));
      r.l2.push_back(bandwidth(pool, std::max<uint64_t>(p.l2Bytes / 4, 65536), cacheBudget, streams));
      r.l3.push_back(bandwidth(pool, l3Share, cacheBudget, streams));
    }
    timeMobileChain(false);
  };
  double waitedForCores = 0;
  int passesDone = 0;
  size_t rebuilt = 0;
  double buildSeconds = 0;
  double coresCheckedAt = -1;
  // What a visit takes beyond its timing budget (building the probe, its
  // warm-up and first runs, evictions, cold runs), a moving average: the
  // budgets leave room for it, so that a loaded machine's heavier visits
  // cut the last pass, not the first.
  double overhead = 0;
  // A point's runs spread over its visits: 40 in all, as one visit had.
  const size_t maxRuns = passes == 1 ? 40 : size_t((40 + passes - 1) / passes);
  for (size_t k = 0; k < order.size(); ++k) {
    const GridVisit &v = order[k];
    const auto visitStart = Clock::now();
    // Past the reserve the grid stops, once it holds one timed point: a
    // short deadline on a loaded machine can spend it all before the grid,
    // and a profile with no point would price every kernel from the peaks
    // alone. That one point takes a single run of each kind (hardSeconds 0).
    if (left() < reserve && timedPoints > 0) {
      if (v.pass == 0) complete = false;
      break;
    }
    if (v.pass > passesDone) {
      char line[160];
      std::snprintf(line, sizeof line, "grid pass %d of %d done at %.1f s (%.1f s building probes)", passesDone + 1,
                    passes, secondsSince(start), buildSeconds);
      say(line);
      passesDone = v.pass;
      measurePeaksAgain();
    }
    PointTiming &pt = timings[{v.family, v.index, v.threads}];
    if (pt.tried && !pt.usable) continue;
    const Case &c = cases[v.family][v.index];
    const int T = v.threads;
    // A multi-threaded point timed while another process (or, in a VM,
    // the host) holds one of its cores runs at fewer threads' speed:
    // on a 2-vCPU VM one calibration's 2-thread FMA peak equalled its
    // 1-thread one and its 2-thread grid priced the fit decoder's step
    // at twice its time. Wait for the cores, within a share of the time;
    // checked at most every 0.1 s (a check costs as much as a small
    // kernel's whole visit).
    if (T > 1 && secondsSince(start) - coresCheckedAt > 0.1) {
      while (waitedForCores < 0.1 * deadline && !poolHasItsCores(*pools[size_t(T - 1)])) {
        auto w0 = Clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        waitedForCores += secondsSince(w0) + 0.004;
      }
      coresCheckedAt = secondsSince(start);
    }
    if (!pt.probe) {
      auto probe = std::make_unique<Probe>();
      const auto b0 = Clock::now();
      Status s = probe->build(c);
      buildSeconds += secondsSince(b0);
      if (!s || !probe->kernel) {
        if (!pt.tried) say("skipped " + c.op + ": " + s.message());
        pt.tried = true;
        continue;
      }
      if (pt.tried) ++rebuilt;
      pt.probe = std::move(probe);
    }
    if (!pt.tried) {
      pt.tried = true;
      cpu::CostFunction fn = cpu::findCostFunction(c.op);
      if (!fn) {
        pt.probe.reset();
        continue;
      }
      pt.cost = fn(pt.probe->node, pt.probe->constant, T);
      pt.usable = true;
      // Kernels that fit the L2 are also timed hot, for graphs that fit it whole.
      pt.small = p.l2Bytes > 0 && pt.cost.bytes <= double(p.l2Bytes);
      // Kernels reading >= 256 KB of weights (or of a caller's KV cache)
      // are also timed with those cold, for graphs whose working set
      // exceeds the L3: their weights then come from DRAM at each run
      // (coldRunsPerVisit: how many, and when).
      pt.cold = p.l3Bytes > 0 && pt.probe->coldBytes >= 256 * 1024;
    }
    const double referenceMs = referenceNow(T);
    const double budget = visitBudgetSeconds(left(), reserve, order.size() - k, overhead);
    Timed m = timeProbe(*pt.probe, *pools[size_t(T - 1)], *evictors[size_t(T - 1)], budget, pt.small,
                        pt.cold ? p.l3Bytes : 0, coldRunsPerVisit(v.pass, passes), v.pass == 0 ? 5 : 3,
                        maxRuns, std::max(0.0, left() - reserve));
    if (!pt.probe->runStatus.isOk()) {
      say("skipped " + c.op + ": " + pt.probe->runStatus.message());
      pt.usable = false;
      if (pt.kept) keptBytes -= pt.probe->bytes;
      pt.kept = false;
      pt.probe.reset();
      continue;
    }
    if (pt.ms.empty()) {
      pt.warmUpMs = m.warmUpMs;
      pt.firstMs = m.firstMs;
    }
    pt.ms.push_back(m.ms);
    ++timedPoints;
    pt.hotMs.push_back(m.hotMs);
    pt.coldRunsMs.push_back(m.coldRunsMs);
    pt.referenceMs.push_back(referenceMs);
    if (m.spread > 0) spreads.push_back(m.spread);
    // Kept for the next visit, within the cap; the last visit frees it.
    if (v.pass + 1 >= passes) {
      if (pt.kept) keptBytes -= pt.probe->bytes;
      pt.kept = false;
      pt.probe.reset();
    } else if (!pt.kept) {
      pt.kept = keptBytes + pt.probe->bytes <= kKeptBytes;
      if (pt.kept) keptBytes += pt.probe->bytes;
      else pt.probe.reset();
    }
    const double excess = std::max(0.0, secondsSince(visitStart) - budget);
    overhead = k == 0 ? excess : 0.95 * overhead + 0.05 * excess;
  }
  const double gridEnd = secondsSince(start);
  if (waitedForCores > 0) {
    char line[128];
    std::snprintf(line, sizeof line, "waited %.2f s for the pool's cores before multi-threaded points", waitedForCores);
    say(line);
  }
  // The peaks and rates: the median of their moments (keepMedianRates).
  for (int T = 1; T <= maxThreads; ++T) {
    ThreadProfile &t = p.threads[size_t(T - 1)];
    const RateMoments &r = rates[size_t(T - 1)];
    keepMedianRates(r, &t);
    if (r.fma.size() > 1) {
      auto list = [](const std::vector<double> &v, const char *format) {
        std::string out;
        for (double g : v) {
          char one[24];
          std::snprintf(one, sizeof one, format, g);
          out += (out.empty() ? "" : " / ") + std::string(one);
        }
        return out;
      };
      auto one = [](const char *format, double g) {
        char buf[24];
        std::snprintf(buf, sizeof buf, format, g);
        return std::string(buf);
      };
      say("threads " + std::to_string(T) + ": fp32 FMA GFLOP/s at " + std::to_string(r.fma.size()) + " moments " +
          list(r.fma, "%.0f") + ", median " + one("%.0f", t.peakGflops) + "; DRAM read GB/s " +
          list(r.dramRead, "%.1f") + ", median " + one("%.1f", t.dramReadGBs) + "; copy GB/s L1 " +
          list(r.l1, "%.0f") + ", L2 " + list(r.l2, "%.0f") + ", L3 " + list(r.l3, "%.0f") + ", medians " +
          one("%.0f", t.l1GBs) + " / " + one("%.0f", t.l2GBs) + " / " + one("%.0f", t.l3GBs));
    }
  }
  // The in-graph term over every moment the chain was timed at.
  if (passesDone > 0) setGraphNodeTerms();
  // The speed reference's drift, per thread count: each visit is scaled by
  // it where that brings the visits of a point together (visitDrift).
  std::vector<double> referenceMedian(nThreads);
  std::vector<VisitDrift> drift(nThreads);
  // A multi-threaded visit (and reference sample) taken while the pool
  // lacked a core is left out where the point has one that had its cores
  // (visitsWithTheirCores).
  auto withCores = [&](int T, const std::vector<double> &referenceMs) {
    std::vector<size_t> all(referenceMs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return T > 1 ? visitsWithTheirCores(referenceMs, referenceMedian[0]) : all;
  };
  size_t visitsWithoutCores = 0;
  for (int T = 1; T <= maxThreads; ++T) {
    const std::vector<double> &allSamples = references[size_t(T - 1)].samples;
    std::vector<double> samples;
    for (size_t i : withCores(T, allSamples)) samples.push_back(allSamples[i]);
    referenceMedian[size_t(T - 1)] = medianOf(samples);
    p.threads[size_t(T - 1)].speedReferenceMs = referenceMedian[size_t(T - 1)];
    std::vector<std::vector<std::pair<double, double>>> visits;
    for (const auto &[key, pt] : timings) {
      if (std::get<2>(key) != T || !pt.usable) continue;
      visits.emplace_back();
      const std::vector<size_t> kept = withCores(T, pt.referenceMs);
      visitsWithoutCores += pt.ms.size() - kept.size();
      for (size_t i : kept) visits.back().push_back({pt.ms[i], pt.referenceMs[i]});
    }
    VisitDrift &d = drift[size_t(T - 1)];
    d = visitDrift(visits, referenceMedian[size_t(T - 1)]);
    if (samples.empty()) continue;
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    char line[320];
    std::snprintf(line, sizeof line,
                  "threads %d: speed reference (64x512x512 matmul) %.4f ms median, %.4f..%.4f at %zu moments; "
                  "%d points' visits %.1f%% from their median, %.1f%% scaled by the reference: %s",
                  T, referenceMedian[size_t(T - 1)], *lo, *hi, samples.size(), d.points,
                  100 * (std::exp(d.raw) - 1), 100 * (std::exp(d.scaled) - 1), d.scale ? "scaled" : "kept as timed");
    say(line);
  }
  if (visitsWithoutCores > 0)
    say(std::to_string(visitsWithoutCores) +
        " multi-threaded visit(s) left out: timed while the pool lacked a core (the speed reference no faster "
        "than 1.3x one thread's), where the point had a visit with its cores");
  if (passes > 1) {
    std::vector<int> visitCount(size_t(passes) + 1);
    for (const auto &[key, pt] : timings)
      if (pt.usable) ++visitCount[std::min(pt.ms.size(), size_t(passes))];
    std::string counts;
    for (int n = passes; n >= 1; --n)
      counts += (counts.empty() ? "" : ", ") + std::to_string(visitCount[size_t(n)]) + " with " + std::to_string(n);
    char line[200];
    std::snprintf(line, sizeof line,
                  "; grid ended at %.1f s (%.1f s building probes; %zu visits built theirs again: the kept probes' cap)",
                  gridEnd, buildSeconds, rebuilt);
    say("grid points by visits: " + counts + line);
  }
  // A point's kept time of one kind (run, hot, cold): its visits with the
  // pool's cores, scaled by the speed reference where that drift is taken.
  auto combinedOf = [&](const PointTiming &pt, int T, const std::vector<double> &x) {
    const VisitDrift &d = drift[size_t(T - 1)];
    const double refMedian = referenceMedian[size_t(T - 1)];
    std::vector<double> kept;
    for (size_t i : withCores(T, pt.referenceMs))
      if (i < x.size() && x[i] > 0)
        kept.push_back(d.scale && pt.referenceMs[i] > 0 ? x[i] * refMedian / pt.referenceMs[i] : x[i]);
    return combineVisits(kept);
  };
  // A point's cold time: its kept visits' cold runs pooled (pooledColdMs),
  // each scaled as its visit is.
  auto coldOf = [&](const PointTiming &pt, int T) {
    const VisitDrift &d = drift[size_t(T - 1)];
    const double refMedian = referenceMedian[size_t(T - 1)];
    std::vector<std::vector<double>> runs;
    std::vector<double> scales;
    for (size_t i : withCores(T, pt.referenceMs))
      if (i < pt.coldRunsMs.size() && !pt.coldRunsMs[i].empty()) {
        runs.push_back(pt.coldRunsMs[i]);
        scales.push_back(d.scale && pt.referenceMs[i] > 0 ? refMedian / pt.referenceMs[i] : 1.0);
      }
    return pooledColdMs(runs, scales);
  };
  auto hadItsCores = [&](const PointTiming &pt, int T) {
    if (T == 1) return true;
    for (double r : pt.referenceMs)
      if (referenceMedian[0] > 0 && r > 0 && 1.3 * r <= referenceMedian[0]) return true;
    return false;
  };
  // The speed-ups (one thread's time over T's) of the points whose visits
  // had their cores, per thread count and family.
  std::vector<std::map<size_t, std::vector<double>>> familySpeedUps(nThreads);
  std::vector<std::vector<double>> allSpeedUps(nThreads);
  for (const auto &[key, pt] : timings) {
    const auto [family, index, T] = key;
    if (T == 1 || !pt.usable || pt.ms.empty() || !hadItsCores(pt, T)) continue;
    auto one = timings.find({family, index, 1});
    if (one == timings.end() || !one->second.usable || one->second.ms.empty()) continue;
    const double ms1 = combinedOf(one->second, 1, one->second.ms), msT = combinedOf(pt, T, pt.ms);
    if (ms1 > 0 && msT > 0) {
      familySpeedUps[size_t(T - 1)][family].push_back(ms1 / msT);
      allSpeedUps[size_t(T - 1)].push_back(ms1 / msT);
    }
  }
  size_t standIns = 0;
  for (const GridVisit &v : order) {
    if (v.pass > 0) break;
    auto it = timings.find({v.family, v.index, v.threads});
    if (it == timings.end() || !it->second.usable || it->second.ms.empty()) continue;
    const PointTiming &pt = it->second;
    const int T = v.threads;
    ThreadProfile &t = p.threads[size_t(T - 1)];
    double ms = combinedOf(pt, T, pt.ms), hotMs = combinedOf(pt, T, pt.hotMs), coldMs = coldOf(pt, T);
    bool stoodIn = false;
    if (!hadItsCores(pt, T)) {
      auto one = timings.find({v.family, v.index, 1});
      if (one != timings.end() && one->second.usable && !one->second.ms.empty()) {
        const PointTiming &p1 = one->second;
        const std::vector<double> &family = familySpeedUps[size_t(T - 1)][v.family];
        const std::vector<double> &all = allSpeedUps[size_t(T - 1)];
        const double standIn = pointWithoutItsCoresMs(ms, combinedOf(p1, 1, p1.ms), family, all);
        if (standIn != ms) {
          ++standIns;
          stoodIn = true;
          ms = standIn;
          hotMs = pointWithoutItsCoresMs(hotMs, combinedOf(p1, 1, p1.hotMs), family, all);
          coldMs = pointWithoutItsCoresMs(coldMs, coldOf(p1, 1), family, all);
        }
      }
    }
    const cpu::NodeCost &cost = pt.cost;
    double roof = rooflineMs(p, t, cost.flops, cost.bytes);
    GridPoint gp;
    gp.params = cost.params;
    gp.ms = ms;
    gp.bytes = cost.bytes;
    gp.flops = cost.flops;
    gp.ratio = std::max(0.05, (ms - t.nodeOverheadUs * 1e-3) / std::max(roof, 1e-9));
    if (pt.small) gp.hotRatio = std::max(0.05, (hotMs - t.nodeOverheadUs * 1e-3) / std::max(roof, 1e-9));
    if (pt.cold && coldMs > 0) gp.coldRatio = std::max(0.05, (coldMs - t.nodeOverheadUs * 1e-3) / std::max(roof, 1e-9));
    t.families[cost.family].points.push_back(gp);
    // The pieces' slowdown is measured on points timed with their cores only.
    if (T > 1 && cost.threading == cpu::Threading::kPieces && !stoodIn) pieced.push_back({T, cost, ms});
    if (cost.jit) jit.push_back(pt.warmUpMs + std::max(0.0, pt.firstMs - ms));
    std::string visits;
    for (double x : pt.ms) {
      char one[32];
      std::snprintf(one, sizeof one, "%s%.4g", visits.empty() ? "" : " / ", x);
      visits += one;
    }
    char line[320];
    std::snprintf(line, sizeof line, "  %-16s t=%d %-24s %9.4f ms  %6.2fx roofline  visits %s", cost.family.c_str(), T,
                  shapeToString(cases[v.family][v.index].inputs[0].shape).c_str(), ms, gp.ratio, visits.c_str());
    say(line);
  }
  if (standIns > 0)
    say(std::to_string(standIns) +
        " multi-threaded point(s) without a visit with their cores: their one-thread time over their family's "
        "speed-up");
  std::sort(jit.begin(), jit.end());
  p.jitMs = jit.empty() ? 0 : jit[jit.size() / 2];
  std::sort(spreads.begin(), spreads.end());
  for (ThreadProfile &t : p.threads) {
    t.runSpread = spreads.empty() ? 0.02 : spreads[spreads.size() / 2];
    updateSigmas(&t);
  }
  // Each pieced kernel's time against its largest piece priced alone on the
  // one-thread grid: the median is how much the neighbours slow a piece.
  for (ThreadProfile &t : p.threads) {
    if (t.threads == 1) continue;
    const ThreadProfile &one = p.threads[0];
    std::vector<double> slow;
    for (const Pieced &pc : pieced) {
      if (pc.threads != t.threads) continue;
      auto g = one.families.find(pc.cost.piece.family);
      if (g == one.families.end() || g->second.points.empty() ||
          g->second.points[0].params.size() != pc.cost.piece.params.size())
        continue;
      double alone = interpolateRatio(g->second, pc.cost.piece.params) *
                     rooflineMs(p, one, pc.cost.piece.flops, pc.cost.piece.bytes);
      double ms = pc.ms - (t.nodeOverheadUs + t.forkJoinUs) * 1e-3;
      if (alone > 0 && ms > 0) slow.push_back(ms / alone);
    }
    if (!slow.empty()) {
      std::sort(slow.begin(), slow.end());
      t.pieceSlowdown = slow[slow.size() / 2];
      char line[128];
      std::snprintf(line, sizeof line, "threads %d: a piece beside the others %.2fx alone (%zu pieced kernels)",
                    t.threads, t.pieceSlowdown, slow.size());
      say(line);
    }
  }
  p.complete = complete;
  p.calibrationSeconds = secondsSince(start);
  *out = std::move(p);
  return Status::ok();
}

std::vector<std::string> calibratedFamilies() {
  std::vector<std::string> families;
  for (const std::vector<Case> &family : grid())
    for (const Case &c : family) {
      // The cost functions read shapes and options only: descriptors without data.
      std::deque<cpu::OperandDesc> descs;
      cpu::NodeDesc node;
      node.op = c.op;
      node.attributes = c.attrs;
      std::vector<bool> constant;
      for (const Operand &o : c.inputs) {
        descs.push_back({o.dtype, o.shape, nullptr});
        node.inputs.push_back(&descs.back());
        constant.push_back(o.constant);
      }
      for (const Shape &s : c.outputs) {
        descs.push_back({c.inputs.empty() ? DataType::kFloat32 : c.inputs[0].dtype, s, nullptr});
        node.outputs.push_back(&descs.back());
      }
      cpu::CostFunction fn = cpu::findCostFunction(c.op);
      if (!fn) continue;
      std::string f = fn(node, constant, 1).family;
      if (std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
    }
  std::sort(families.begin(), families.end());
  return families;
}

Status addRunResult(const std::string &runJsonPath, DeviceProfile *profile, int *pointsAdded) {
  *pointsAdded = 0;
  std::ifstream in(runJsonPath);
  if (!in) return Status(StatusCode::kIo, runJsonPath + ": cannot open: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalidArgument(runJsonPath + ": not a JSON object");
  if (!j.contains("artifact") || !j["artifact"].is_string() || !j.contains("threads") ||
      !j["threads"].is_number_integer())
    return invalidArgument(runJsonPath + ": expected webnn-run --json output (artifact, threads)");
  if (!j.contains("profile") || !j["profile"].is_object() || !j["profile"].contains("nodes") ||
      !j["profile"]["nodes"].is_array())
    return invalidArgument(runJsonPath + ": no per-node profile: run webnn-run with --bench N --profile --json");
  std::string artifact = j["artifact"].get<std::string>();
  int threads = j["threads"].get<int>();
  ThreadProfile *tp = nullptr;
  for (ThreadProfile &t : profile->threads)
    if (t.threads == threads) tp = &t;
  if (!tp)
    return invalidArgument(runJsonPath + ": ran with " + std::to_string(threads) +
                           " threads, which the profile was not calibrated for");
  rt::LoaderOptions lo;
  lo.allowUnboundWeights = true;
  lo.hasKernel = [](std::string_view op) { return rt::findKernelFactory(op) != nullptr; };
  rt::LoadedGraph loaded;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(artifact, lo, &loaded));
  if (!loaded.dynamicDims.empty())
    return unsupported(runJsonPath + ": " + artifact +
                       " has dynamic dimensions, whose sizes the run result does not record");
  std::shared_ptr<rt::PreparedGraph> g;
  WEBNN_RETURN_IF_ERROR(rt::prepareGraph(std::move(loaded), &g));
  const nlohmann::json &nodes = j["profile"]["nodes"];
  for (const nlohmann::json &n : nodes) {
    if (!n.is_object() || !n.contains("index") || !n["index"].is_number_unsigned() || !n.contains("ms") ||
        !n["ms"].is_number())
      return invalidArgument(runJsonPath + ": profile.nodes: each entry needs index and ms");
    size_t i = n["index"].get<size_t>();
    if (i >= g->nodes.size() || g->nodes[i].op != n.value("op", std::string()))
      return invalidArgument(runJsonPath + ": profile.nodes: node " + std::to_string(i) + " is not in " + artifact +
                             " (a different artifact?)");
    // A node run by its neighbour's kernel, and the pair's time, fit no one family.
    if (n.contains("run_by") || n.contains("also_runs") || !g->graph.nodes[i].subgraphs.empty()) continue;
    cpu::CostFunction fn = cpu::findCostFunction(g->nodes[i].op);
    if (!fn) continue;
    std::vector<bool> constant;
    for (int32_t in : g->graph.nodes[i].inputs)
      constant.push_back(in >= 0 && g->graph.tensors[size_t(in)].role == rt::TensorRole::kConstant);
    cpu::NodeCost c = fn(g->nodes[i], constant, threads);
    double ms = n["ms"].get<double>();
    double roof = rooflineMs(*profile, *tp, c.flops, c.bytes);
    if (!(ms > 0) || roof <= 0) continue;
    FamilyGrid &grid = tp->families[c.family];
    GridPoint gp;
    gp.params = c.params;
    gp.ms = ms;
    gp.warm = true;
    // A node's time in a run holds the in-graph cost the estimate adds apart.
    gp.ratio = std::max(0.05, (ms - (tp->nodeOverheadUs + tp->graphNodeUs) * 1e-3) / roof);
    if (!grid.points.empty() && grid.points[0].params.size() != gp.params.size()) continue;
    // The same parameters measured again replace the earlier point.
    auto same = std::find_if(grid.points.begin(), grid.points.end(), [&](const GridPoint &q) { return q.params == gp.params; });
    if (same != grid.points.end()) *same = gp;
    else grid.points.push_back(gp);
    ++*pointsAdded;
  }
  updateSigmas(tp);
  return Status::ok();
}

namespace {

// A point's time in the cache state its ratio `r` was measured in.
double pointMs(const DeviceProfile &p, const ThreadProfile &t, const GridPoint &g, double r) {
  return r * rooflineMs(p, t, g.flops, g.bytes) + t.nodeOverheadUs * 1e-3;
}

}  // namespace

Status mergeProfiles(const std::vector<DeviceProfile> &profiles, const std::vector<std::string> &names,
                     DeviceProfile *out, bool restateSpeed) {
  if (profiles.empty()) return invalidArgument("merge: no profiles");
  auto name = [&](size_t i) { return i < names.size() ? names[i] : "profile " + std::to_string(i + 1); };
  const DeviceProfile &first = profiles[0];
  for (size_t i = 1; i < profiles.size(); ++i) {
    const DeviceProfile &q = profiles[i];
    auto refuse = [&](const char *what, const std::string &a, const std::string &b) {
      return invalidArgument(name(i) + ": " + what + " '" + b + "', not '" + a + "' as " + name(0) +
                             ": profiles of different machines or builds are not merged");
    };
    if (q.cpuModel != first.cpuModel) return refuse("CPU model", first.cpuModel, q.cpuModel);
    if (q.isa != first.isa) return refuse("ISA", first.isa, q.isa);
    if (q.libraryVersion != first.libraryVersion)
      return refuse("library version", first.libraryVersion, q.libraryVersion);
    bool sameThreads = q.maxThreads == first.maxThreads && q.threads.size() == first.threads.size();
    for (size_t k = 0; sameThreads && k < q.threads.size(); ++k)
      sameThreads = q.threads[k].threads == first.threads[k].threads;
    if (!sameThreads)
      return refuse("thread counts up to", std::to_string(first.maxThreads), std::to_string(q.maxThreads));
  }
  auto middle = [&](auto field) {
    std::vector<double> v;
    for (const DeviceProfile &q : profiles) v.push_back(double(field(q)));
    return medianOf(v);
  };
  DeviceProfile m;
  m.cpuModel = first.cpuModel;
  m.isa = first.isa;
  m.libraryVersion = first.libraryVersion;
  m.maxThreads = first.maxThreads;
  m.l1Bytes = uint64_t(middle([](const DeviceProfile &q) { return q.l1Bytes; }));
  m.l2Bytes = uint64_t(middle([](const DeviceProfile &q) { return q.l2Bytes; }));
  m.l3Bytes = uint64_t(middle([](const DeviceProfile &q) { return q.l3Bytes; }));
  m.l3ReportedBytes = uint64_t(middle([](const DeviceProfile &q) { return q.l3ReportedBytes; }));
  m.firstTouchGBs = middle([](const DeviceProfile &q) { return q.firstTouchGBs; });
  m.jitMs = middle([](const DeviceProfile &q) { return q.jitMs; });
  m.calibrationSeconds = 0;
  m.calibrations = 0;
  for (const DeviceProfile &q : profiles) {
    m.calibrationSeconds = std::max(m.calibrationSeconds, q.calibrationSeconds);
    m.complete = m.complete || q.complete;
    m.calibrations += q.calibrations;
  }
  for (size_t k = 0; k < first.threads.size(); ++k) {
    auto tmid = [&](auto field) {
      std::vector<double> v;
      for (const DeviceProfile &q : profiles)
        if (double x = field(q.threads[k]); x != 0) v.push_back(x);
      return medianOf(v);
    };
    ThreadProfile t;
    t.threads = first.threads[k].threads;
    t.peakGflops = tmid([](const ThreadProfile &x) { return x.peakGflops; });
    t.vnniGops = tmid([](const ThreadProfile &x) { return x.vnniGops; });
    t.bf16Gflops = tmid([](const ThreadProfile &x) { return x.bf16Gflops; });
    t.l1GBs = tmid([](const ThreadProfile &x) { return x.l1GBs; });
    t.l2GBs = tmid([](const ThreadProfile &x) { return x.l2GBs; });
    t.l3GBs = tmid([](const ThreadProfile &x) { return x.l3GBs; });
    t.dramGBs = tmid([](const ThreadProfile &x) { return x.dramGBs; });
    t.dramReadGBs = tmid([](const ThreadProfile &x) { return x.dramReadGBs; });
    t.forkJoinUs = tmid([](const ThreadProfile &x) { return x.forkJoinUs; });
    t.nodeOverheadUs = tmid([](const ThreadProfile &x) { return x.nodeOverheadUs; });
    t.runOverheadUs = tmid([](const ThreadProfile &x) { return x.runOverheadUs; });
    t.runSpread = tmid([](const ThreadProfile &x) { return x.runSpread; });
    t.pieceSlowdown = tmid([](const ThreadProfile &x) { return x.pieceSlowdown; });
    t.speedReferenceMs = tmid([](const ThreadProfile &x) { return x.speedReferenceMs; });
    // The in-graph terms: zero is a measurement ("within the spread") here,
    // not an absence, so every profile counts.
    {
      std::vector<double> node, cold;
      for (const DeviceProfile &q : profiles) {
        node.push_back(q.threads[k].graphNodeUs);
        cold.push_back(q.threads[k].graphColdFactor);
        t.graphChainNodes = std::max(t.graphChainNodes, q.threads[k].graphChainNodes);
      }
      t.graphNodeUs = medianOf(node);
      t.graphColdFactor = medianOf(cold);
    }
    // Each point's times over the profiles that measured it, keyed by
    // family, parameters, warm (a folded-in run is not a grid point) and
    // which of the points with those parameters it is (two kernels of one
    // family can share them: a 1x1 with and without a residual).
    struct Times {
      GridPoint first;
      int occurrence = 0;
      std::vector<double> ms, hotMs, coldMs, ratio;
    };
    std::map<std::string, std::vector<Times>> points;
    // restateSpeed: each calibration's times restated to the median host
    // speed over the calibrations (their speed references' median over each
    // one's), where every one recorded it.
    std::vector<double> scale(profiles.size(), 1.0);
    if (restateSpeed) {
      std::vector<double> refs;
      for (const DeviceProfile &q : profiles)
        if (q.threads[k].speedReferenceMs > 0) refs.push_back(q.threads[k].speedReferenceMs);
      if (refs.size() == profiles.size()) {
        const double mid = medianOf(refs);
        for (size_t i = 0; i < profiles.size(); ++i) scale[i] = mid / profiles[i].threads[k].speedReferenceMs;
      }
    }
    for (size_t qi = 0; qi < profiles.size(); ++qi) {
      const DeviceProfile &q = profiles[qi];
      const ThreadProfile &qt = q.threads[k];
      const double f = scale[qi];
      for (const auto &[family, grid] : qt.families)
        for (size_t i = 0; i < grid.points.size(); ++i) {
          const GridPoint &g = grid.points[i];
          const int occurrence = int(std::count_if(grid.points.begin(), grid.points.begin() + long(i), [&](const GridPoint &x) {
            return x.params == g.params && x.warm == g.warm;
          }));
          std::vector<Times> &list = points[family];
          auto it = std::find_if(list.begin(), list.end(), [&](const Times &x) {
            return x.first.params == g.params && x.first.warm == g.warm && x.occurrence == occurrence;
          });
          if (it == list.end()) {
            list.push_back(Times{g, occurrence, {}, {}, {}, {}});
            it = list.end() - 1;
          }
          it->ratio.push_back(f * g.ratio);
          it->ms.push_back(f * g.ms);
          // Without its roofline's inputs a point's ratio cannot be restated.
          if (g.bytes > 0 || g.flops > 0) {
            it->ms.back() = f * pointMs(q, qt, g, g.ratio);
            if (g.hotRatio > 0) it->hotMs.push_back(f * pointMs(q, qt, g, g.hotRatio));
            if (g.coldRatio > 0) it->coldMs.push_back(f * pointMs(q, qt, g, g.coldRatio));
          }
        }
    }
    for (auto &[family, list] : points) {
      FamilyGrid &grid = t.families[family];
      for (Times &x : list) {
        GridPoint g = x.first;
        g.ms = medianOf(x.ms);
        if (g.bytes > 0 || g.flops > 0) {
          const double roof = std::max(rooflineMs(m, t, g.flops, g.bytes), 1e-9), over = t.nodeOverheadUs * 1e-3;
          g.ratio = std::max(0.05, (g.ms - over) / roof);
          g.hotRatio = x.hotMs.empty() ? 0 : std::max(0.05, (medianOf(x.hotMs) - over) / roof);
          g.coldRatio = x.coldMs.empty() ? 0 : std::max(0.05, (medianOf(x.coldMs) - over) / roof);
        } else {
          g.ratio = medianOf(x.ratio);
        }
        grid.points.push_back(g);
      }
    }
    updateSigmas(&t);
    m.threads.push_back(std::move(t));
  }
  *out = std::move(m);
  return Status::ok();
}

}  // namespace webnn::est
