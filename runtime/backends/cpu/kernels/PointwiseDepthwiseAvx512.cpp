// The fused 1x1 + depthwise 3x3 convolution (PointwiseDepthwise.h),
// compiled for AVX-512F by the pragma; runs only when avx512Available().
#include <algorithm>

#include "runtime/backends/cpu/kernels/PointwiseDepthwise.h"

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

// R rows x 48 columns: bias, K rank-1 updates from the filter rows in L1,
// clamp, store. Full: all 48 columns; else lanes past the masks untouched
// (separate code: with masked loads GCC spilled two filter vectors of the
// 8-row tile to the stack and the tile ran at half speed).
template <int R, bool Full>
__attribute__((always_inline)) inline void tile(const float *x, int64_t K, const float *w, int64_t N,
                                                const float *bias, float *y, const __mmask16 *m, __m512 lo,
                                                __m512 hi) {
  auto load = [&](const float *a, int j) { return Full ? _mm512_loadu_ps(a) : _mm512_maskz_loadu_ps(m[j], a); };
  __m512 c[R][3];
  const __m512 b0 = bias ? load(bias, 0) : _mm512_setzero_ps();
  const __m512 b1 = bias ? load(bias + 16, 1) : _mm512_setzero_ps();
  const __m512 b2 = bias ? load(bias + 32, 2) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) c[r][0] = b0, c[r][1] = b1, c[r][2] = b2;
  for (int64_t k = 0; k < K; ++k) {
    const float *wk = w + k * N;
    const __m512 w0 = load(wk, 0), w1 = load(wk + 16, 1), w2 = load(wk + 32, 2);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(x[r * K + k]);
      c[r][0] = _mm512_fmadd_ps(a, w0, c[r][0]);
      c[r][1] = _mm512_fmadd_ps(a, w1, c[r][1]);
      c[r][2] = _mm512_fmadd_ps(a, w2, c[r][2]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int j = 0; j < 3; ++j) {
      const __m512 v = _mm512_min_ps(_mm512_max_ps(c[r][j], lo), hi);
      if (Full) _mm512_storeu_ps(y + r * N + 16 * j, v);
      else _mm512_mask_storeu_ps(y + r * N + 16 * j, m[j], v);
    }
}

template <bool Full>
void panel(const float *x, int64_t M, int64_t K, const float *w, int64_t N, const float *bias, float *y,
           const __mmask16 *m, __m512 lo, __m512 hi) {
  int64_t m0 = 0;
  for (; m0 + 8 <= M; m0 += 8) tile<8, Full>(x + m0 * K, K, w, N, bias, y + m0 * N, m, lo, hi);
  for (; m0 + 4 <= M; m0 += 4) tile<4, Full>(x + m0 * K, K, w, N, bias, y + m0 * N, m, lo, hi);
  for (; m0 < M; ++m0) tile<1, Full>(x + m0 * K, K, w, N, bias, y + m0 * N, m, lo, hi);
}

__mmask16 columnMask(int64_t cols) {
  return cols >= 16 ? __mmask16(0xFFFF) : cols <= 0 ? __mmask16(0) : __mmask16((1u << cols) - 1);
}

}  // namespace

void pointwiseRowsAvx512(const float *x, int64_t M, int64_t K, const float *w, int64_t N, const float *bias,
                         float lo, float hi, float *y) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int64_t n0 = 0; n0 < N; n0 += 48) {
    const __mmask16 m[3] = {columnMask(N - n0), columnMask(N - n0 - 16), columnMask(N - n0 - 32)};
    const float *b = bias ? bias + n0 : nullptr;
    if (n0 + 48 <= N) panel<true>(x, M, K, w + n0, N, b, y + n0, m, vlo, vhi);
    else panel<false>(x, M, K, w + n0, N, b, y + n0, m, vlo, vhi);
  }
}

void pointwiseDepthwiseAvx512(const PointwiseDepthwise &p, const float *x, float *y, int64_t oh0, int64_t oh1,
                              float *ring) {
  const Depthwise3x3 &d = p.dw;
  const int64_t rowFloats = d.W * d.C;
  // Input row ih of the expanded tensor lives in ring slot ih % 4: an
  // output row reads 3 rows and the next one adds 1 (stride 1) or 2.
  int64_t next = std::max<int64_t>(0, oh0 * d.stride - d.padTop);  // next row to expand
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t top = oh * d.stride - d.padTop;
    const int64_t last = std::min(d.H - 1, top + 2);
    for (; next <= last; ++next)
      pointwiseRowsAvx512(x + next * d.W * p.K, d.W, p.K, p.pointwiseFilter, d.C, p.pointwiseBias, p.lo, p.hi,
                          ring + (next % 4) * rowFloats);
    const float *rows[3];
    for (int k = 0; k < 3; ++k) {
      const int64_t ih = top + k;
      rows[k] = ih >= 0 && ih < d.H ? ring + (ih % 4) * rowFloats : nullptr;
    }
    depthwise3x3Avx512Row(d, rows, y + oh * d.OW * d.C);
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void pointwiseRowsAvx512(const float *, int64_t, int64_t, const float *, int64_t, const float *, float, float,
                         float *) {}
void pointwiseDepthwiseAvx512(const PointwiseDepthwise &, const float *, float *, int64_t, int64_t, float *) {}
}  // namespace webnn::cpu::kernels

#endif
