// The AVX-512 tiles of fusedAttention for encoders (EncoderAttention.h),
// compiled for AVX-512F/BW/DQ/VL by the pragma; run only when
// avx512Available() said so.
#include "runtime/backends/cpu/kernels/EncoderAttention.h"

#include <algorithm>

#include "runtime/backends/cpu/DebugOptions.h"

namespace webnn::cpu::kernels {

bool encoderAttentionEnabled() { return debugOptions().encoderAttention.load(std::memory_order_relaxed); }
void setEncoderAttentionEnabled(bool enabled) { debugOptions().encoderAttention.store(enabled); }

bool encoderAttentionSupported(int64_t T, int64_t Dh) {
  return Dh >= 16 && Dh <= 128 && Dh % 16 == 0 && T >= 1 && T <= 8192;
}

namespace {
constexpr int64_t kBlockRows = 24;  // query rows whose score rows are kept at once
constexpr int kScoreRows = 8;       // score register tile: 8 rows x 48 keys
constexpr int64_t kScoreKeys = 48;

int64_t paddedKeys(int64_t T) { return (T + 15) / 16 * 16; }
}  // namespace

// kT [Dh][Tp], the block's scores [kBlockRows][Tp], per row a vector of
// running maxima [kBlockRows][16] and 1 / sum [kBlockRows].
int64_t encoderAttentionScratchFloats(int64_t T, int64_t Dh) {
  return (Dh + kBlockRows) * paddedKeys(T) + kBlockRows * 17;
}

}  // namespace webnn::cpu::kernels

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

#include <limits>

#include "runtime/backends/cpu/kernels/Avx512Exp.h"
#include "runtime/backends/cpu/kernels/Transpose32.h"

namespace webnn::cpu::kernels {
namespace {

// The first n lanes (all 16 from n = 16 up, none at n <= 0).
__mmask16 laneMask(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << std::max<int64_t>(n, 0)) - 1);
}

// c[r][v] = sum_{k < K} a[r * lda + k] b[k * ldb + 16 v]: R rows x 16 * NV
// columns of a product in registers, A's elements broadcast, B's rows
// loaded. Both products run on it: Q (Dh wide) x K^T, P (T wide) x V.
template <int R, int NV>
inline void accumulate(const float *a, int64_t lda, const float *b, int64_t ldb, int64_t K, __m512 (&c)[R][NV]) {
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; ++k) {
    __m512 bk[NV];
    for (int v = 0; v < NV; ++v) bk[v] = _mm512_loadu_ps(b + k * ldb + 16 * v);
    for (int r = 0; r < R; ++r) {
      const __m512 ak = _mm512_set1_ps(a[r * lda + k]);
      for (int v = 0; v < NV; ++v) c[r][v] = _mm512_fmadd_ps(ak, bk[v], c[r][v]);
    }
  }
}

// s[i][j] = scale * sum_d q[i][d] kT[d][j] for R rows and 16 * NV keys;
// each row's vector of maxima (rowMax, 16 floats a row) takes the scores of
// the first `keys` lanes (past T, the zero-padded keys are no scores).
template <int R, int NV>
void scoreTile(const float *q, int64_t qStride, const float *kT, int64_t ldk, int64_t Dh, float scale, float *s,
               int64_t lds, float *rowMax, int64_t keys) {
  __m512 c[R][NV];
  accumulate<R, NV>(q, qStride, kT, ldk, Dh, c);
  const __m512 sc = _mm512_set1_ps(scale);
  for (int r = 0; r < R; ++r) {
    __m512 m = _mm512_loadu_ps(rowMax + 16 * r);
    for (int v = 0; v < NV; ++v) {
      const __m512 x = _mm512_mul_ps(c[r][v], sc);
      _mm512_storeu_ps(s + r * lds + 16 * v, x);
      m = _mm512_mask_max_ps(m, laneMask(keys - 16 * v), x, m);
    }
    _mm512_storeu_ps(rowMax + 16 * r, m);
  }
}

// p[j] = exp(s[j] - max) for j < T, in place; returns 1 / sum. Values below
// FLT_MIN are written as 0 (vexpFlushed). A NaN score stays NaN.
float expRow(float *s, int64_t T, const float *rowMax) {
  const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(_mm512_loadu_ps(rowMax)));
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < T; j += 16) {
    const __mmask16 valid = laneMask(T - j);
    const __m512 x = _mm512_sub_ps(_mm512_maskz_loadu_ps(valid, s + j), m);
    // exp() clamps a NaN into range: put it back, so it reaches the output.
    const __mmask16 nan = valid & _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    const __m512 p = _mm512_mask_mov_ps(vexpFlushed(valid, x), nan, x);
    _mm512_mask_storeu_ps(s + j, valid, p);
    sum = _mm512_add_ps(sum, p);
  }
  return 1.f / _mm512_reduce_add_ps(sum);
}

