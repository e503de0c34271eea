// AVX-512 inner loops of MatMulNBits (4-bit weights). The whole file is
// compiled for AVX-512F/BW/DQ/VL + VNNI (the pragma below, equivalent to
// compiling it with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512vnni
// while the rest of the backend stays x86-64-v3); nothing here runs unless
// avx512Available() said so at run time.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/backends/cpu/kernels/Avx512Reduce.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::kernels {

bool avx512Available() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                         __builtin_cpu_supports("avx512vnni");
  return ok;
}

namespace {
// How far ahead the GEMV tiles prefetch their weight stream. One 4-column
// tile ahead (what they did first) is 1.5 KB at K = 768, too short to cover
// DRAM latency: the 100M Llama's decode GEMVs then read 16 GB/s at 1 thread
// vs 28-32 for 4-8 KB ahead (DISABLED_MatMulNBitsDecodeSweep; 8 KB is the
// best at 1 thread, 4 and 8 KB tie at 2).
constexpr int64_t kPrefetchBytes = 8192;
// Prefetch distance in columns: whole 4-column tiles, >= kPrefetchBytes of weights.
inline int64_t prefetchColumns(int64_t colBytes) {
  return 4 * std::max<int64_t>(1, (kPrefetchBytes + 4 * colBytes - 1) / (4 * colBytes));
}

// sum over blocks of scale * zeroPoint * sums[b] for column n, as a vector
// to subtract from the accumulator before its one horizontal reduction.
inline __m512 zeroPointTerm(const NBitsWeightView &w, int64_t n, const float *sums) {
  const float *s = w.scales + n * w.kBlocks;
  __m512 t = _mm512_setzero_ps();
  for (int64_t b = 0; b < w.kBlocks; b += 16) {
    int64_t left = w.kBlocks - b;
    __mmask16 m = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    __m512 z = w.zeroPointsU8
                   ? _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                         _mm_maskz_loadu_epi8(m, w.zeroPointsU8 + n * w.kBlocks + b)))
                   : _mm512_maskz_loadu_ps(m, w.zeroPointsF + n * w.kBlocks + b);
    t = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, s + b), z),
                        _mm512_maskz_loadu_ps(m, sums + b), t);
  }
  return t;
}

// Prefetches columns [n0, n1)'s weights, scales and zero points.
inline void prefetchColumnsOf(const NBitsWeightView &w, int64_t n0, int64_t n1) {
  const int64_t colBytes = w.kBlocks * w.blobSize;
  auto lines = [](const void *p, int64_t bytes) {
    const char *c = static_cast<const char *>(p);
    for (int64_t off = 0; off < bytes; off += 64) _mm_prefetch(c + off, _MM_HINT_T0);
  };
  lines(w.packed + n0 * colBytes, (n1 - n0) * colBytes);
  lines(w.scales + n0 * w.kBlocks, (n1 - n0) * w.kBlocks * 4);
  if (w.zeroPointsU8) lines(w.zeroPointsU8 + n0 * w.kBlocks, (n1 - n0) * w.kBlocks);
}

