// Decoder-LLM kernels (docs/LLM.md) against plain reference loops:
// matmulNBits (bits 2/4/8, packed and float zero points, bias, K not a
// multiple of the block, every inner-loop path incl. AVX-512 fp32 and VNNI),
// rmsNormalization, skipRmsNormalization (bias, broadcast skip),
// rotaryEmbedding (3-D/4-D, interleaved, partial, scalar positions) and
// groupQueryAttention (packed QKV, past cache, rotary, local window, softcap,
// 1 and 2 threads). DISABLED_MatMulNBitsBandwidth prints GB/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <limits>
#include <cstdio>
#include <random>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::test {
namespace {

using kernels::NBitsMatMul;
using kernels::NBitsPath;

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = d(rng);
  return v;
}
std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t &x : v) x = uint8_t(rng() & 0xff);
  return v;
}

uint32_t unpack(const uint8_t *p, int64_t i, int64_t bits) {
  uint32_t v = 0;
  for (int64_t j = 0; j < bits; ++j) {
    int64_t bit = i * bits + j;
    v |= uint32_t((p[bit / 8] >> (bit % 8)) & 1) << j;
  }
  return v;
}

struct NBitsCase {
  int64_t M, N, K, blockSize, bits;
  int zp;  // 0 none, 1 packed uint8, 2 float
  bool bias;
  int64_t accuracy = 0;
};

struct NBitsData {
  std::vector<float> a, scales, zpFloat, bias;
  std::vector<uint8_t> w, zpPacked;
  int64_t kBlocks, blob, zpPerRow;
};

NBitsData makeNBits(const NBitsCase &t, uint32_t seed) {
  NBitsData d;
  d.kBlocks = (t.K + t.blockSize - 1) / t.blockSize;
  d.blob = t.blockSize * t.bits / 8;
  d.zpPerRow = (d.kBlocks * t.bits + 7) / 8;
  d.a = randomFloats(size_t(t.M * t.K), seed);
  d.w = randomBytes(size_t(t.N * d.kBlocks * d.blob), seed + 1);
  d.scales = randomFloats(size_t(t.N * d.kBlocks), seed + 2, 0.01f, 0.1f);
  d.zpPacked = randomBytes(size_t(t.N * d.zpPerRow), seed + 3);
  d.zpFloat = randomFloats(size_t(t.N * d.kBlocks), seed + 4, 0.f, float(1 << t.bits));
  d.bias = randomFloats(size_t(t.N), seed + 5);
  return d;
}

// y[m, n] = sum_k a[m, k] * (q - zp) * scale (+ bias), in double.
std::vector<double> referenceNBits(const NBitsCase &t, const NBitsData &d) {
  std::vector<double> y(size_t(t.M * t.N));
  for (int64_t m = 0; m < t.M; ++m)
    for (int64_t n = 0; n < t.N; ++n) {
      double acc = t.bias ? d.bias[n] : 0.0;
      for (int64_t k = 0; k < t.K; ++k) {
        int64_t b = k / t.blockSize;
        double q = unpack(d.w.data() + (n * d.kBlocks + b) * d.blob, k % t.blockSize, t.bits);
        double z = t.zp == 1   ? double(unpack(d.zpPacked.data() + n * d.zpPerRow, b, t.bits))
                   : t.zp == 2 ? double(d.zpFloat[n * d.kBlocks + b])
                               : double(1 << (t.bits - 1));
        acc += double(d.a[m * t.K + k]) * (q - z) * d.scales[n * d.kBlocks + b];
      }
      y[m * t.N + n] = acc;
    }
  return y;
}

// accuracyLevel 4 semantics (ONNX Runtime's CompInt8): each block of a row
// of A quantized to int8 with scale max|a|/127 (q = round-half-even(a *
// (127 / max|a|)), in float32 as the kernels do), integer dot products of q
// with (q_w - zp) per block, exact in int64, scaled by both scales in double.
// Integer zero points only.
std::vector<double> referenceNBitsInt8(const NBitsCase &t, const NBitsData &d) {
  std::vector<double> y(size_t(t.M * t.N));
  std::vector<int32_t> qa(size_t(t.K));
  std::vector<float> sa(size_t(d.kBlocks));
  for (int64_t m = 0; m < t.M; ++m) {
    for (int64_t b = 0; b < d.kBlocks; ++b) {
      int64_t k0 = b * t.blockSize, k1 = std::min(t.K, k0 + t.blockSize);
      float amax = 0.f;
      for (int64_t k = k0; k < k1; ++k) amax = std::max(amax, std::fabs(d.a[m * t.K + k]));
      float inv = amax > 0.f ? 127.f / amax : 0.f;
      sa[b] = amax / 127.f;
      for (int64_t k = k0; k < k1; ++k)
        qa[k] = std::clamp(int32_t(std::nearbyint(d.a[m * t.K + k] * inv)), -127, 127);
    }
    for (int64_t n = 0; n < t.N; ++n) {
      double acc = t.bias ? d.bias[n] : 0.0;
      for (int64_t b = 0; b < d.kBlocks; ++b) {
        int64_t z = t.zp == 1 ? int64_t(unpack(d.zpPacked.data() + n * d.zpPerRow, b, t.bits))
                              : int64_t(1) << (t.bits - 1);
        int64_t dot = 0;
        for (int64_t k = b * t.blockSize; k < std::min(t.K, (b + 1) * t.blockSize); ++k)
          dot += int64_t(qa[k]) *
                 (int64_t(unpack(d.w.data() + (n * d.kBlocks + b) * d.blob, k % t.blockSize, t.bits)) - z);
        acc += double(dot) * double(d.scales[n * d.kBlocks + b]) * double(sa[b]);
      }
      y[m * t.N + n] = acc;
    }
  }
  return y;
}

// |got - want| <= tol * (1 + max |want|): the int8 path quantizes A, so its
// error scales with the output magnitude, not per element.
void expectClose(const std::vector<double> &got, const std::vector<double> &want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 1.0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * scale) << "at " << i;
}

OpCase nbitsOp(const NBitsCase &t, const NBitsData &d) {
  OpCase c;
  c.op = "matmulNBits";
  c.inputs = {f32({t.M, t.K}, d.a), tensor(DataType::kUint8, {t.N, d.kBlocks, d.blob}, d.w, true),
              f32({t.N, d.kBlocks}, d.scales, true)};
  if (t.zp == 1) c.inputs.push_back(tensor(DataType::kUint8, {t.N, d.zpPerRow}, d.zpPacked, true));
  else if (t.zp == 2) c.inputs.push_back(f32({t.N, d.kBlocks}, d.zpFloat, true));
  else c.inputs.push_back(std::nullopt);
  if (t.bias) c.inputs.push_back(f32({t.N}, d.bias, true));
  c.outputs = {outSpec(DataType::kFloat32, {t.M, t.N})};
  c.attrInt("K", t.K).attrInt("N", t.N).attrInt("blockSize", t.blockSize).attrInt("bits", t.bits);
  c.attrInt("accuracyLevel", t.accuracy);
  return c;
}

