// MatMulNBits: weight preparation, activation preparation, path choice and
// the portable inner loop (any bits / block size). See QuantizedMatMul.h.
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/backends/cpu/ThreadPool.h"

namespace webnn::cpu::kernels {

const char *nbitsPathName(NBitsPath p) {
  switch (p) {
    case NBitsPath::kAvx512Fp32: return "avx512-fp32";
    case NBitsPath::kAvx512Vnni: return "avx512-vnni";
    case NBitsPath::kAvx512DequantGemm: return "avx512-dequant-gemm";
    case NBitsPath::kAvx512VnniGemm: return "avx512-vnni-gemm";
    default: return "portable";
  }
}

namespace {

// The `bits`-wide value number `i` of a low-bits-first packed byte stream.
inline uint32_t unpackBits(const uint8_t *p, int64_t i, int64_t bits) {
  int64_t bit = i * bits;
  uint32_t v = p[bit >> 3] >> (bit & 7);
  if ((bit & 7) + bits > 8) v |= uint32_t(p[(bit >> 3) + 1]) << (8 - (bit & 7));
  return v & ((1u << bits) - 1);
}

// Columns [n0, n1): dequantize one block of one column to float, then dot it
// with every row. Any bits, any block size; the reference for the fast paths.
void nbitsGemmPortable(const NBitsWeightView &w, const float *A, int64_t M, int64_t n0,
                       int64_t n1, float *Y, const float *bias, float *blockBuf) {
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t m = 0; m < M; ++m) Y[m * w.N + n] = bias ? bias[n] : 0.f;
    for (int64_t b = 0; b < w.kBlocks; ++b) {
      const uint8_t *blob = w.packed + (n * w.kBlocks + b) * w.blobSize;
      float s = w.scales[n * w.kBlocks + b], z = w.zeroPoint(n * w.kBlocks + b);
      int64_t k0 = b * w.blockSize, len = std::min(w.blockSize, w.K - k0);
      if (w.bits == 4) {
        for (int64_t i = 0; i < len; ++i)
          blockBuf[i] = (float((blob[i >> 1] >> ((i & 1) * 4)) & 15) - z) * s;
      } else if (w.bits == 8) {
        for (int64_t i = 0; i < len; ++i) blockBuf[i] = (float(blob[i]) - z) * s;
      } else {
        for (int64_t i = 0; i < len; ++i) blockBuf[i] = (float(unpackBits(blob, i, w.bits)) - z) * s;
      }
      for (int64_t m = 0; m < M; ++m) {
        const float *a = A + m * w.K + k0;
        float acc = 0.f;
        for (int64_t i = 0; i < len; ++i) acc += a[i] * blockBuf[i];
        Y[m * w.N + n] += acc;
      }
    }
  }
}

}  // namespace

NBitsMatMul::NBitsMatMul(int64_t M, int64_t N, int64_t K, int64_t blockSize, int64_t bits,
                         int64_t accuracyLevel, const NBitsPath *forcePath,
                         bool floatZeroPoints)
    : M_(M) {
  w_.N = N;
  w_.K = K;
  w_.blockSize = blockSize;
  w_.bits = bits;
  w_.kBlocks = (K + blockSize - 1) / blockSize;
  w_.blobSize = blockSize * bits / 8;
  kPadded_ = w_.kBlocks * blockSize;
  scales_.resize(size_t(N * w_.kBlocks));
  // The AVX-512 loops read 16 bytes (32 weights) of one block at a time, so
  // they need 4-bit blocks of >= 32; the VNNI loop reads 64 bytes of one
  // column, so a column must be a multiple of 128 weights.
  bool avx = avx512Available() && bits == 4 && blockSize >= 32;
  bool vnni = avx && kPadded_ % 128 == 0;
  // The int8 GEMM works on whole groups of 8 k (any 4-bit block size >= 16)
  // and folds integer zero points into the int8 weights.
  bool vnniGemm = avx512Available() && bits == 4 && !floatZeroPoints;
  path_ = NBitsPath::kPortable;
  if (avx) path_ = (accuracyLevel == 4 && vnni) ? NBitsPath::kAvx512Vnni : NBitsPath::kAvx512Fp32;
  if (avx && M >= kDequantGemmMinRows) path_ = NBitsPath::kAvx512DequantGemm;
  if (vnniGemm && accuracyLevel == 4 && M >= kVnniGemmMinRows) path_ = NBitsPath::kAvx512VnniGemm;
  if (forcePath) {
    if (*forcePath == NBitsPath::kPortable) path_ = NBitsPath::kPortable;
    else if (*forcePath == NBitsPath::kAvx512Fp32 && avx) path_ = NBitsPath::kAvx512Fp32;
    else if (*forcePath == NBitsPath::kAvx512Vnni && vnni) path_ = NBitsPath::kAvx512Vnni;
    else if (*forcePath == NBitsPath::kAvx512DequantGemm && avx) path_ = NBitsPath::kAvx512DequantGemm;
    else if (*forcePath == NBitsPath::kAvx512VnniGemm && vnniGemm) path_ = NBitsPath::kAvx512VnniGemm;
  }
  switch (path_) {
    case NBitsPath::kPortable: aFloat_.resize(size_t(std::max<int64_t>(blockSize, 1))); break;
    case NBitsPath::kAvx512Fp32:
      aFloat_.resize(size_t(M * kPadded_));
      aBlockSum_.resize(size_t(M * w_.kBlocks));
      break;
    case NBitsPath::kAvx512DequantGemm:
      aTransposed_.resize(size_t((M + kDequantGemmTileRows - 1) / kDequantGemmTileRows *
                                 kDequantGemmTileRows * kPadded_));
      break;
    case NBitsPath::kAvx512VnniGemm:
      aBiased_.resize(size_t(M * kPadded_));
      aBlockScale_.resize(size_t(M * w_.kBlocks));
      break;
    case NBitsPath::kAvx512Vnni:
      aInt8_.resize(size_t(M * kPadded_));
      aBlockScale_.resize(size_t(M * w_.kBlocks));
      aScaledSum_.resize(size_t(M * w_.kBlocks));
      aLaneScale_.resize(size_t(M * (kPadded_ / 128) * 16));
      break;
  }
}