// fp32 path: NC columns x MR rows of Y. Per 16 packed bytes (32 weights) of a
// column: widen to 16 int32, split the nibbles, convert, and multiply-add the
// raw values q into a per-block accumulator (activations were stored 16 even
// + 16 odd per 32, see prepareActivations). The block's scale is applied once
// per block (acc += blockAcc * s) and its zero point once per row at the end
// (sum (q - z) s a = sum_b s (sum q a) - sum_b s z sum(a)): 2 multiplies per
// 32 weights and row instead of 4 for dequantize-then-multiply, which is what
// bounds the GEMV (measured 18 -> see docs/LLM.md).
template <int NC, int MR>
void tileFp32(const NBitsWeightView &w, const float *A, const float *blockSums, int64_t lda,
              int64_t m0, int64_t n0, float *Y, const float *bias) {
  __m512 acc[NC][MR];
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < MR; ++r) acc[c][r] = _mm512_setzero_ps();
  const __m512i low4 = _mm512_set1_epi32(15);
  const int64_t chunks = w.blockSize / 32;
  const uint8_t *col[NC];
  for (int c = 0; c < NC; ++c) col[c] = w.packed + (n0 + c) * w.kBlocks * w.blobSize;
  // A column is only K/2 bytes (2 KB for K = 4096): too short a stream for
  // the hardware prefetcher to ramp up, so the GEMV read ~12 GB/s per core
  // from DRAM vs ~30 for a plain read. Prefetching kPrefetchBytes ahead (whole
  // tiles) hides the DRAM latency; the zero points of those columns too.
  const int64_t aheadCols = prefetchColumns(w.kBlocks * w.blobSize);
  const int64_t prefetchAhead = aheadCols * w.kBlocks * w.blobSize;
  if (w.zeroPointsU8)
    for (int64_t off = 0; off < NC * w.kBlocks; off += 64)
      _mm_prefetch(reinterpret_cast<const char *>(w.zeroPointsU8 + (n0 + aheadCols) * w.kBlocks + off), _MM_HINT_T0);
  for (int64_t b = 0; b < w.kBlocks; ++b) {
    __m512 blockAcc[NC][MR];
    for (int c = 0; c < NC; ++c)
      for (int r = 0; r < MR; ++r) blockAcc[c][r] = _mm512_setzero_ps();
    for (int64_t j = 0; j < chunks; ++j) {
      const int64_t k = b * w.blockSize + j * 32;
      __m512 ae[MR], ao[MR];
      for (int r = 0; r < MR; ++r) {
        ae[r] = _mm512_loadu_ps(A + (m0 + r) * lda + k);
        ao[r] = _mm512_loadu_ps(A + (m0 + r) * lda + k + 16);
      }
      for (int c = 0; c < NC; ++c) {
        const uint8_t *p = col[c] + b * w.blobSize + j * 16;
        // The next tile's columns start NC columns further: fetch them now.
        if (((b * w.blobSize + j * 16) & 63) == 0) {
          _mm_prefetch(reinterpret_cast<const char *>(p + prefetchAhead), _MM_HINT_T0);
          // Scales: 4 bytes per 16 weight bytes, one line per 256.
          if (((b * w.blobSize + j * 16) & 255) == 0)
            _mm_prefetch(reinterpret_cast<const char *>(w.scales + (n0 + c + aheadCols) * w.kBlocks + b), _MM_HINT_T0);
        }
        __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
        __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(q, low4));
        __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(q, 4));
        for (int r = 0; r < MR; ++r) {
          blockAcc[c][r] = _mm512_fmadd_ps(lo, ae[r], blockAcc[c][r]);
          blockAcc[c][r] = _mm512_fmadd_ps(hi, ao[r], blockAcc[c][r]);
        }
      }
    }
    for (int c = 0; c < NC; ++c) {
      __m512 vs = _mm512_set1_ps(w.scales[(n0 + c) * w.kBlocks + b]);
      for (int r = 0; r < MR; ++r) acc[c][r] = _mm512_fmadd_ps(blockAcc[c][r], vs, acc[c][r]);
    }
  }
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < MR; ++r) {
      __m512 zp = zeroPointTerm(w, n0 + c, blockSums + (m0 + r) * w.kBlocks);
      Y[(m0 + r) * w.N + n0 + c] =
          _mm512_reduce_add_ps(_mm512_sub_ps(acc[c][r], zp)) + (bias ? bias[n0 + c] : 0.f);
    }
}

// int8 path: per 64 packed bytes (128 weights) of a column, the low and high
// nibbles are two u8 vectors; vpdpbusd multiplies them with the int8
// activations (stored 64 even + 64 odd per 128) and sums groups of 4 into 16
// int32 lanes. Lane l holds weights 8l..8l+7 of the chunk, all of one block
// (blocks are >= 32), so the lanes are scaled by weightScale * activationScale
// of their block and accumulated in float. The zero point enters once per
// block: sum (q - z) a = sum q a - z sum a.
// Lane l of a 128-weight chunk reads block (8l) / bs of the chunk's first
// block: computed once per call, not per tile (16 integer divisions per
// 4 columns cost as much as a K = 768 column's arithmetic).
struct VnniLanes {
  __m512i laneBlock;
  __mmask8 scaleMask;
  int64_t aheadColumns;  // prefetchColumns
  VnniLanes(int64_t bs, int64_t colBytes) {
    aheadColumns = prefetchColumns(colBytes);
    alignas(64) int32_t idx[16];
    for (int l = 0; l < 16; ++l) idx[l] = bs <= 128 ? int32_t((8 * l) / bs) : 0;
    laneBlock = _mm512_load_si512(idx);
    scaleMask = __mmask8(bs >= 128 ? 1 : (1u << (128 / bs)) - 1);
  }
};