TEST(LLMKernels, MatMulNBitsMatchesReference) {
  std::vector<NBitsCase> cases = {
      {1, 7, 64, 32, 4, 0, false},    {5, 13, 96, 64, 4, 1, true},  {3, 9, 80, 16, 4, 2, true},
      {2, 5, 100, 32, 2, 1, false},   {4, 6, 72, 32, 8, 1, true},   {1, 3, 40, 16, 8, 0, true},
      {6, 17, 256, 32, 4, 1, true},   {1, 64, 512, 128, 4, 2, false}, {9, 33, 160, 32, 4, 0, true},
      {1, 1, 16, 16, 2, 2, false},
  };
  uint32_t seed = 1;
  for (const NBitsCase &t : cases) {
    NBitsData d = makeNBits(t, seed += 10);
    std::vector<double> want = referenceNBits(t, d);
    for (int threads : {1, 2}) {
      OpCase c = nbitsOp(t, d);
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      SCOPED_TRACE("M=" + std::to_string(t.M) + " N=" + std::to_string(t.N) + " K=" +
                   std::to_string(t.K) + " bits=" + std::to_string(t.bits));
      expectClose(c.outputs[0].values(), want, 1e-5);
    }
  }
}

// Every inner loop this CPU can run, on shapes each path accepts, directly
// through NBitsMatMul (the op picks one path per shape and accuracy level).
TEST(LLMKernels, MatMulNBitsEveryPath) {
  std::vector<NBitsCase> cases = {{1, 37, 256, 32, 4, 1, true}, {7, 21, 384, 64, 4, 2, false},
                                  {4, 8, 512, 128, 4, 0, true}, {3, 5, 512, 256, 4, 1, false},
                                  {2, 4, 128, 32, 4, 0, false}, {40, 19, 256, 32, 4, 1, true},
                                  {33, 16, 512, 64, 4, 2, false}, {16, 9, 128, 128, 4, 0, true},
                                  {3, 11, 200, 64, 4, 1, true}};  // K padded within a 128-chunk
  uint32_t seed = 100;
  ThreadPool pool(2);
  for (const NBitsCase &t : cases) {
    NBitsData d = makeNBits(t, seed += 10);
    std::vector<double> want = referenceNBits(t, d);
    std::vector<double> wantInt8 = t.zp == 2 ? std::vector<double>() : referenceNBitsInt8(t, d);
    for (NBitsPath path : {NBitsPath::kPortable, NBitsPath::kAvx512Fp32, NBitsPath::kAvx512Vnni,
                           NBitsPath::kAvx512DequantGemm, NBitsPath::kAvx512VnniGemm}) {
      const bool int8 = path == NBitsPath::kAvx512Vnni || path == NBitsPath::kAvx512VnniGemm;
      NBitsMatMul mm(t.M, t.N, t.K, t.blockSize, t.bits, 4, &path, t.zp == 2);
      if (mm.path() != path) {
        // Float zero points have no int8 form.
        if (!(path == NBitsPath::kAvx512VnniGemm && t.zp == 2))
          EXPECT_FALSE(kernels::avx512Available()) << "path " << kernels::nbitsPathName(path);
        continue;
      }
      mm.setWeights(d.w.data(), d.scales.data(), t.zp == 1 ? d.zpPacked.data() : nullptr,
                    t.zp == 2 ? d.zpFloat.data() : nullptr);
      std::vector<float> y(size_t(t.M * t.N));
      for (ThreadPool *p : {static_cast<ThreadPool *>(nullptr), &pool}) {
        mm.run(d.a.data(), y.data(), t.bias ? d.bias.data() : nullptr, p);
        SCOPED_TRACE(std::string(kernels::nbitsPathName(path)) + " K=" + std::to_string(t.K));
        // int8 activations: ~1/127 relative error per block, averaged down.
        expectClose(std::vector<double>(y.begin(), y.end()), want, int8 ? 2e-2 : 1e-5);
        // ... and, for the int8 paths, the same int8 arithmetic up to float
        // rounding of the per-block scaling.
        if (int8 && t.zp != 2) expectClose(std::vector<double>(y.begin(), y.end()), wantInt8, 2e-6);
      }
    }
  }
}

// The int8 GEMM (accuracyLevel 4 prefill) on shapes that exercise its edges:
// M not a multiple of the 6-row tile, N not a multiple of the 32-column
// panel, K padded to the block, block sizes 16..256, zero points present or
// absent, bias; against the int8 reference.
TEST(LLMKernels, MatMulNBitsVnniGemm) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  std::vector<NBitsCase> cases = {
      {16, 32, 128, 32, 4, 1, true},  {17, 37, 100, 32, 4, 0, false}, {23, 5, 256, 16, 4, 1, false},
      {40, 70, 384, 64, 4, 1, true},  {1, 16, 64, 32, 4, 0, true},    {7, 33, 512, 128, 4, 0, false},
      {30, 48, 1000, 256, 4, 1, true}, {128, 96, 768, 32, 4, 1, false}, {13, 1, 40, 16, 4, 1, true},
  };
  uint32_t seed = 500;
  ThreadPool pool(2);
  for (const NBitsCase &t : cases) {
    NBitsData d = makeNBits(t, seed += 10);
    std::vector<double> want = referenceNBitsInt8(t, d);
    NBitsPath path = NBitsPath::kAvx512VnniGemm;
    NBitsMatMul mm(t.M, t.N, t.K, t.blockSize, t.bits, 4, &path);
    ASSERT_EQ(mm.path(), path);
    mm.setWeights(d.w.data(), d.scales.data(), t.zp == 1 ? d.zpPacked.data() : nullptr, nullptr);
    std::vector<float> y(size_t(t.M * t.N));
    for (ThreadPool *p : {static_cast<ThreadPool *>(nullptr), &pool}) {
      std::fill(y.begin(), y.end(), -1e30f);
      mm.run(d.a.data(), y.data(), t.bias ? d.bias.data() : nullptr, p);
      SCOPED_TRACE("M=" + std::to_string(t.M) + " N=" + std::to_string(t.N) + " K=" + std::to_string(t.K) +
                   " bs=" + std::to_string(t.blockSize));
      expectClose(std::vector<double>(y.begin(), y.end()), want, 2e-6);
    }
  }
}

