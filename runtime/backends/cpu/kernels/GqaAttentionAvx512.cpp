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

#include "runtime/backends/cpu/kernels/Avx512Exp.h"
#include "runtime/backends/cpu/kernels/Avx512Reduce.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/GqaAttention.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {

bool gqaTiledSupported(int64_t D) { return D >= 16 && D <= 256 && D % 16 == 0; }

namespace {

constexpr int64_t kKeys = 64;  // keys per tile: 4 vectors of scores per row
constexpr int kRows = 4;       // query rows per register tile

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
        const float c = runMax[size_t(ri)] == ninf ? 0.f : flushBelowFltMin(std::exp(runMax[size_t(ri)] - newMax));
        const __m512 nm = _mm512_set1_ps(newMax);
        __m512 sum = _mm512_setzero_ps();
        for (int v = 0; v < 4; ++v) {
          const __m512 e = vexpFlushed(valid[v], _mm512_sub_ps(s[v], nm));
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

namespace {

template <int NV>
void attendRows(const GqaTile &t) {
  const int64_t D = t.D;
  const float ninf = -std::numeric_limits<float>::infinity();
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512 scale = _mm512_set1_ps(t.scale);
  alignas(64) float p[16];
  for (int64_t ri = 0; ri < t.heads * t.rows; ++ri) {
    const int64_t r = ri % t.rows, pos = t.pos0 + r;
    const float *q = t.q + ((ri / t.rows) * t.qHeadStride + r) * D;
    const int64_t first = t.window >= 0 ? std::max<int64_t>(0, pos - t.window) : 0;
    const int64_t last = std::min(pos, t.T - 1);
    __m512 qv[NV], o[NV];
    for (int v = 0; v < NV; ++v) {
      qv[v] = _mm512_loadu_ps(q + 16 * v);
      o[v] = _mm512_setzero_ps();
    }
    float runMax = ninf, runSum = 0.f;
    auto dot = [&](int64_t j) {
      const float *k = t.K + j * D;
      __m512 acc = _mm512_mul_ps(qv[0], _mm512_loadu_ps(k));
      for (int v = 1; v < NV; ++v) acc = _mm512_fmadd_ps(qv[v], _mm512_loadu_ps(k + 16 * v), acc);
      return acc;
    };
    for (int64_t j0 = first; j0 <= last; j0 += 16) {
      const int64_t n = std::min<int64_t>(16, last + 1 - j0);
      // 16 scores (keys past n repeat the last one and are masked).
      __m128 four[4];
      for (int g = 0; g < 4; ++g) {
        auto key = [&](int i) { return j0 + std::min<int64_t>(4 * g + i, n - 1); };
        four[g] = reduce4(dot(key(0)), dot(key(1)), dot(key(2)), dot(key(3)));
      }
      __m512 s = _mm512_insertf32x4(_mm512_castps128_ps512(four[0]), four[1], 1);
      s = _mm512_insertf32x4(s, four[2], 2);
      s = _mm512_insertf32x4(s, four[3], 3);
      const __mmask16 valid = _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(int32_t(n)));
      s = _mm512_mask_mov_ps(_mm512_set1_ps(ninf), valid, _mm512_mul_ps(s, scale));
      const float newMax = std::max(runMax, _mm512_reduce_max_ps(s));
      const float c = runMax == ninf ? 0.f : flushBelowFltMin(std::exp(runMax - newMax));
      const __m512 e = vexpFlushed(valid, _mm512_sub_ps(s, _mm512_set1_ps(newMax)));
      runSum = runSum * c + _mm512_reduce_add_ps(e);
      runMax = newMax;
      _mm512_store_ps(p, e);
      const __m512 vc = _mm512_set1_ps(c);
      for (int v = 0; v < NV; ++v) o[v] = _mm512_mul_ps(o[v], vc);
      for (int64_t j = 0; j < n; ++j) {
        const __m512 pj = _mm512_set1_ps(p[j]);
        const float *vr = t.V + (j0 + j) * D;
        for (int v = 0; v < NV; ++v) o[v] = _mm512_fmadd_ps(pj, _mm512_loadu_ps(vr + 16 * v), o[v]);
      }
    }
    const __m512 inv = _mm512_set1_ps(runSum > 0.f ? 1.f / runSum : 0.f);
    float *dst = t.out + r * t.outRowStride + (ri / t.rows) * D;
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(dst + 16 * v, _mm512_mul_ps(o[v], inv));
  }
}

}  // namespace

void gqaAttendRowsAvx512(const GqaTile &t) {
  switch (t.D / 16) {
    case 1: attendRows<1>(t); break;
    case 2: attendRows<2>(t); break;
    case 3: attendRows<3>(t); break;
    case 4: attendRows<4>(t); break;
    case 5: attendRows<5>(t); break;
    case 6: attendRows<6>(t); break;
    case 7: attendRows<7>(t); break;
    case 8: attendRows<8>(t); break;
    case 9: attendRows<9>(t); break;
    case 10: attendRows<10>(t); break;
    case 11: attendRows<11>(t); break;
    case 12: attendRows<12>(t); break;
    case 13: attendRows<13>(t); break;
    case 14: attendRows<14>(t); break;
    case 15: attendRows<15>(t); break;
    default: attendRows<16>(t); break;
  }
}

}  // namespace webnn::cpu::kernels

#else
#include "runtime/backends/cpu/kernels/GqaAttention.h"
namespace webnn::cpu::kernels {
bool gqaTiledSupported(int64_t) { return false; }
void gqaAttendAvx512(const GqaTile &) {}
void gqaAttendRowsAvx512(const GqaTile &) {}
}  // namespace webnn::cpu::kernels
#endif