// y[i][:] = inv[i] * sum_{j < T} p[i][j] v[j][:] for R rows and 16 * NV
// columns.
template <int R, int NV>
void valueTile(const float *p, int64_t ldp, const float *v, int64_t vStride, int64_t T, const float *inv, float *y,
               int64_t yStride) {
  __m512 c[R][NV];
  accumulate<R, NV>(p, ldp, v, vStride, T, c);
  for (int r = 0; r < R; ++r) {
    const __m512 scale = _mm512_set1_ps(inv[r]);
    for (int u = 0; u < NV; ++u) _mm512_storeu_ps(y + r * yStride + 16 * u, _mm512_mul_ps(c[r][u], scale));
  }
}

using ScoreFn = void (*)(const float *, int64_t, const float *, int64_t, int64_t, float, float *, int64_t, float *,
                         int64_t);
using ValueFn = void (*)(const float *, int64_t, const float *, int64_t, int64_t, const float *, float *, int64_t);

template <int R>
constexpr ScoreFn kScoreRow[4] = {nullptr, &scoreTile<R, 1>, &scoreTile<R, 2>, &scoreTile<R, 3>};
constexpr const ScoreFn *kScoreTiles[kScoreRows + 1] = {nullptr,        kScoreRow<1>, kScoreRow<2>,
                                                        kScoreRow<3>,   kScoreRow<4>, kScoreRow<5>,
                                                        kScoreRow<6>,   kScoreRow<7>, kScoreRow<8>};

template <int R>
constexpr ValueFn kValueRow[9] = {nullptr,          &valueTile<R, 1>, &valueTile<R, 2>,
                                  &valueTile<R, 3>, &valueTile<R, 4>, &valueTile<R, 5>,
                                  &valueTile<R, 6>, &valueTile<R, 7>, &valueTile<R, 8>};
constexpr const ValueFn *kValueTiles[9] = {nullptr,      kValueRow<1>, kValueRow<2>, kValueRow<3>, kValueRow<4>,
                                           kValueRow<5>, kValueRow<6>, kValueRow<7>, kValueRow<8>};

}  // namespace

void encoderAttentionAvx512(const EncoderAttentionHead &h, int64_t s0, int64_t s1, float *scratch) {
  const int64_t T = h.T, Tp = paddedKeys(T), Dh = h.Dh;
  float *kT = scratch, *scores = kT + Dh * Tp, *rowMax = scores + kBlockRows * Tp, *inv = rowMax + kBlockRows * 16;
  transpose32Avx512(reinterpret_cast<const uint32_t *>(h.k), h.kvStride, reinterpret_cast<uint32_t *>(kT), Tp, T,
                    Dh);
  for (int64_t d = 0; d < Dh && Tp > T; ++d) std::fill(kT + d * Tp + T, kT + (d + 1) * Tp, 0.f);
  const int nvOut = int(Dh / 16);
  // P x V tiles of up to 24 accumulators: 6 rows at Dh 64, 3 at 128.
  const int valueRows = std::min(8, std::max(1, 24 / nvOut));
  for (int64_t b0 = s0; b0 < s1; b0 += kBlockRows) {
    const int64_t rows = std::min(kBlockRows, s1 - b0);
    std::fill(rowMax, rowMax + rows * 16, -std::numeric_limits<float>::infinity());
    // Keys outer, so a 48-key slice of kT (12 KB at Dh 64) stays in L1 for
    // the block's row tiles.
    for (int64_t j0 = 0; j0 < Tp; j0 += kScoreKeys) {
      const int nv = int(std::min<int64_t>(kScoreKeys, Tp - j0) / 16);
      for (int64_t r0 = 0; r0 < rows; r0 += kScoreRows) {
        const int r = int(std::min<int64_t>(kScoreRows, rows - r0));
        kScoreTiles[r][nv](h.q + (b0 + r0) * h.qStride, h.qStride, kT + j0, Tp, Dh, h.scale, scores + r0 * Tp + j0,
                           Tp, rowMax + r0 * 16, T - j0);
      }
    }
    for (int64_t i = 0; i < rows; ++i) inv[i] = expRow(scores + i * Tp, T, rowMax + i * 16);
    for (int64_t r0 = 0; r0 < rows; r0 += valueRows) {
      const int r = int(std::min<int64_t>(valueRows, rows - r0));
      kValueTiles[r][nvOut](scores + r0 * Tp, Tp, h.v, h.kvStride, T, inv + r0, h.y + (b0 + r0) * h.yStride,
                            h.yStride);
    }
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void encoderAttentionAvx512(const EncoderAttentionHead &, int64_t, int64_t, float *) {}
}  // namespace webnn::cpu::kernels

#endif