// Exact integers through the int8 GEMM: weight scales 1 and activations
// integers in [-127, 127] with one +-127 per block make every scale exactly 1,
// so the output is the integer dot product itself (sums < 2^24 are exact in
// float32) and must match bit for bit: catches any mispaired k, column or
// zero-point byte, which rounding tolerance could hide.
TEST(LLMKernels, MatMulNBitsVnniGemmExactIntegers) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (NBitsCase t : {NBitsCase{19, 45, 200, 32, 4, 1, false}, NBitsCase{6, 32, 256, 64, 4, 0, false},
                      NBitsCase{33, 17, 96, 16, 4, 1, false}}) {
    NBitsData d = makeNBits(t, 77);
    std::mt19937 rng(5);
    for (int64_t m = 0; m < t.M; ++m)
      for (int64_t k = 0; k < t.K; ++k)
        d.a[m * t.K + k] = (k % t.blockSize == 3) ? (rng() & 1 ? 127.f : -127.f) : float(int(rng() % 255) - 127);
    std::fill(d.scales.begin(), d.scales.end(), 1.f);
    std::vector<double> want = referenceNBitsInt8(t, d);
    NBitsPath path = NBitsPath::kAvx512VnniGemm;
    NBitsMatMul mm(t.M, t.N, t.K, t.blockSize, t.bits, 4, &path);
    ASSERT_EQ(mm.path(), path);
    mm.setWeights(d.w.data(), d.scales.data(), t.zp == 1 ? d.zpPacked.data() : nullptr, nullptr);
    std::vector<float> y(size_t(t.M * t.N));
    mm.run(d.a.data(), y.data(), nullptr, nullptr);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(double(y[i]), want[i]) << "at " << i << " K=" << t.K;
  }
}

// The op at accuracyLevel 4 with M >= 16 runs the int8 GEMM (its result is
// the int8 reference's, ~1e-2 away from the float one), at level 0 the float
// GEMM.
TEST(LLMKernels, MatMulNBitsAccuracyLevelPicksArithmetic) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  NBitsCase t{20, 40, 256, 32, 4, 1, true, 4};
  NBitsData d = makeNBits(t, 31);
  for (int64_t level : {0, 4}) {
    t.accuracy = level;
    OpCase c = nbitsOp(t, d);
    Status st = runOp(c, 2);
    ASSERT_TRUE(st.isOk()) << st.message();
    expectClose(c.outputs[0].values(), level == 4 ? referenceNBitsInt8(t, d) : referenceNBits(t, d), 2e-6);
  }
}

TEST(LLMKernels, MatMulNBitsFloat16AndBatchDims) {
  NBitsCase t{6, 10, 64, 32, 4, 1, true};
  NBitsData d = makeNBits(t, 7);
  // float16 activations/scales/bias: compare with the reference on the
  // float16-rounded values.
  OpCase c = nbitsOp(t, d);
  c.inputs[0] = f16({2, 3, t.K}, d.a);
  c.inputs[2] = f16({t.N, d.kBlocks}, d.scales, true);
  c.inputs[4] = f16({t.N}, d.bias, true);
  c.outputs = {outSpec(DataType::kFloat16, {2, 3, t.N})};
  for (float &x : d.a) x = kernels::halfToFloat(kernels::floatToHalf(x));
  for (float &x : d.scales) x = kernels::halfToFloat(kernels::floatToHalf(x));
  for (float &x : d.bias) x = kernels::halfToFloat(kernels::floatToHalf(x));
  Status st = runOp(c);
  ASSERT_TRUE(st.isOk()) << st.message();
  expectClose(c.outputs[0].values(), referenceNBits(t, d), 2e-3);
}

TEST(LLMKernels, MatMulNBitsRejectsBadShapes) {
  NBitsCase t{1, 4, 64, 32, 4, 0, false};
  NBitsData d = makeNBits(t, 3);
  OpCase c = nbitsOp(t, d);
  c.attrInt("blockSize", 24);
  EXPECT_FALSE(runOp(c).isOk());
  OpCase c2 = nbitsOp(t, d);
  c2.inputs[1] = tensor(DataType::kUint8, {t.N, d.kBlocks + 1, d.blob},
                        std::vector<uint8_t>(size_t(t.N * (d.kBlocks + 1) * d.blob)), true);
  EXPECT_FALSE(runOp(c2).isOk());
}

// ---------------------------------------------------------------- norms
std::vector<double> referenceRms(const std::vector<float> &x, const std::vector<float> &g,
                                 int64_t rows, int64_t n, double eps, std::vector<double> *inv) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += double(x[r * n + i]) * x[r * n + i];
    double s = 1.0 / std::sqrt(ss / double(n) + eps);
    if (inv) inv->push_back(s);
    for (int64_t i = 0; i < n; ++i) y[r * n + i] = x[r * n + i] * s * g[i];
  }
  return y;
}

TEST(LLMKernels, RmsNormalization) {
  for (auto [shape, axis] : std::vector<std::pair<Shape, int64_t>>{
           {{2, 3, 17}, 2}, {{4, 5, 6}, 1}, {{1, 64}, 1}, {{7}, 0}, {{3, 1}, 1}}) {
    int64_t total = 1, n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      total *= shape[i];
      if (int64_t(i) >= axis) n *= shape[i];
    }
    std::vector<float> x = randomFloats(size_t(total), 11), g = randomFloats(size_t(n), 12);
    Shape inner(shape.begin() + axis, shape.end()), stat(shape.begin(), shape.begin() + axis);
    stat.resize(shape.size(), 1);
    for (int threads : {1, 2}) {
      OpCase c;
      c.op = "rmsNormalization";
      c.inputs = {f32(shape, x), f32(inner, g, true)};
      c.outputs = {outSpec(DataType::kFloat32, shape), outSpec(DataType::kFloat32, stat)};
      c.attrInt("axis", axis).attrFloat("epsilon", 1e-6);
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      std::vector<double> inv;
      expectClose(c.outputs[0].values(), referenceRms(x, g, total / n, n, 1e-6, &inv), 1e-5);
      expectClose(c.outputs[1].values(), inv, 1e-5);
    }
  }
}