template <int NC, int MR>
void tileVnni(const NBitsWeightView &w, const int8_t *Aq, const float *laneScale,
              const float *scaledSum, int64_t kPadded, const VnniLanes &lanes, int64_t m0, int64_t n0,
              float *Y, const float *bias) {
  __m512 acc[NC][MR];
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < MR; ++r) acc[c][r] = _mm512_setzero_ps();
  const __m512i low4 = _mm512_set1_epi8(15);
  const int64_t chunks = kPadded / 128;
  const int64_t bs = w.blockSize, kBlocks = w.kBlocks;
  const __m512i laneBlock = lanes.laneBlock;
  const __mmask8 scaleMask = lanes.scaleMask;
  const int64_t colBytes = kBlocks * w.blobSize;
  const uint8_t *const packed = w.packed + n0 * colBytes;
  const float *const scales = w.scales + n0 * kBlocks;
  // Three streams per column (weights, scales, zero points), each read
  // once: prefetch the columns `ahead` further on as this tile goes (the
  // zero points, unprefetched before, stalled every tile's epilogue).
  const int64_t ahead = lanes.aheadColumns;
  if (w.zeroPointsU8)
    for (int64_t off = 0; off < NC * kBlocks; off += 64)
      _mm_prefetch(reinterpret_cast<const char *>(w.zeroPointsU8 + (n0 + ahead) * kBlocks + off), _MM_HINT_T0);
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t b0 = ch * 128 / bs;
    __m512i ae[MR], ao[MR];
    __m512 ls[MR];
    for (int r = 0; r < MR; ++r) {
      const int8_t *a = Aq + (m0 + r) * kPadded + ch * 128;
      ae[r] = _mm512_loadu_si512(a);
      ao[r] = _mm512_loadu_si512(a + 64);
      ls[r] = _mm512_loadu_ps(laneScale + ((m0 + r) * chunks + ch) * 16);
    }
    for (int c = 0; c < NC; ++c) {
      const uint8_t *p = packed + c * colBytes + ch * 64;
      _mm_prefetch(reinterpret_cast<const char *>(p + ahead * colBytes), _MM_HINT_T0);
      // The scales: 16 bytes per chunk, one line per 4 chunks.
      const float *sc = scales + c * kBlocks + b0;
      if ((ch & 3) == 0) _mm_prefetch(reinterpret_cast<const char *>(sc + ahead * kBlocks), _MM_HINT_T0);
      __m512i q = _mm512_loadu_si512(p);
      __m512i lo = _mm512_and_si512(q, low4);
      __m512i hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), low4);
      __m512 ws = _mm512_permutexvar_ps(laneBlock, _mm512_castps128_ps512(_mm_maskz_loadu_ps(scaleMask, sc)));
      for (int r = 0; r < MR; ++r) {
        __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, ae[r]);
        dot = _mm512_dpbusd_epi32(dot, hi, ao[r]);
        acc[c][r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(ws, ls[r]), acc[c][r]);
      }
    }
  }
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < MR; ++r)
      acc[c][r] = _mm512_sub_ps(acc[c][r], zeroPointTerm(w, n0 + c, scaledSum + (m0 + r) * w.kBlocks));
  if constexpr (NC == 4) {
    for (int r = 0; r < MR; ++r) {
      __m128 y = reduce4(acc[0][r], acc[1][r], acc[2][r], acc[3][r]);
      if (bias) y = _mm_add_ps(y, _mm_loadu_ps(bias + n0));
      _mm_storeu_ps(Y + (m0 + r) * w.N + n0, y);
    }
  } else {
    for (int c = 0; c < NC; ++c)
      for (int r = 0; r < MR; ++r)
        Y[(m0 + r) * w.N + n0 + c] = _mm512_reduce_add_ps(acc[c][r]) + (bias ? bias[n0 + c] : 0.f);
  }
}

// Runs Tile<NC, MR> over columns [n0, n1) x all rows: 4 columns at a time
// (independent FMA chains hide latency in the GEMV), up to 4 rows at a time
// (each dequantized weight vector feeds 4 rows in prefill).
template <template <int, int> class Tile, int MaxRows, typename... Args>
void sweep(int64_t M, int64_t n0, int64_t n1, Args &&...args) {
  for (int64_t n = n0; n < n1;) {
    int64_t nc = std::min<int64_t>(4, n1 - n);
    for (int64_t m = 0; m < M;) {
      int64_t mr = std::min<int64_t>(MaxRows, M - m);
#define WEBNN_NBITS_TILE(NC, MR) \
  if (nc == NC && mr == MR) Tile<NC, MR>::run(m, n, args...);
      WEBNN_NBITS_TILE(4, 4) WEBNN_NBITS_TILE(4, 3) WEBNN_NBITS_TILE(4, 2) WEBNN_NBITS_TILE(4, 1)
      WEBNN_NBITS_TILE(3, 4) WEBNN_NBITS_TILE(3, 3) WEBNN_NBITS_TILE(3, 2) WEBNN_NBITS_TILE(3, 1)
      WEBNN_NBITS_TILE(2, 4) WEBNN_NBITS_TILE(2, 3) WEBNN_NBITS_TILE(2, 2) WEBNN_NBITS_TILE(2, 1)
      WEBNN_NBITS_TILE(1, 4) WEBNN_NBITS_TILE(1, 3) WEBNN_NBITS_TILE(1, 2) WEBNN_NBITS_TILE(1, 1)
#undef WEBNN_NBITS_TILE
      m += mr;
    }
    n += nc;
  }
}

