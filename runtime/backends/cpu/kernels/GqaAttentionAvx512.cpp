// AVX-512 tiles of groupQueryAttention's attention step (GqaAttention.h).
// Compiled for AVX-512F/BW/DQ/VL by the pragma; runs only when
// avx512Available() (QuantizedMatMul.h) said so.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/backends/cpu/kernels/GqaAttention.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {

bool gqaTiledSupported(int64_t D) { return D >= 16 && D <= 256 && D % 16 == 0; }

namespace {

constexpr int64_t kKeys = 64;  // keys per tile: 4 vectors of scores per row
constexpr int kRows = 4;       // query rows per register tile

inline __m512 vexp(__m512 x) {
  return reinterpret_cast<__m512>(avx512::simd::exp(reinterpret_cast<avx512::simd::VF>(x)));
}

}  // namespace

void gqaAttendAvx512(const GqaTile &t) {
  const int64_t D = t.D, R = t.heads * t.rows;
  const float ninf = -std::numeric_limits<float>::infinity();
  // Per thread, grown once: the transposed key tile, scores/probabilities,
  // output accumulators and the running max / sum / correction per row.
  thread_local std::vector<float> kt, p, o, runMax, runSum, corr;
  kt.resize(size_t(D * kKeys));
  p.resize(size_t(R * kKeys));
  o.assign(size_t(R * D), 0.f);
  runMax.assign(size_t(R), ninf);
  runSum.assign(size_t(R), 0.f);
  corr.resize(size_t(R));
  auto firstKey = [&](int64_t r) { return t.window >= 0 ? std::max<int64_t>(0, t.pos0 + r - t.window) : 0; };
  auto lastKey = [&](int64_t r) { return std::min(t.pos0 + r, t.T - 1); };
  auto qRow = [&](int64_t ri) { return t.q + ((ri / t.rows) * t.qHeadStride + ri % t.rows) * D; };
  const int64_t lo = firstKey(0), hi = lastKey(t.rows - 1);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512 scale = _mm512_set1_ps(t.scale);
  for (int64_t j0 = lo; j0 <= hi; j0 += kKeys) {
    const int64_t n = std::min(kKeys, hi + 1 - j0);
    // K tile transposed: kt[d][j], keys past n zero (masked below anyway).
    for (int64_t j = 0; j < kKeys; ++j) {
      const float *k = t.K + (j0 + j) * D;
      if (j < n)
        for (int64_t d = 0; d < D; ++d) kt[size_t(d * kKeys + j)] = k[d];
      else
        for (int64_t d = 0; d < D; ++d) kt[size_t(d * kKeys + j)] = 0.f;
    }
    // Scores, kRows rows x 64 keys per pass over d, then the online softmax
    // update of each row.
    for (int64_t r0 = 0; r0 < R; r0 += kRows) {
      const int rows = int(std::min<int64_t>(kRows, R - r0));
      __m512 acc[kRows][4];
      for (int i = 0; i < kRows; ++i)
        for (int v = 0; v < 4; ++v) acc[i][v] = _mm512_setzero_ps();
      const float *qs[kRows];
      for (int i = 0; i < kRows; ++i) qs[i] = qRow(r0 + std::min(i, rows - 1));
      for (int64_t d = 0; d < D; ++d) {
        const float *kd = kt.data() + d * kKeys;
        const __m512 k0 = _mm512_loadu_ps(kd), k1 = _mm512_loadu_ps(kd + 16);
        const __m512 k2 = _mm512_loadu_ps(kd + 32), k3 = _mm512_loadu_ps(kd + 48);
        for (int i = 0; i < kRows; ++i) {
          const __m512 qd = _mm512_set1_ps(qs[i][d]);
          acc[i][0] = _mm512_fmadd_ps(qd, k0, acc[i][0]);
          acc[i][1] = _mm512_fmadd_ps(qd, k1, acc[i][1]);
          acc[i][2] = _mm512_fmadd_ps(qd, k2, acc[i][2]);
          acc[i][3] = _mm512_fmadd_ps(qd, k3, acc[i][3]);
        }
      }
      for (int i = 0; i < rows; ++i) {
        const int64_t ri = r0 + i, r = ri % t.rows;
        const __m512i first = _mm512_set1_epi32(int32_t(firstKey(r) - j0));
        const __m512i last = _mm512_set1_epi32(int32_t(lastKey(r) - j0));
        __mmask16 valid[4];
        __m512 s[4];
        __m512 m = _mm512_set1_ps(ninf);
        for (int v = 0; v < 4; ++v) {
          const __m512i idx = _mm512_add_epi32(lane, _mm512_set1_epi32(16 * v));
          valid[v] = _mm512_cmpge_epi32_mask(idx, first) & _mm512_cmple_epi32_mask(idx, last);
          s[v] = _mm512_mask_mov_ps(_mm512_set1_ps(ninf), valid[v], _mm512_mul_ps(acc[i][v], scale));
          m = _mm512_max_ps(m, s[v]);
        }
        const float tileMax = _mm512_reduce_max_ps(m);
        float *pr = p.data() + ri * kKeys;
        if (tileMax == ninf) {  // no key of this tile is in the row's range
          corr[size_t(ri)] = 1.f;
          for (int v = 0; v < 4; ++v) _mm512_storeu_ps(pr + 16 * v, _mm512_setzero_ps());
          continue;
        }
        const float newMax = std::max(runMax[size_t(ri)], tileMax);
        const float c = runMax[size_t(ri)] == ninf ? 0.f : std::exp(runMax[size_t(ri)] - newMax);
        const __m512 nm = _mm512_set1_ps(newMax);
        __m512 sum = _mm512_setzero_ps();
        for (int v = 0; v < 4; ++v) {
          // exp of a masked lane is ~1e-38, not 0: zero it.
          const __m512 e = _mm512_maskz_mov_ps(valid[v], vexp(_mm512_sub_ps(s[v], nm)));
          _mm512_storeu_ps(pr + 16 * v, e);
          sum = _mm512_add_ps(sum, e);
        }
        runSum[size_t(ri)] = runSum[size_t(ri)] * c + _mm512_reduce_add_ps(sum);
        runMax[size_t(ri)] = newMax;
        corr[size_t(ri)] = c;
      }
    }
    // O = O * corr + P x V, kRows rows x 64 columns of accumulators.
    for (int64_t r0 = 0; r0 < R; r0 += kRows) {
      const int rows = int(std::min<int64_t>(kRows, R - r0));
      int64_t keys = 0;  // the tile's keys any of these rows attends
      for (int i = 0; i < rows; ++i) keys = std::max(keys, lastKey((r0 + i) % t.rows) - j0 + 1);
      keys = std::min(keys, n);
      for (int64_t c0 = 0; c0 < D; c0 += 64) {
        const int nv = int(std::min<int64_t>(4, (D - c0) / 16));
        __m512 acc[kRows][4];
        for (int i = 0; i < kRows; ++i) {
          const int64_t ri = r0 + std::min(i, rows - 1);
          const __m512 c = _mm512_set1_ps(corr[size_t(ri)]);
          for (int v = 0; v < 4; ++v)
            acc[i][v] = v < nv ? _mm512_mul_ps(_mm512_loadu_ps(o.data() + ri * D + c0 + 16 * v), c)
                               : _mm512_setzero_ps();
        }
        for (int64_t j = 0; j < keys; ++j) {
          const float *vj = t.V + (j0 + j) * D + c0;
          __m512 vv[4];
          for (int v = 0; v < 4; ++v) vv[v] = v < nv ? _mm512_loadu_ps(vj + 16 * v) : _mm512_setzero_ps();
          for (int i = 0; i < kRows; ++i) {
            const __m512 pj = _mm512_set1_ps(p[size_t((r0 + std::min(i, rows - 1)) * kKeys + j)]);
            for (int v = 0; v < 4; ++v)
              if (v < nv) acc[i][v] = _mm512_fmadd_ps(pj, vv[v], acc[i][v]);
          }
        }
        for (int i = 0; i < rows; ++i)
          for (int v = 0; v < nv; ++v) _mm512_storeu_ps(o.data() + (r0 + i) * D + c0 + 16 * v, acc[i][v]);
      }
    }
  }
  for (int64_t ri = 0; ri < R; ++ri) {
    const float s = runSum[size_t(ri)], inv = s > 0.f ? 1.f / s : 0.f;
    float *dst = t.out + (ri % t.rows) * t.outRowStride + (ri / t.rows) * D;
    const __m512 vi = _mm512_set1_ps(inv);
    for (int64_t d = 0; d < D; d += 16)
      _mm512_storeu_ps(dst + d, _mm512_mul_ps(_mm512_loadu_ps(o.data() + ri * D + d), vi));
  }
}

}  // namespace webnn::cpu::kernels

#else
#include "runtime/backends/cpu/kernels/GqaAttention.h"
namespace webnn::cpu::kernels {
bool gqaTiledSupported(int64_t) { return false; }
void gqaAttendAvx512(const GqaTile &) {}
}  // namespace webnn::cpu::kernels
#endif