TEST(LLMKernels, SkipRmsNormalization) {
  const int64_t B = 2, S = 3, H = 37;
  std::vector<float> x = randomFloats(B * S * H, 21), g = randomFloats(H, 22), bias = randomFloats(H, 23);
  for (Shape skipShape : {Shape{B, S, H}, Shape{1, S, H}, Shape{S, H}}) {
    int64_t skipRows = skipShape.size() == 3 ? skipShape[0] * skipShape[1] : skipShape[0];
    std::vector<float> skip = randomFloats(size_t(skipRows * H), 24);
    for (bool withBias : {false, true}) {
      OpCase c;
      c.op = "skipRmsNormalization";
      c.inputs = {f32({B, S, H}, x), f32(skipShape, skip), f32({H}, g, true)};
      if (withBias) c.inputs.push_back(f32({H}, bias, true));
      c.outputs = {outSpec(DataType::kFloat32, {B, S, H}), outSpec(DataType::kFloat32, {B, S, 1}),
                   outSpec(DataType::kFloat32, {B, S, H})};
      c.attrFloat("epsilon", 1e-5);
      Status st = runOp(c, 2);
      ASSERT_TRUE(st.isOk()) << st.message();
      std::vector<float> sum(x.size());
      std::vector<double> sumD(x.size());
      for (int64_t r = 0; r < B * S; ++r)
        for (int64_t i = 0; i < H; ++i) {
          float v = x[r * H + i] + skip[(r % skipRows) * H + i] + (withBias ? bias[i] : 0.f);
          sum[r * H + i] = v;
          sumD[r * H + i] = v;
        }
      std::vector<double> inv;
      expectClose(c.outputs[0].values(), referenceRms(sum, g, B * S, H, 1e-5, &inv), 1e-5);
      expectClose(c.outputs[1].values(), inv, 1e-5);
      expectClose(c.outputs[2].values(), sumD, 1e-6);
    }
  }
}

// ---------------------------------------------------------------- rotary
// out = rotate(x) at position pos: pairs (i, i + rot/2) or (2i, 2i + 1).
void referenceRotate(const float *x, double *y, int64_t D, int64_t rot, const float *cosRow,
                     const float *sinRow, bool interleaved) {
  for (int64_t d = 0; d < D; ++d) y[d] = x[d];
  for (int64_t i = 0; i < rot / 2; ++i) {
    int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + rot / 2;
    y[i1] = double(x[i1]) * cosRow[i] - double(x[i2]) * sinRow[i];
    y[i2] = double(x[i2]) * cosRow[i] + double(x[i1]) * sinRow[i];
  }
}

TEST(LLMKernels, RotaryEmbedding) {
  const int64_t B = 2, S = 3, H = 2, D = 8, maxSeq = 16;
  for (bool bnsh : {false, true})
    for (bool interleaved : {false, true})
      for (int64_t rot : {int64_t(8), int64_t(4)})
        for (bool scalarPos : {false, true}) {
          std::vector<float> x = randomFloats(B * S * H * D, 31);
          std::vector<float> cosC = randomFloats(maxSeq * rot / 2, 32), sinC = randomFloats(maxSeq * rot / 2, 33);
          std::vector<int64_t> pos = scalarPos ? std::vector<int64_t>{5}
                                               : std::vector<int64_t>{0, 1, 2, 7, 9, 15};
          Shape shape = bnsh ? Shape{B, H, S, D} : Shape{B, S, H * D};
          OpCase c;
          c.op = "rotaryEmbedding";
          c.inputs = {f32(shape, x), tensor(DataType::kInt64, scalarPos ? Shape{1} : Shape{B, S}, pos),
                      f32({maxSeq, rot / 2}, cosC, true), f32({maxSeq, rot / 2}, sinC, true)};
          c.outputs = {outSpec(DataType::kFloat32, shape)};
          c.attrBool("interleaved", interleaved);
          if (rot != D) c.attrInt("rotaryEmbeddingDim", rot).attrInt("numHeads", H);
          else if (!bnsh) c.attrInt("numHeads", H);
          Status st = runOp(c);
          ASSERT_TRUE(st.isOk()) << st.message();
          std::vector<double> want(x.size());
          for (int64_t b = 0; b < B; ++b)
            for (int64_t s = 0; s < S; ++s)
              for (int64_t h = 0; h < H; ++h) {
                int64_t p = scalarPos ? pos[0] + s : pos[b * S + s];
                int64_t off = bnsh ? ((b * H + h) * S + s) * D : (b * S + s) * H * D + h * D;
                referenceRotate(x.data() + off, want.data() + off, D, rot, cosC.data() + p * rot / 2,
                                sinC.data() + p * rot / 2, interleaved);
              }
          expectClose(c.outputs[0].values(), want, 1e-6);
        }
}

// ---------------------------------------------------------------- GQA
struct GqaCase {
  int64_t B, S, P, numHeads, kvHeads, D;
  bool packed, rotary, interleaved;
  int64_t window;
  float softcap;
  std::vector<int32_t> seqlens;  // per batch: total length - 1
};

// A GqaCase's random operands, drawn in a fixed order from `seed` (advanced).
struct GqaOperands {
  std::vector<float> q, k, v, pk, pv, cosC, sinC;
  int32_t total = 0;  // totalSequenceLength: the longest seqlens + 1
  GqaOperands(const GqaCase &t, int64_t qw, int64_t rot, int64_t maxSeq, uint32_t &seed) {
    const int64_t D = t.D;
    q = randomFloats(size_t(t.B * t.S * qw), seed++);
    k = randomFloats(size_t(t.B * t.S * t.kvHeads * D), seed++);
    v = randomFloats(size_t(t.B * t.S * t.kvHeads * D), seed++);
    pk = randomFloats(size_t(t.B * t.kvHeads * t.P * D), seed++);
    pv = randomFloats(size_t(t.B * t.kvHeads * t.P * D), seed++);
    cosC = randomFloats(size_t(maxSeq * (rot / 2)), seed++);
    sinC = randomFloats(size_t(maxSeq * (rot / 2)), seed++);
    for (int32_t s : t.seqlens) total = std::max(total, s + 1);
  }
  // groupQueryAttention's operands (packed QKV leaves key and value absent),
  // with the cos/sin caches when `caches`.
  std::vector<std::optional<TestTensor>> opInputs(const GqaCase &t, int64_t qw, int64_t rot, int64_t maxSeq,
                                                  bool caches) const {
    const int64_t D = t.D;
    std::vector<std::optional<TestTensor>> in = {f32({t.B, t.S, qw}, q)};
    if (t.packed) in.insert(in.end(), {std::nullopt, std::nullopt});
    else in.insert(in.end(), {f32({t.B, t.S, t.kvHeads * D}, k), f32({t.B, t.S, t.kvHeads * D}, v)});
    in.push_back(f32({t.B, t.kvHeads, t.P, D}, pk));
    in.push_back(f32({t.B, t.kvHeads, t.P, D}, pv));
    in.push_back(tensor(DataType::kInt32, {t.B}, t.seqlens));
    in.push_back(tensor(DataType::kInt32, {}, std::vector<int32_t>{total}));
    if (caches) {
      in.push_back(f32({maxSeq, rot / 2}, cosC, true));
      in.push_back(f32({maxSeq, rot / 2}, sinC, true));
    }
    return in;
  }
};