template <int NC, int MR>
struct Fp32Tile {
  static void run(int64_t m, int64_t n, const NBitsWeightView &w, const float *A,
                  const float *blockSums, int64_t lda, float *Y, const float *bias) {
    // Two accumulator sets (block and total) per tile: at most 4 x 2 of them.
    if constexpr (MR <= 2) tileFp32<NC, MR>(w, A, blockSums, lda, m, n, Y, bias);
  }
};

template <int NC, int MR>
struct VnniTile {
  static void run(int64_t m, int64_t n, const NBitsWeightView &w, const int8_t *Aq,
                  const float *laneScale, const float *scaledSum, int64_t kPadded, const VnniLanes &lanes,
                  float *Y, const float *bias) {
    tileVnni<NC, MR>(w, Aq, laneScale, scaledSum, kPadded, lanes, m, n, Y, bias);
  }
};

// Prefill: one column of the weight as float, in the activations' permuted
// order (16 even then 16 odd k per 32): (q - z) * s = q * s - z * s.
void dequantColumn(const NBitsWeightView &w, int64_t n, float *dst) {
  const uint8_t *col = w.packed + n * w.kBlocks * w.blobSize;
  const __m512i low4 = _mm512_set1_epi32(15);
  const int64_t chunks = w.blockSize / 32;
  for (int64_t b = 0; b < w.kBlocks; ++b) {
    float s = w.scales[n * w.kBlocks + b];
    __m512 vs = _mm512_set1_ps(s), vzs = _mm512_set1_ps(w.zeroPoint(n * w.kBlocks + b) * s);
    for (int64_t j = 0; j < chunks; ++j) {
      __m512i q = _mm512_cvtepu8_epi32(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(col + b * w.blobSize + j * 16)));
      float *d = dst + b * w.blockSize + j * 32;
      _mm512_storeu_ps(d, _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_and_si512(q, low4)), vs, vzs));
      _mm512_storeu_ps(d + 16, _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(q, 4)), vs, vzs));
    }
  }
}

// 32 rows x NR columns over all k: per k two vectors of A (32 rows) and NR
// broadcast weights, 2 * NR independent FMA chains (16 of 32 registers at
// NR = 8). `out[c][r]` receives row r of column c.
template <int NR>
void dequantGemmTile(const float *aTile, const float *panel, int64_t kPadded, float (*out)[32]) {
  __m512 acc[NR][2];
  for (int c = 0; c < NR; ++c) acc[c][0] = acc[c][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kPadded; ++k) {
    __m512 a0 = _mm512_loadu_ps(aTile + k * 32), a1 = _mm512_loadu_ps(aTile + k * 32 + 16);
    for (int c = 0; c < NR; ++c) {
      __m512 b = _mm512_set1_ps(panel[c * kPadded + k]);
      acc[c][0] = _mm512_fmadd_ps(a0, b, acc[c][0]);
      acc[c][1] = _mm512_fmadd_ps(a1, b, acc[c][1]);
    }
  }
  for (int c = 0; c < NR; ++c) {
    _mm512_storeu_ps(out[c], acc[c][0]);
    _mm512_storeu_ps(out[c] + 16, acc[c][1]);
  }
}

constexpr int kDequantNR = 8;

}  // namespace

void nbitsGemmAvx512Dequant(const NBitsWeightView &w, const float *aTiles, int64_t M, int64_t n0,
                            int64_t n1, float *Y, const float *bias) {
  static_assert(kDequantGemmTileRows == 32, "dequantGemmTile computes 32 rows");
  const int64_t kPadded = w.kBlocks * w.blockSize;
  const int64_t tiles = (M + 31) / 32;
  // Per thread, grown once: NR dequantized columns (24-64 KB for K 768-2048).
  thread_local std::vector<float> panel;
  if (panel.size() < size_t(kDequantNR * kPadded)) panel.resize(size_t(kDequantNR * kPadded));
  alignas(64) float out[kDequantNR][32];
  for (int64_t n = n0; n < n1; n += kDequantNR) {
    const int64_t nr = std::min<int64_t>(kDequantNR, n1 - n);
    for (int64_t c = 0; c < nr; ++c) dequantColumn(w, n + c, panel.data() + c * kPadded);
    for (int64_t t = 0; t < tiles; ++t) {
      const float *aTile = aTiles + t * kPadded * 32;
      switch (nr) {
        case 8: dequantGemmTile<8>(aTile, panel.data(), kPadded, out); break;
        case 7: dequantGemmTile<7>(aTile, panel.data(), kPadded, out); break;
        case 6: dequantGemmTile<6>(aTile, panel.data(), kPadded, out); break;
        case 5: dequantGemmTile<5>(aTile, panel.data(), kPadded, out); break;
        case 4: dequantGemmTile<4>(aTile, panel.data(), kPadded, out); break;
        case 3: dequantGemmTile<3>(aTile, panel.data(), kPadded, out); break;
        case 2: dequantGemmTile<2>(aTile, panel.data(), kPadded, out); break;
        default: dequantGemmTile<1>(aTile, panel.data(), kPadded, out); break;
      }
      const int64_t rows = std::min<int64_t>(32, M - t * 32);
      for (int64_t r = 0; r < rows; ++r) {
        float *y = Y + (t * 32 + r) * w.N + n;
        for (int64_t c = 0; c < nr; ++c) y[c] = out[c][r] + (bias ? bias[n + c] : 0.f);
      }
    }
  }
}

