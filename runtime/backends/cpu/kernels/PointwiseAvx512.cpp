// Short-K pointwise products (Pointwise.h), compiled for AVX-512F by the
// pragma; runs only when avx512Available().
#include "runtime/backends/cpu/kernels/Pointwise.h"

#include <algorithm>

#include "runtime/backends/cpu/kernels/Silu.h"

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

// R rows x V vectors of columns: bias, K rank-1 updates, residual, clamp,
// store. Full: all 16 V columns; else the last vector under `last`. Scalars
// by value and no masked loads in the full variant: GCC otherwise spilled
// filter vectors of the 8 x 48 tile to the stack and it ran at half speed.
template <int V, bool Full>
__attribute__((always_inline)) inline __m512 loadColumns(const float *a, int v, __mmask16 last) {
  return Full || v + 1 < V ? _mm512_loadu_ps(a) : _mm512_maskz_loadu_ps(last, a);
}

template <int R, int V, bool Full>
__attribute__((noinline)) void tile(const float *x, int64_t K, const float *w, int64_t N,
                                                const float *bias, const float *residual, float *y, int64_t ldy,
                                                __mmask16 last, float fLo, float fHi) {
  __m512 c[R][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    const __m512 b = bias ? loadColumns<V, Full>(bias + 16 * v, v, last) : _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) c[r][v] = b;
  }
  for (int64_t k = 0; k < K; ++k) {
    __m512 wk[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) wk[v] = loadColumns<V, Full>(w + k * N + 16 * v, v, last);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(x[r * K + k]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) c[r][v] = _mm512_fmadd_ps(a, wk[v], c[r][v]);
    }
  }
  // Bounds made here, not passed in: two live registers fewer in the loop.
  const __m512 lo = _mm512_set1_ps(fLo), hi = _mm512_set1_ps(fHi);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      __m512 s = c[r][v];
      if (residual) s = _mm512_add_ps(s, loadColumns<V, Full>(residual + r * N + 16 * v, v, last));
      s = _mm512_min_ps(_mm512_max_ps(s, lo), hi);
      if (Full || v + 1 < V) _mm512_storeu_ps(y + r * ldy + 16 * v, s);
      else _mm512_mask_storeu_ps(y + r * ldy + 16 * v, last, s);
    }
}

// Columns [n0, n0 + 16 V) (the last vector under `last` unless Full) of
// every row: R-row tiles, then 4- and 1-row ones for the rest.
template <int R, int V, bool Full>
void columns(const PointwiseProduct &p, const float *x, int64_t M, float *y, const float *residual, int64_t n0,
             __mmask16 last) {
  const int64_t N = p.N, K = p.K, ldy = p.ldy ? p.ldy : N;
  const float *w = p.filter + n0, *bias = p.bias ? p.bias + n0 : nullptr;
  const float lo = p.lo, hi = p.hi;
  auto res = [&](int64_t m) { return residual ? residual + m * N + n0 : nullptr; };
  int64_t m = 0;
  for (; m + R <= M; m += R) tile<R, V, Full>(x + m * K, K, w, N, bias, res(m), y + m * ldy + n0, ldy, last, lo, hi);
  for (; m + 4 <= M; m += 4) tile<4, V, Full>(x + m * K, K, w, N, bias, res(m), y + m * ldy + n0, ldy, last, lo, hi);
  for (; m < M; ++m) tile<1, V, Full>(x + m * K, K, w, N, bias, res(m), y + m * ldy + n0, ldy, last, lo, hi);
}

}  // namespace

void pointwiseRowsAvx512(const PointwiseProduct &p, const float *x, int64_t M, float *y, const float *residual) {
  const int64_t N = p.N, K = p.K, ldy = p.ldy ? p.ldy : N;
  const int64_t rest = N % 48;
  const __mmask16 last = rest ? __mmask16((1u << ((rest - 1) % 16 + 1)) - 1) : __mmask16(0xFFFF);
  const bool full = rest % 16 == 0;
  // Blocks of 16 rows, every column panel of a block before the next: the
  // block's inputs stay in L1 across the panels, its outputs (and residual)
  // are written (read) in order. Panel by panel over all rows, a 56x56
  // 64 -> 256 layer with a residual ran a third slower; blocks of 8 to 64
  // rows measured within a few percent of each other.
  constexpr int64_t kBlock = 16;
  for (int64_t m0 = 0; m0 < M; m0 += kBlock) {
    const int64_t rows = std::min(kBlock, M - m0);
    const float *xb = x + m0 * K;
    float *yb = y + m0 * ldy;
    const float *rb = residual ? residual + m0 * N : nullptr;
    int64_t n0 = 0;
    for (; n0 + 48 <= N; n0 += 48) columns<8, 3, true>(p, xb, rows, yb, rb, n0, 0xFFFF);
    if (rest > 32) full ? columns<8, 3, true>(p, xb, rows, yb, rb, n0, last) : columns<8, 3, false>(p, xb, rows, yb, rb, n0, last);
    else if (rest > 16) full ? columns<8, 2, true>(p, xb, rows, yb, rb, n0, last) : columns<8, 2, false>(p, xb, rows, yb, rb, n0, last);
    else if (rest > 0) full ? columns<8, 1, true>(p, xb, rows, yb, rb, n0, last) : columns<8, 1, false>(p, xb, rows, yb, rb, n0, last);
    if (p.silu) siluAvx512(yb, rows * N);  // dense y only (PointwiseProduct::ldy)
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void pointwiseRowsAvx512(const PointwiseProduct &, const float *, int64_t, float *, const float *) {}
}  // namespace webnn::cpu::kernels

#endif