// Straightforward attention: scores for the whole causal range, softmax,
// weighted sum. Returns output, present key, present value.
void referenceGqa(const GqaCase &t, const std::vector<float> &q, const std::vector<float> &k,
                  const std::vector<float> &v, const std::vector<float> &pk,
                  const std::vector<float> &pv, const std::vector<float> &cosC,
                  const std::vector<float> &sinC, int64_t rot, int32_t total,
                  std::vector<double> &out, std::vector<double> &presK, std::vector<double> &presV) {
  const int64_t T = t.P + t.S, D = t.D;
  const int64_t qw = t.packed ? (t.numHeads + 2 * t.kvHeads) * D : t.numHeads * D;
  const int64_t kw = t.packed ? qw : t.kvHeads * D;
  out.assign(size_t(t.B * t.S * t.numHeads * D), 0);
  presK.assign(size_t(t.B * t.kvHeads * T * D), 0);
  presV = presK;
  for (int64_t b = 0; b < t.B; ++b) {
    int64_t past = t.S == total ? 0 : t.seqlens[b] + 1 - t.S;
    for (int64_t h = 0; h < t.kvHeads; ++h) {
      for (int64_t j = 0; j < past; ++j)
        for (int64_t d = 0; d < D; ++d) {
          presK[((b * t.kvHeads + h) * T + j) * D + d] = pk[((b * t.kvHeads + h) * t.P + j) * D + d];
          presV[((b * t.kvHeads + h) * T + j) * D + d] = pv[((b * t.kvHeads + h) * t.P + j) * D + d];
        }
      for (int64_t s = 0; s < t.S; ++s) {
        const float *kr = t.packed ? q.data() + (b * t.S + s) * qw + (t.numHeads + h) * D
                                   : k.data() + (b * t.S + s) * kw + h * D;
        const float *vr = t.packed ? q.data() + (b * t.S + s) * qw + (t.numHeads + t.kvHeads + h) * D
                                   : v.data() + (b * t.S + s) * kw + h * D;
        double *dk = presK.data() + ((b * t.kvHeads + h) * T + past + s) * D;
        if (t.rotary)
          referenceRotate(kr, dk, D, rot, cosC.data() + (past + s) * rot / 2,
                          sinC.data() + (past + s) * rot / 2, t.interleaved);
        else
          for (int64_t d = 0; d < D; ++d) dk[d] = kr[d];
        for (int64_t d = 0; d < D; ++d) presV[((b * t.kvHeads + h) * T + past + s) * D + d] = vr[d];
      }
    }
    for (int64_t h = 0; h < t.numHeads; ++h)
      for (int64_t s = 0; s < t.S; ++s) {
        int64_t pos = past + s, kvh = h / (t.numHeads / t.kvHeads);
        std::vector<double> qr(static_cast<size_t>(D));
        const float *qs = q.data() + (b * t.S + s) * qw + h * D;
        if (t.rotary)
          referenceRotate(qs, qr.data(), D, rot, cosC.data() + pos * rot / 2, sinC.data() + pos * rot / 2,
                          t.interleaved);
        else
          for (int64_t d = 0; d < D; ++d) qr[d] = qs[d];
        std::vector<double> sc;
        int64_t first = t.window >= 0 ? std::max<int64_t>(0, pos - t.window) : 0;
        double mx = -1e300;
        for (int64_t j = first; j <= pos; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += qr[d] * presK[((b * t.kvHeads + kvh) * T + j) * D + d];
          dot /= std::sqrt(double(D));
          if (t.softcap > 0) dot = t.softcap * std::tanh(dot / t.softcap);
          sc.push_back(dot);
          mx = std::max(mx, dot);
        }
        double sum = 0;
        for (double &x : sc) sum += (x = std::exp(x - mx));
        for (int64_t j = first; j <= pos; ++j)
          for (int64_t d = 0; d < D; ++d)
            out[((b * t.S + s) * t.numHeads + h) * D + d] +=
                sc[size_t(j - first)] / sum * presV[((b * t.kvHeads + kvh) * T + j) * D + d];
      }
  }
}

TEST(LLMKernels, GroupQueryAttention) {
  std::vector<GqaCase> cases = {
      {1, 5, 0, 4, 2, 8, false, true, false, -1, 0.f, {4}},          // prefill, rotary
      {2, 1, 6, 4, 2, 16, true, true, true, -1, 0.f, {4, 6}},        // decode, packed, ragged past
      {1, 3, 4, 6, 3, 8, false, false, false, 2, 0.f, {6}},          // local window
      {1, 2, 70, 2, 1, 8, false, true, false, -1, 5.f, {71}},        // > one 64-key tile, softcap
      {2, 4, 0, 2, 2, 12, true, false, false, -1, 0.f, {3, 3}},      // MHA, packed
      // < 8 rows with D % 16 == 0: gqaAttendRowsAvx512 where the CPU has it
      // (16-key blocks: partial ones, a window inside a block, ragged).
      {1, 1, 150, 6, 2, 64, false, true, false, -1, 0.f, {150}},     // decode, long past
      {2, 3, 40, 4, 2, 32, false, true, false, 20, 0.f, {42, 30}},   // window, ragged
      // >= 8 rows with D % 16 == 0: the tiled AVX-512 path (GqaAttention.h)
      // where the CPU has it: row tiles across heads, several key tiles,
      // partial tiles, windows across tile edges, a past, ragged batches.
      {1, 37, 0, 6, 2, 64, false, true, false, -1, 0.f, {36}},       // prefill, group 3
      {2, 20, 50, 4, 4, 32, true, true, true, -1, 0.f, {69, 60}},    // past, packed, ragged
      {1, 130, 0, 4, 1, 16, false, false, false, 70, 0.f, {129}},    // window, 3 key tiles
      {1, 8, 3, 2, 1, 48, false, true, false, 4, 0.f, {10}},         // window < tile rows
      {1, 9, 0, 2, 1, 256, false, false, false, -1, 0.f, {8}},       // widest head
  };
  uint32_t seed = 500;
  for (const GqaCase &t : cases) {
    const int64_t D = t.D, rot = t.rotary ? D / 2 * 2 : 0, maxSeq = t.P + t.S + 4;
    const int64_t qw = t.packed ? (t.numHeads + 2 * t.kvHeads) * D : t.numHeads * D;
    GqaOperands o(t, qw, rot, maxSeq, seed);
    std::vector<float> &q = o.q, &k = o.k, &v = o.v, &pk = o.pk, &pv = o.pv, &cosC = o.cosC, &sinC = o.sinC;
    const int32_t total = o.total;
    std::vector<double> want, wantK, wantV;
    referenceGqa(t, q, k, v, pk, pv, cosC, sinC, rot, total, want, wantK, wantV);
    for (int threads : {1, 2}) {
      OpCase c;
      c.op = "groupQueryAttention";
      c.inputs = o.opInputs(t, qw, rot, maxSeq, t.rotary);
      c.outputs = {outSpec(DataType::kFloat32, {t.B, t.S, t.numHeads * D}),
                   outSpec(DataType::kFloat32, {t.B, t.kvHeads, t.P + t.S, D}),
                   outSpec(DataType::kFloat32, {t.B, t.kvHeads, t.P + t.S, D})};
      c.attrInt("numHeads", t.numHeads).attrInt("kvNumHeads", t.kvHeads);
      c.attrBool("doRotary", t.rotary).attrBool("rotaryInterleaved", t.interleaved);
      c.attrInt("localWindowSize", t.window);
      if (t.softcap > 0) c.attrFloat("softcap", t.softcap);
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      expectClose(c.outputs[0].values(), want, 1e-5);
      expectClose(c.outputs[1].values(), wantK, 1e-6);
      expectClose(c.outputs[2].values(), wantV, 1e-6);
    }
  }
}