namespace {

// ------------------------------------------------------------ int8 GEMM
// Y = sum over blocks of ws[n,b] * xs[m,b] * sum_k q_a[m,k] * (q_w[n,k] - z[n,b]).
// vpdpbusd multiplies unsigned bytes by signed ones, 4 k per int32 lane. The
// weights w' = q - z (4-bit minus an integer zero point: [-15, 15]) are the
// signed side, the activations x = q_a + 128 (in [1, 255]) the unsigned
// side; sum_k x w' = sum_k q_a w' + 128 sum_k w', so each block's int32
// accumulators start at comp = -128 * sum_k w' (per column and block, from
// the packing) and hold the exact integer dot product at the block's end.
// Lanes are 16 columns (the weights are transposed so one vector holds 4 k
// of 16 columns), so a block's scales apply once per accumulator: cvt, mul,
// fma every blockSize/4 vpdpbusd.

constexpr int kPanelVecs = kVnniGemmPanel / 16;

// Transposes a 16 x 16 matrix of dwords held in r[0..15] (r[i] lane j ->
// r[j] lane i): 32-bit and 64-bit unpacks build 4 x 4 transposes inside each
// 128-bit lane, two rounds of 128-bit shuffles move the lanes.
inline void transpose16x16(__m512i r[16]) {
  __m512i t[16];
  for (int p = 0; p < 8; ++p) {
    t[2 * p] = _mm512_unpacklo_epi32(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_epi32(r[2 * p], r[2 * p + 1]);
  }
  __m512i u[16];
  for (int q = 0; q < 4; ++q) {
    u[4 * q + 0] = _mm512_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
    u[4 * q + 1] = _mm512_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
    u[4 * q + 2] = _mm512_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
    u[4 * q + 3] = _mm512_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
  }
  // u[4q + i] lane L holds dword 4L + i of rows 4q..4q+3.
  for (int i = 0; i < 4; ++i) {
    __m512i v0 = _mm512_shuffle_i32x4(u[i], u[4 + i], 0x44);
    __m512i v1 = _mm512_shuffle_i32x4(u[i], u[4 + i], 0xEE);
    __m512i v2 = _mm512_shuffle_i32x4(u[8 + i], u[12 + i], 0x44);
    __m512i v3 = _mm512_shuffle_i32x4(u[8 + i], u[12 + i], 0xEE);
    r[i] = _mm512_shuffle_i32x4(v0, v2, 0x88);
    r[4 + i] = _mm512_shuffle_i32x4(v0, v2, 0xDD);
    r[8 + i] = _mm512_shuffle_i32x4(v1, v3, 0x88);
    r[12 + i] = _mm512_shuffle_i32x4(v1, v3, 0xDD);
  }
}

// One panel of kVnniGemmPanel columns (n0..), packed for the tile loop. Per
// group g of 8 k, 4 vectors of 64 bytes: for each 16 columns, the low nibbles
// of column byte 4g..4g+3 (k 8g + 0, 2, 4, 6) and the high ones (k 8g + 1, 3,
// 5, 7), minus the zero point. A column's dword g is those 8 k, so a 16 x 16
// dword transpose of 16 columns' 64-byte rows yields 16 groups at once.
// ws / comp: [kBlocks][kVnniGemmPanel] scales and -128 * sum w'. Columns past
// N pack as zeros.
struct alignas(64) Line {
  uint8_t b[64];
};
struct VnniPanel {
  std::vector<Line> bytes, scales, comp, zeroBytes;
  void reserve(int64_t kPadded, int64_t kBlocks) {
    bytes.resize(size_t(kPadded / 8 * 4));
    scales.resize(size_t(kBlocks * kPanelVecs));
    comp.resize(size_t(kBlocks * kPanelVecs));
    zeroBytes.resize(size_t(kBlocks));
  }
};

void packVnniPanel(const NBitsWeightView &w, int64_t n0, VnniPanel &out) {
  const int64_t kPadded = w.kBlocks * w.blockSize, groups = kPadded / 8;
  const int64_t colBytes = w.kBlocks * w.blobSize, groupsPerBlock = w.blockSize / 8;
  const __m512i low4 = _mm512_set1_epi8(15), ones = _mm512_set1_epi8(1);
  int8_t *dst = reinterpret_cast<int8_t *>(out.bytes.data());
  float *ws = reinterpret_cast<float *>(out.scales.data());
  int32_t *comp = reinterpret_cast<int32_t *>(out.comp.data());
  for (int v = 0; v < kPanelVecs; ++v) {
    const int64_t base = n0 + 16 * v, cols = std::clamp<int64_t>(w.N - base, 0, 16);
    // Per block: the 16 columns' scales and zero points (each zero point
    // repeated in the 4 bytes of its column's lane).
    uint32_t *zb = reinterpret_cast<uint32_t *>(out.zeroBytes.data());
    for (int64_t b = 0; b < w.kBlocks; ++b)
      for (int64_t c = 0; c < 16; ++c) {
        const int64_t i = (base + c) * w.kBlocks + b;
        ws[(b * kPanelVecs + v) * 16 + c] = c < cols ? w.scales[i] : 0.f;
        zb[b * 16 + c] = c < cols ? uint32_t(w.zeroPointsU8[i]) * 0x01010101u : 0u;
      }
    __m512i sum = _mm512_setzero_si512();
    for (int64_t g0 = 0; g0 < groups; g0 += 16) {
      const int64_t n = std::min<int64_t>(16, groups - g0);
      const __mmask16 m = __mmask16((1u << n) - 1);
      __m512i r[16];
      for (int64_t c = 0; c < 16; ++c)
        r[c] = c < cols ? _mm512_maskz_loadu_epi32(m, w.packed + (base + c) * colBytes + g0 * 4)
                        : _mm512_setzero_si512();
      transpose16x16(r);
      for (int64_t d = 0; d < n; ++d) {
        const int64_t g = g0 + d, b = g / groupsPerBlock;
        const __m512i z = _mm512_load_si512(&out.zeroBytes[size_t(b)]);
        __m512i lo = _mm512_sub_epi8(_mm512_and_si512(r[d], low4), z);
        __m512i hi = _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(r[d], 4), low4), z);
        int8_t *p = dst + (g * kPanelVecs + v) * 128;
        _mm512_store_si512(p, lo);
        _mm512_store_si512(p + 64, hi);
        sum = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(sum, ones, lo), ones, hi);
        if ((g + 1) % groupsPerBlock == 0) {
          _mm512_store_si512(comp + (b * kPanelVecs + v) * 16, _mm512_slli_epi32(_mm512_sub_epi32(_mm512_setzero_si512(), sum), 7));
          sum = _mm512_setzero_si512();
        }
      }
    }
  }
}