void NBitsMatMul::setWeights(const uint8_t *packed, const float *scales, const uint8_t *packedZp,
                             const float *floatZp) {
  w_.packed = packed;
  int64_t perRow = (w_.kBlocks * w_.bits + 7) / 8;
  const size_t count = size_t(w_.N * w_.kBlocks);
  std::copy(scales, scales + count, scales_.begin());
  w_.scales = scales_.data();
  w_.zeroPointsU8 = nullptr;
  w_.zeroPointsF = nullptr;
  if (floatZp) {
    zeroPointsF_.assign(floatZp, floatZp + count);
    w_.zeroPointsF = zeroPointsF_.data();
    return;
  }
  zeroPointsU8_.resize(count);
  for (int64_t n = 0; n < w_.N; ++n)
    for (int64_t b = 0; b < w_.kBlocks; ++b)
      zeroPointsU8_[size_t(n * w_.kBlocks + b)] =
          packedZp ? uint8_t(unpackBits(packedZp + n * perRow, b, w_.bits)) : uint8_t(1 << (w_.bits - 1));
  w_.zeroPointsU8 = zeroPointsU8_.data();
}

void NBitsMatMul::prepareActivations(const float *A) {
  const int64_t K = w_.K, bs = w_.blockSize;
  if (path_ == NBitsPath::kAvx512DequantGemm) {
    // 32-row tiles, k-major (the GEMM loads the 32 rows of one k as two
    // vectors), k permuted like the dequantized columns: per 32, the 16 even
    // then the 16 odd positions.
    const int64_t T = kDequantGemmTileRows, tiles = (M_ + T - 1) / T;
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t kp = 0; kp < kPadded_; ++kp) {
        int64_t i = kp % 32, k = kp - i + (i < 16 ? 2 * i : 2 * (i - 16) + 1);
        float *dst = aTransposed_.data() + (t * kPadded_ + kp) * T;
        for (int64_t r = 0; r < T; ++r) {
          int64_t m = t * T + r;
          dst[r] = m < M_ && k < K ? A[m * K + k] : 0.f;
        }
      }
    return;
  }
  if (path_ == NBitsPath::kAvx512Fp32) {
    // Within every 32 weights the packed bytes hold elements (2i, 2i+1) in
    // their (low, high) nibbles, so store each 32 activations as 16 even then
    // 16 odd ones: the widened low nibbles then line up with the first half.
    for (int64_t m = 0; m < M_; ++m) {
      const float *a = A + m * K;
      float *d = aFloat_.data() + m * kPadded_;
      for (int64_t k0 = 0; k0 < kPadded_; k0 += 32)
        for (int64_t i = 0; i < 16; ++i) {
          int64_t ke = k0 + 2 * i, ko = ke + 1;
          d[k0 + i] = ke < K ? a[ke] : 0.f;
          d[k0 + 16 + i] = ko < K ? a[ko] : 0.f;
        }
      for (int64_t b = 0; b < w_.kBlocks; ++b) {
        float sum = 0.f;
        for (int64_t i = 0; i < bs; ++i) sum += d[b * bs + i];
        aBlockSum_[size_t(m * w_.kBlocks + b)] = sum;
      }
    }
    return;
  }
  // int8 path: symmetric per-block quantization (ORT's CompInt8 rule, see
  // nbitsQuantizeRowsGemvAvx512), then per-lane scales for the tiles.
  const int64_t chunks = kPadded_ / 128;
  nbitsQuantizeRowsGemvAvx512(A, M_, K, bs, w_.kBlocks, aInt8_.data(), aBlockScale_.data(), aScaledSum_.data());
  for (int64_t m = 0; m < M_; ++m) {
    const float *scaleRow = aBlockScale_.data() + m * w_.kBlocks;
    // Lane l of chunk c covers weights c*128 + 8l .. +7: block (c*128 + 8l) / bs.
    float *lane = aLaneScale_.data() + m * chunks * 16;
    for (int64_t c = 0; c < chunks; ++c)
      for (int64_t l = 0; l < 16; ++l) lane[c * 16 + l] = scaleRow[(c * 128 + 8 * l) / bs];
  }
}