// Keys 0..69 score 0 with values 1; from key 70 on, half the keys score 95
// (values 0) and the rest 92 or 100-880 below that (values 1): the online
// softmax's rescale exp(-95) and those probabilities are below FLT_MIN. No
// output may be denormal (the P x V FMAs that read denormal probabilities
// take a microcode assist per element on Intel cores, ~100x slower): rows
// before 70 give 1, the later ones exactly 0 (their true value < FLT_MIN).
// Each path: tiled (>= 8 rows), rows (decode), the scalar loop (D % 16 != 0).
TEST(LLMKernels, GroupQueryAttentionFarBelowMaxGivesNoDenormals) {
  std::vector<GqaCase> cases = {
      {1, 80, 0, 2, 1, 16, false, false, false, -1, 0.f, {79}},    // tiled prefill
      {1, 1, 79, 2, 1, 16, false, false, false, -1, 0.f, {79}},    // decode, rows path
      {1, 4, 76, 2, 1, 32, false, false, false, -1, 0.f, {79}},    // rows path, a past
      {1, 80, 0, 2, 1, 8, false, false, false, -1, 0.f, {79}},     // scalar loop
      {1, 1, 79, 2, 1, 24, false, false, false, -1, 0.f, {79}},    // scalar decode
  };
  auto score = [](int64_t j) {
    if (j < 70) return 0.f;
    if (j % 2 == 0) return 95.f;
    return j % 4 == 3 ? 3.f : 95.f - 100.f - float(j % 7) * 130.f;
  };
  auto value = [](int64_t j) { return j >= 70 && j % 2 == 0 ? 0.f : 1.f; };
  uint32_t seed = 1300;
  for (const GqaCase &t : cases) {
    const int64_t D = t.D, qw = t.numHeads * D, maxSeq = t.P + t.S;
    GqaOperands o(t, qw, 0, maxSeq, seed);
    const float root = std::sqrt(float(D));  // the kernel scales scores by 1 / sqrt(D)
    std::fill(o.q.begin(), o.q.end(), 0.f);
    for (size_t i = 0; i < o.q.size(); i += size_t(D)) o.q[i] = 1.f;
    auto setKey = [&](float *k, float *v, int64_t j) {
      for (int64_t d = 0; d < D; ++d) k[d] = 0.f, v[d] = value(j);
      k[0] = score(j) * root;
    };
    for (int64_t j = 0; j < t.P; ++j) setKey(o.pk.data() + j * D, o.pv.data() + j * D, j);
    for (int64_t s = 0; s < t.S; ++s) setKey(o.k.data() + s * D, o.v.data() + s * D, t.P + s);
    std::vector<double> want, wantK, wantV;
    referenceGqa(t, o.q, o.k, o.v, o.pk, o.pv, o.cosC, o.sinC, 0, o.total, want, wantK, wantV);
    for (int threads : {1, 2}) {
      OpCase c;
      c.op = "groupQueryAttention";
      c.inputs = o.opInputs(t, qw, 0, maxSeq, false);
      c.outputs = {outSpec(DataType::kFloat32, {t.B, t.S, qw}),
                   outSpec(DataType::kFloat32, {t.B, t.kvHeads, t.P + t.S, D}),
                   outSpec(DataType::kFloat32, {t.B, t.kvHeads, t.P + t.S, D})};
      c.attrInt("numHeads", t.numHeads).attrInt("kvNumHeads", t.kvHeads);
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      std::vector<double> got = c.outputs[0].values();
      int subnormal = 0;
      for (double v : got) subnormal += std::fpclassify(float(v)) == FP_SUBNORMAL;
      EXPECT_EQ(subnormal, 0) << "S=" << t.S << " D=" << D;
      for (size_t i = 0; i < got.size(); ++i) {
        if (want[i] < 0.5 * std::numeric_limits<float>::min())
          ASSERT_EQ(got[i], 0.0) << "S=" << t.S << " D=" << D << " element " << i << " (row " << i / size_t(qw) << ")";
        else
          ASSERT_NEAR(got[i], want[i], 1e-5) << "S=" << t.S << " D=" << D << " element " << i;
      }
    }
  }
}