inline int32_t load4(const uint8_t *p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// MR rows x kVnniGemmPanel columns over all k: MR * 2 int32 accumulators for
// the current block (registers) and the float sums of the scaled blocks
// (`out`, in L1: keeping them in registers too spills at MR = 6). G = groups
// of 8 k per block when known at compile time (the block loop unrolled, so
// the accumulators stay put instead of being shuffled between registers at
// every iteration), 0 = `groupsPerBlock` at run time.
template <int MR, int G>
void vnniGemmTile(const VnniPanel &panel, const uint8_t *x, int64_t ldx, const float *xs,
                  int64_t kBlocks, int64_t groupsPerBlock, float *Y, int64_t ldy, int64_t cols,
                  const float *bias) {
  alignas(64) float out[MR][32];
  for (int r = 0; r < MR; ++r) {
    _mm512_store_ps(out[r], _mm512_setzero_ps());
    _mm512_store_ps(out[r] + 16, _mm512_setzero_ps());
  }
  const Line *p = panel.bytes.data();
  const float *ws = reinterpret_cast<const float *>(panel.scales.data());
  const uint8_t *xk = x;
  const int64_t groups = G > 0 ? G : groupsPerBlock;
  for (int64_t b = 0; b < kBlocks; ++b) {
    __m512i acc[MR][2];
    const __m512i c0 = _mm512_load_si512(&panel.comp[size_t(b * 2)]);
    const __m512i c1 = _mm512_load_si512(&panel.comp[size_t(b * 2 + 1)]);
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = c0;
      acc[r][1] = c1;
    }
#pragma GCC unroll 8
    for (int64_t s = 0; s < groups; ++s) {
      const Line *ps = p + 4 * s;
      const uint8_t *xs8 = xk + 8 * s;
      const __m512i w0l = _mm512_load_si512(ps), w0h = _mm512_load_si512(ps + 1);
      const __m512i w1l = _mm512_load_si512(ps + 2), w1h = _mm512_load_si512(ps + 3);
      for (int r = 0; r < MR; ++r) {
        const __m512i al = _mm512_set1_epi32(load4(xs8 + r * ldx));
        const __m512i ah = _mm512_set1_epi32(load4(xs8 + r * ldx + 4));
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], al, w0l);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], al, w1l);
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], ah, w0h);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], ah, w1h);
      }
    }
    p += 4 * groups;
    xk += 8 * groups;
    const __m512 s0 = _mm512_load_ps(ws + b * 32), s1 = _mm512_load_ps(ws + b * 32 + 16);
    for (int r = 0; r < MR; ++r) {
      const __m512 xsr = _mm512_set1_ps(xs[r * kBlocks + b]);
      _mm512_store_ps(out[r], _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[r][0]), _mm512_mul_ps(s0, xsr),
                                              _mm512_load_ps(out[r])));
      _mm512_store_ps(out[r] + 16, _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[r][1]), _mm512_mul_ps(s1, xsr),
                                                   _mm512_load_ps(out[r] + 16)));
    }
  }
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : 0;
  const __m512 b0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
  const __m512 b1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
  for (int r = 0; r < MR; ++r) {
    _mm512_mask_storeu_ps(Y + r * ldy, m0, _mm512_add_ps(_mm512_load_ps(out[r]), b0));
    _mm512_mask_storeu_ps(Y + r * ldy + 16, m1, _mm512_add_ps(_mm512_load_ps(out[r] + 16), b1));
  }
}