void NBitsMatMul::run(const float *A, float *Y, const float *bias, ThreadPool *pool) {
  if (M_ == 0 || w_.N == 0) return;
  // Columns go to threads in groups of 16 (4 register tiles): each thread
  // then streams its own contiguous slice of the weight.
  const int64_t N = w_.N;
  int threads = pool ? pool->numThreads() : 1;
  int64_t grain = std::max<int64_t>(16, (N / (4 * threads) + 15) / 16 * 16);
  auto columns = [&](auto &&fn) {
    if (pool) pool->parallelFor(N, grain, fn);
    else fn(int64_t(0), N);
  };
  switch (path_) {
    case NBitsPath::kAvx512Fp32:
      prepareActivations(A);
      columns([&](int64_t n0, int64_t n1) {
        nbitsGemmAvx512Fp32(w_, aFloat_.data(), aBlockSum_.data(), M_, n0, n1, Y, bias);
      });
      break;
    case NBitsPath::kAvx512DequantGemm:
      prepareActivations(A);
      columns([&](int64_t n0, int64_t n1) {
        nbitsGemmAvx512Dequant(w_, aTransposed_.data(), M_, n0, n1, Y, bias);
      });
      break;
    case NBitsPath::kAvx512VnniGemm: {
      // Rows are quantized in parallel (each is independent), then panels of
      // kVnniGemmPanel columns go to threads.
      const int64_t kBlocks = w_.kBlocks, bs = w_.blockSize, K = w_.K;
      auto quantize = [&](int64_t m0, int64_t m1) {
        nbitsQuantizeRowsAvx512(A + m0 * K, m1 - m0, K, bs, kBlocks, aBiased_.data() + m0 * kPadded_,
                                aBlockScale_.data() + m0 * kBlocks);
      };
      if (pool) pool->parallelFor(M_, 8, quantize);
      else quantize(0, M_);
      const int64_t panels = (N + kVnniGemmPanel - 1) / kVnniGemmPanel;
      auto gemm = [&](int64_t p0, int64_t p1) {
        nbitsGemmAvx512VnniGemm(w_, aBiased_.data(), aBlockScale_.data(), M_, p0, p1, Y, bias);
      };
      if (pool) pool->parallelFor(panels, 1, gemm);
      else gemm(0, panels);
      break;
    }
    case NBitsPath::kAvx512Vnni:
      prepareActivations(A);
      columns([&](int64_t n0, int64_t n1) {
        nbitsGemmAvx512Vnni(w_, aInt8_.data(), aLaneScale_.data(), aScaledSum_.data(), M_, n0,
                            n1, Y, bias);
      });
      break;
    default:
      // One block buffer per thread would need thread ids; the portable path
      // runs on the calling thread.
      nbitsGemmPortable(w_, A, M_, 0, N, Y, bias, aFloat_.data());
      break;
  }
}

#if !(defined(__x86_64__) || defined(_M_X64))
bool avx512Available() { return false; }
void nbitsGemmAvx512Fp32(const NBitsWeightView &, const float *, const float *, int64_t, int64_t,
                         int64_t, float *, const float *) {}
void nbitsGemmAvx512Vnni(const NBitsWeightView &, const int8_t *, const float *, const float *,
                         int64_t, int64_t, int64_t, float *, const float *) {}
void nbitsGemmAvx512Dequant(const NBitsWeightView &, const float *, int64_t, int64_t, int64_t, float *,
                            const float *) {}
void nbitsQuantizeRowsAvx512(const float *, int64_t, int64_t, int64_t, int64_t, uint8_t *, float *) {}
void nbitsQuantizeRowsGemvAvx512(const float *, int64_t, int64_t, int64_t, int64_t, int8_t *, float *, float *) {}
void nbitsGemmAvx512VnniGemm(const NBitsWeightView &, const uint8_t *, const float *, int64_t, int64_t,
                             int64_t, float *, const float *) {}
#endif

}  // namespace webnn::cpu::kernels