// A present as long as the past (ORT's max(past, total) for a fixed-capacity
// cache): the past's rows after seqlensK + 1 - S are NaN and must not be
// read; the present holds the valid past rows, the new ones, then zeros.
// (Sharing one buffer is the executor's in-place binding, ExecutorTest.)
TEST(LLMKernels, GroupQueryAttentionCapacityPresent) {
  std::vector<GqaCase> cases = {
      {1, 1, 12, 4, 2, 16, false, true, false, -1, 0.f, {7}},        // decode
      {2, 1, 12, 4, 2, 16, true, true, true, -1, 0.f, {4, 10}},      // ragged, packed
      {1, 5, 12, 4, 2, 16, false, true, false, -1, 0.f, {4}},        // prefill, empty past
      {1, 9, 20, 4, 1, 16, false, true, false, -1, 0.f, {12}},       // tiled path, past 4
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  uint32_t seed = 900;
  for (const GqaCase &t : cases) {
    const int64_t D = t.D, rot = D, maxSeq = t.P + t.S;
    const int64_t qw = t.packed ? (t.numHeads + 2 * t.kvHeads) * D : t.numHeads * D;
    GqaOperands o(t, qw, rot, maxSeq, seed);
    std::vector<float> &q = o.q, &k = o.k, &v = o.v, &pk = o.pk, &pv = o.pv, &cosC = o.cosC, &sinC = o.sinC;
    const int32_t total = o.total;
    auto pastOf = [&](int64_t b) { return t.S == total ? 0 : int64_t(t.seqlens[size_t(b)]) + 1 - t.S; };
    for (int64_t b = 0; b < t.B; ++b)
      for (int64_t h = 0; h < t.kvHeads; ++h)
        for (int64_t j = pastOf(b); j < t.P; ++j)
          for (int64_t d = 0; d < D; ++d) {
            pk[size_t(((b * t.kvHeads + h) * t.P + j) * D + d)] = nan;
            pv[size_t(((b * t.kvHeads + h) * t.P + j) * D + d)] = nan;
          }
    // The reference's present has P + S rows; the kernel's P, the same first rows.
    std::vector<double> want, refK, refV;
    referenceGqa(t, q, k, v, pk, pv, cosC, sinC, rot, total, want, refK, refV);
    std::vector<double> wantK(size_t(t.B * t.kvHeads * t.P * D), 0.0), wantV = wantK;
    for (int64_t b = 0; b < t.B; ++b)
      for (int64_t h = 0; h < t.kvHeads; ++h)
        for (int64_t j = 0; j < pastOf(b) + t.S; ++j)
          for (int64_t d = 0; d < D; ++d) {
            wantK[size_t(((b * t.kvHeads + h) * t.P + j) * D + d)] = refK[size_t(((b * t.kvHeads + h) * (t.P + t.S) + j) * D + d)];
            wantV[size_t(((b * t.kvHeads + h) * t.P + j) * D + d)] = refV[size_t(((b * t.kvHeads + h) * (t.P + t.S) + j) * D + d)];
          }
    for (int threads : {1, 2}) {
      OpCase c;
      c.op = "groupQueryAttention";
      c.inputs = o.opInputs(t, qw, rot, maxSeq, true);
      c.outputs = {outSpec(DataType::kFloat32, {t.B, t.S, t.numHeads * D}),
                   outSpec(DataType::kFloat32, {t.B, t.kvHeads, t.P, D}),
                   outSpec(DataType::kFloat32, {t.B, t.kvHeads, t.P, D})};
      c.attrInt("numHeads", t.numHeads).attrInt("kvNumHeads", t.kvHeads);
      c.attrBool("doRotary", true).attrBool("rotaryInterleaved", t.interleaved);
      Status st = runOp(c, threads);
      ASSERT_TRUE(st.isOk()) << st.message();
      expectClose(c.outputs[0].values(), want, 1e-5);
      expectClose(c.outputs[1].values(), wantK, 1e-6);
      expectClose(c.outputs[2].values(), wantV, 1e-6);
    }
  }
}

// Streaming rate of the int4 GEMV (M = 1): weight bytes + scales per second.
// Run: webnn-kernel-tests --gtest_also_run_disabled_tests --gtest_filter='*Bandwidth*'
TEST(LLMKernels, DISABLED_MatMulNBitsBandwidth) {
  struct Shape2 { int64_t N, K; };
  for (Shape2 s : {Shape2{4096, 4096}, Shape2{2048, 768}, Shape2{768, 2048}}) {
    NBitsCase t{1, s.N, s.K, 32, 4, 0, false};
    NBitsData d = makeNBits(t, 9);
    double bytes = double(d.w.size()) + double(d.scales.size()) * 4;
    for (NBitsPath path : {NBitsPath::kAvx512Fp32, NBitsPath::kAvx512Vnni, NBitsPath::kPortable}) {
      for (int threads : {1, 2}) {
        ThreadPool pool(threads);
        NBitsMatMul mm(1, t.N, t.K, t.blockSize, 4, 4, &path);
        if (mm.path() != path) continue;
        mm.setWeights(d.w.data(), d.scales.data(), nullptr, nullptr);
        std::vector<float> y(size_t(t.N));
        // Several weight copies larger than L3 together would be needed for
        // a pure DRAM number; one 8 MB copy is read from L3 in part, so
        // rotate through enough copies to exceed a 32 MB L3.
        int copies = int(std::max(1.0, 96e6 / bytes));
        std::vector<std::vector<uint8_t>> ws(size_t(copies), d.w);
        int iters = int(std::max(20.0, 2e9 / bytes));
        mm.run(d.a.data(), y.data(), nullptr, &pool);
        // The machine is shared: CPU time says what the loop costs when it
        // has a core, wall time what it got.
        std::clock_t c0 = std::clock();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < iters; ++i) {
          mm.setWeightsPackedOnly(ws[size_t(i % copies)].data());
          mm.run(d.a.data(), y.data(), nullptr, &pool);
        }
        double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        std::printf("int4 GEMV N=%lld K=%lld %-12s threads=%d: %.1f us, %.1f GB/s wall, "
                    "%.1f GB/s per CPU-second (cpu/wall %.2f)\n",
                    (long long)t.N, (long long)t.K, kernels::nbitsPathName(path), threads,
                    sec / iters * 1e6, bytes * iters / sec / 1e9, bytes * iters / cpu / 1e9, cpu / sec);
      }
    }
  }
}

// One decode token of the ~100M Llama (bench/llm.py's model after
// --webnn-merge-matmul-nbits): per layer q/k/v merged (1280 x 768), o (768 x
// 768), gate/up merged (4096 x 768), down (768 x 2048), then lm_head (32000 x
// 768), every weight and scale array its own memory (~64 MB, twice the L3),
// run back to back as in a decode step. Prints GB/s of packed weights +
// scales next to a plain AVX-512 read of as many bytes in the same run
// (the DRAM rate the GEMVs could reach), per path and thread count.
// Run: webnn-kernel-tests --gtest_also_run_disabled_tests --gtest_filter='*DecodeSweep*'
TEST(LLMKernels, DISABLED_MatMulNBitsDecodeSweep) {
  struct Shape2 { int64_t N, K; };
  std::vector<Shape2> shapes;
  for (int l = 0; l < 12; ++l) shapes.insert(shapes.end(), {{1280, 768}, {768, 768}, {4096, 768}, {768, 2048}});
  shapes.push_back({32000, 768});
  struct Gemv {
    Shape2 s;
    std::vector<uint8_t> w;
    std::vector<float> scales, a, y;
  };
  std::vector<Gemv> gemvs;
  double bytes = 0;
  uint32_t seed = 40;
  for (Shape2 s : shapes) {
    Gemv g{s, randomBytes(size_t(s.N * s.K / 2), seed++), randomFloats(size_t(s.N * s.K / 32), seed++, 0.01f, 0.1f),
           randomFloats(size_t(s.K), seed++), std::vector<float>(size_t(s.N))};
    bytes += double(g.w.size()) + 4.0 * double(g.scales.size());
    gemvs.push_back(std::move(g));
  }
  const int reps = 30;
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    // The same bytes as one flat buffer, read with 4 independent sums.
    std::vector<float> flat(size_t(bytes / 4), 1.f);
    auto readAll = [&] {
      const int64_t n = int64_t(flat.size());
      std::vector<float> part(size_t(threads) * 16, 0.f);
      pool.parallelFor(n / 64, std::max<int64_t>(1, n / 64 / threads), [&](int64_t b, int64_t e) {
        float acc[16] = {};
        for (int64_t i = b * 64; i < e * 64; i += 16)
          for (int j = 0; j < 16; ++j) acc[j] += flat[size_t(i + j)];
        float sum = 0;
        for (float x : acc) sum += x;
        part[size_t(b * threads / (n / 64))] += sum;
      });
      return part[0];
    };
    for (NBitsPath path : {NBitsPath::kAvx512Fp32, NBitsPath::kAvx512Vnni}) {
      std::vector<std::unique_ptr<NBitsMatMul>> mms;
      for (Gemv &g : gemvs) {
        auto mm = std::make_unique<NBitsMatMul>(1, g.s.N, g.s.K, 32, 4, path == NBitsPath::kAvx512Vnni ? 4 : 0, &path);
        if (mm->path() != path) break;
        mm->setWeights(g.w.data(), g.scales.data(), nullptr, nullptr);
        mms.push_back(std::move(mm));
      }
      if (mms.size() != gemvs.size()) continue;
      // Alternate: best of `reps` tokens for the GEMVs, then as many reads.
      double bestGemv = 1e9, bestRead = 1e9;
      volatile float sink = 0;
      for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < gemvs.size(); ++i) mms[i]->run(gemvs[i].a.data(), gemvs[i].y.data(), nullptr, &pool);
        auto t1 = std::chrono::steady_clock::now();
        sink = sink + readAll();
        auto t2 = std::chrono::steady_clock::now();
        bestGemv = std::min(bestGemv, std::chrono::duration<double>(t1 - t0).count());
        bestRead = std::min(bestRead, std::chrono::duration<double>(t2 - t1).count());
      }
      std::printf("decode token (49 GEMVs, %.1f MB) %-12s threads=%d: %.3f ms, %.1f GB/s; plain read %.3f ms, "
                  "%.1f GB/s; GEMV at %.0f%% of the read\n",
                  bytes / 1e6, kernels::nbitsPathName(path), threads, bestGemv * 1e3, bytes / bestGemv / 1e9,
                  bestRead * 1e3, bytes / bestRead / 1e9, 100.0 * bestRead / bestGemv);
    }
  }
}