// All rows of one packed panel: MR-row tiles, then one tile of the rest.
template <int MR, int G>
void vnniGemmPanelRows(const VnniPanel &panel, const uint8_t *x, int64_t kPadded, const float *xScales,
                       int64_t M, int64_t kBlocks, int64_t groupsPerBlock, float *Y, int64_t ldy,
                       int64_t cols, const float *bias) {
  int64_t m = 0;
  auto at = [&](auto tile) {
    tile(x + m * kPadded, xScales + m * kBlocks, Y + m * ldy);
  };
  for (; m + MR <= M; m += MR)
    at([&](const uint8_t *xm, const float *sm, float *ym) {
      vnniGemmTile<MR, G>(panel, xm, kPadded, sm, kBlocks, groupsPerBlock, ym, ldy, cols, bias);
    });
  const int64_t rest = M - m;
  if (rest == 0) return;
  at([&](const uint8_t *xm, const float *sm, float *ym) {
    switch (rest) {
#define WEBNN_VNNI_REST(R) \
  case R: if constexpr (R < MR) vnniGemmTile<R, G>(panel, xm, kPadded, sm, kBlocks, groupsPerBlock, ym, ldy, cols, bias); break;
      WEBNN_VNNI_REST(1) WEBNN_VNNI_REST(2) WEBNN_VNNI_REST(3) WEBNN_VNNI_REST(4) WEBNN_VNNI_REST(5)
      WEBNN_VNNI_REST(6) WEBNN_VNNI_REST(7)
#undef WEBNN_VNNI_REST
      default: break;
    }
  });
}

constexpr int kVnniGemmRows = 6;

// Lanes of the 16 floats at k that lie below K.
inline __mmask16 tailMask(int64_t K, int64_t k) {
  int64_t left = K - k;
  return left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
}

// max |a[k]| over one quantization block [k0, k0 + blockSize) clipped to K.
inline float blockAbsMax(const float *a, int64_t k0, int64_t blockSize, int64_t K) {
  __m512 vmax = _mm512_setzero_ps();
  for (int64_t k = k0; k < k0 + blockSize && k < K; k += 16)
    vmax = _mm512_max_ps(vmax, _mm512_abs_ps(_mm512_maskz_loadu_ps(tailMask(K, k), a + k)));
  return _mm512_reduce_max_ps(vmax);
}

}  // namespace

void nbitsQuantizeRowsAvx512(const float *A, int64_t M, int64_t K, int64_t blockSize,
                             int64_t kBlocks, uint8_t *x, float *scales) {
  const int64_t kPadded = kBlocks * blockSize;
  // Per 16 k: 0 2 4 6 1 3 5 7, 8 10 12 14 9 11 13 15 (4 even, 4 odd per 8).
  const __m128i order = _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15);
  const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127), bias = _mm512_set1_epi32(128);
  auto mask = [&](int64_t k) { return tailMask(K, k); };
  for (int64_t m = 0; m < M; ++m) {
    const float *a = A + m * K;
    uint8_t *xr = x + m * kPadded;
    for (int64_t b = 0; b < kBlocks; ++b) {
      const int64_t k0 = b * blockSize;
      const float amax = blockAbsMax(a, k0, blockSize, K);
      scales[m * kBlocks + b] = amax / 127.f;
      const __m512 inv = _mm512_set1_ps(amax > 0.f ? 127.f / amax : 0.f);
      for (int64_t k = k0; k < k0 + blockSize; k += 16) {
        __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(mask(k), a + k), inv));
        q = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(q, lo), hi), bias);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(xr + k),
                         _mm_shuffle_epi8(_mm512_cvtepi32_epi8(q), order));
      }
    }
  }
}

void nbitsQuantizeRowsGemvAvx512(const float *A, int64_t M, int64_t K, int64_t blockSize,
                                 int64_t kBlocks, int8_t *q, float *scales, float *scaledSums) {
  const int64_t kPadded = kBlocks * blockSize;
  // 32 consecutive floats -> their 16 even and 16 odd elements.
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
  auto mask = [&](int64_t k) { return tailMask(K, k); };
  for (int64_t m = 0; m < M; ++m) {
    const float *a = A + m * K;
    int8_t *qr = q + m * kPadded;
    for (int64_t b = 0; b < kBlocks; ++b) {
      const int64_t k0 = b * blockSize;
      const float amax = blockAbsMax(a, k0, blockSize, K), scale = amax / 127.f;
      const __m512 inv = _mm512_set1_ps(amax > 0.f ? 127.f / amax : 0.f);
      __m512i sum = _mm512_setzero_si512();
      for (int64_t k = k0; k < k0 + blockSize; k += 32) {
        const __m512 a0 = _mm512_maskz_loadu_ps(mask(k), a + k), a1 = _mm512_maskz_loadu_ps(mask(k + 16), a + k + 16);
        // Blocks are >= 32, so these 32 k sit in one 128-chunk: element k at
        // byte (k % 128) / 2 of its even or odd half.
        int8_t *dst = qr + (k / 128) * 128 + (k % 128) / 2;
        for (int half = 0; half < 2; ++half) {
          __m512 v = _mm512_permutex2var_ps(a0, half ? odd : even, a1);
          __m512i qi = _mm512_cvtps_epi32(_mm512_mul_ps(v, inv));
          qi = _mm512_min_epi32(_mm512_max_epi32(qi, lo), hi);
          sum = _mm512_add_epi32(sum, qi);
          _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + half * 64), _mm512_cvtepi32_epi8(qi));
        }
      }
      scales[m * kBlocks + b] = scale;
      scaledSums[m * kBlocks + b] = scale * float(_mm512_reduce_add_epi32(sum));
    }
  }
}

void nbitsGemmAvx512VnniGemm(const NBitsWeightView &w, const uint8_t *x, const float *xScales,
                             int64_t M, int64_t p0, int64_t p1, float *Y, const float *bias) {
  const int64_t kPadded = w.kBlocks * w.blockSize, groupsPerBlock = w.blockSize / 8;
  // Per thread, grown once: one packed panel (kPadded * 32 bytes, 24-64 KB
  // for K 768-2048, so it stays in L1/L2 while every row tile reads it).
  thread_local VnniPanel panel;
  panel.reserve(kPadded, w.kBlocks);
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t n0 = p * kVnniGemmPanel, cols = std::min<int64_t>(kVnniGemmPanel, w.N - n0);
    packVnniPanel(w, n0, panel);
    const float *pb = bias ? bias + n0 : nullptr;
    switch (groupsPerBlock) {
      case 4:
        vnniGemmPanelRows<kVnniGemmRows, 4>(panel, x, kPadded, xScales, M, w.kBlocks, 4, Y + n0, w.N, cols, pb);
        break;
      case 8:
        vnniGemmPanelRows<kVnniGemmRows, 8>(panel, x, kPadded, xScales, M, w.kBlocks, 8, Y + n0, w.N, cols, pb);
        break;
      default:
        vnniGemmPanelRows<kVnniGemmRows, 0>(panel, x, kPadded, xScales, M, w.kBlocks, groupsPerBlock, Y + n0,
                                            w.N, cols, pb);
        break;
    }
  }
}

void nbitsGemmAvx512Fp32(const NBitsWeightView &w, const float *aPermuted, const float *aBlockSums,
                         int64_t M, int64_t n0, int64_t n1, float *Y, const float *bias) {
  sweep<Fp32Tile, 2>(M, n0, n1, w, aPermuted, aBlockSums, w.kBlocks * w.blockSize, Y, bias);
}

void nbitsGemmAvx512Vnni(const NBitsWeightView &w, const int8_t *aQuant, const float *aLaneScale,
                         const float *aScaledSum, int64_t M, int64_t n0, int64_t n1, float *Y,
                         const float *bias) {
  const VnniLanes lanes(w.blockSize, w.kBlocks * w.blobSize);
  // The tiles prefetch `aheadColumns` ahead; the first ones of this range
  // (a chunk another thread may have just finished next to) come cold.
  prefetchColumnsOf(w, n0, std::min(n1, n0 + lanes.aheadColumns));
  sweep<VnniTile, 4>(M, n0, n1, w, aQuant, aLaneScale, aScaledSum, w.kBlocks * w.blockSize, lanes, Y, bias);
}

}  // namespace webnn::cpu::kernels

#endif