// Prefill-shaped MatMulNBits (M = 128) on every path this CPU runs: GFLOP/s
// (int8 paths: GOP/s, one multiply-add = 2) per CPU-second (robust on a
// shared machine) and per wall second.
TEST(LLMKernels, DISABLED_MatMulNBitsPrefill) {
  struct Shape2 { int64_t N, K; };
  for (Shape2 s : {Shape2{2048, 768}, Shape2{768, 2048}}) {
    NBitsCase t{128, s.N, s.K, 32, 4, 0, false};
    NBitsData d = makeNBits(t, 11);
    double flops = 2.0 * double(t.M) * double(t.N) * double(t.K);
    for (NBitsPath path : {NBitsPath::kAvx512VnniGemm, NBitsPath::kAvx512DequantGemm, NBitsPath::kAvx512Vnni,
                           NBitsPath::kAvx512Fp32}) {
      for (int threads : {1, 2}) {
      NBitsMatMul mm(t.M, t.N, t.K, t.blockSize, 4, 4, &path);
      if (mm.path() != path) continue;
      mm.setWeights(d.w.data(), d.scales.data(), d.zpPacked.data(), nullptr);
      std::vector<float> y(size_t(t.M * t.N));
      ThreadPool pool(threads);
      mm.run(d.a.data(), y.data(), nullptr, &pool);
      int iters = 40;
      double best = 1e30;
      std::clock_t c0 = std::clock();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) {
        auto t1 = std::chrono::steady_clock::now();
        mm.run(d.a.data(), y.data(), nullptr, &pool);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
      }
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
      // The fastest call is the least disturbed by other work on the machine.
      std::printf("int4 prefill M=128 N=%lld K=%lld %-20s threads=%d: %.1f GFLOP/s per CPU-second, %.1f wall, "
                  "%.1f best call\n",
                  (long long)t.N, (long long)t.K, kernels::nbitsPathName(path), threads, flops * iters / cpu / 1e9,
                  flops * iters / sec / 1e9, flops / best / 1e9);
      }
    }
  }
}

// Where the int8 GEMM starts to beat the GEMV tiles (kVnniGemmMinRows): best
// call of each path on a few rows, weights in cache (a prefill's regime).
TEST(LLMKernels, DISABLED_MatMulNBitsSmallM) {
  for (int64_t M : {2, 4, 8, 12, 16}) {
    NBitsCase t{M, 2048, 768, 32, 4, 1, false};
    NBitsData d = makeNBits(t, 13);
    double ops = 2.0 * double(t.M) * double(t.N) * double(t.K);
    for (NBitsPath path : {NBitsPath::kAvx512VnniGemm, NBitsPath::kAvx512Vnni, NBitsPath::kAvx512DequantGemm}) {
      NBitsMatMul mm(t.M, t.N, t.K, t.blockSize, 4, 4, &path);
      if (mm.path() != path) continue;
      mm.setWeights(d.w.data(), d.scales.data(), d.zpPacked.data(), nullptr);
      std::vector<float> y(size_t(t.M * t.N));
      double best = 1e30;
      for (int i = 0; i < 200; ++i) {
        auto t1 = std::chrono::steady_clock::now();
        mm.run(d.a.data(), y.data(), nullptr, nullptr);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
      }
      std::printf("int4 M=%lld N=2048 K=768 %-20s: %.1f us, %.1f GOP/s best call\n", (long long)M,
                  kernels::nbitsPathName(path), best * 1e6, ops / best / 1e9);
    }
  }
}

// Per-call fixed cost of the VNNI GEMV (M = 1: activation quantization and
// lane scales) on a column count small enough that the weights cost nothing:
// what each of a decode step's 49 GEMVs pays before streaming its weight.
TEST(LLMKernels, DISABLED_MatMulNBitsGemvOverhead) {
  for (int64_t K : {768, 2048}) {
    NBitsCase t{1, 16, K, 32, 4, 1, false};
    NBitsData d = makeNBits(t, 17);
    for (NBitsPath path : {NBitsPath::kAvx512Vnni, NBitsPath::kAvx512Fp32}) {
      NBitsMatMul mm(1, t.N, t.K, t.blockSize, 4, 4, &path);
      if (mm.path() != path) continue;
      mm.setWeights(d.w.data(), d.scales.data(), d.zpPacked.data(), nullptr);
      std::vector<float> y(size_t(t.N));
      double best = 1e30;
      for (int i = 0; i < 2000; ++i) {
        auto t1 = std::chrono::steady_clock::now();
        mm.run(d.a.data(), y.data(), nullptr, nullptr);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
      }
      std::printf("int4 GEMV M=1 N=16 K=%lld %-12s: %.2f us best call\n", (long long)K, kernels::nbitsPathName(path),
                  best * 1e6);
    }
  }
}

}  // namespace
}  // namespace webnn::cpu::test
