// The channel affine + 1x1 pair's AVX-512 loops (AffinePointwise.h),
// compiled for AVX-512F by the pragma; run only where avx512Available().
//
// Tiles of 6 rows x 64 columns: 24 accumulators, 4 filter vectors and the
// broadcast stay in the 32 zmm registers (an 8 x 48 tile with its prefetch
// bookkeeping spills accumulators to the stack on GCC 12), each filter load
// feeds 6 FMAs.
#include "runtime/backends/cpu/kernels/conv/AffinePointwise.h"

#include <algorithm>

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kCols = AffinePointwiseFilter::kBlockColumns;

inline __mmask16 tailMask(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1); }

// y[R rows][16 J columns] (+)= a[R][kc] * block[kc][64 (J * 16 used)];
// `last`: then + bias and the clamp.
template <int R, int J>
void tile(const float *a, int64_t lda, const float *block, int64_t kc, const float *bias, float lo, float hi, float *y,
          int64_t ldy, bool accumulate, bool last) {
  __m512 c[R][J];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < J; ++j) c[r][j] = accumulate ? _mm512_loadu_ps(y + r * ldy + 16 * j) : _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const float *bk = block + k * kCols;
    __m512 b[J];
    for (int j = 0; j < J; ++j) b[j] = _mm512_load_ps(bk + 16 * j);
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + k]);
      for (int j = 0; j < J; ++j) c[r][j] = _mm512_fmadd_ps(av, b[j], c[r][j]);
    }
  }
  if (!last) {
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < J; ++j) _mm512_storeu_ps(y + r * ldy + 16 * j, c[r][j]);
    return;
  }
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int j = 0; j < J; ++j) {
    const __m512 bj = bias ? _mm512_loadu_ps(bias + 16 * j) : _mm512_setzero_ps();
    for (int r = 0; r < R; ++r)
      _mm512_storeu_ps(y + r * ldy + 16 * j,
                       _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(c[r][j], bj), vlo), vhi));
  }
}

using TileFn = void (*)(const float *, int64_t, const float *, int64_t, const float *, float, float, float *, int64_t,
                       bool, bool);

template <int R>
constexpr TileFn tileFor(int j) {
  return j == 1 ? &tile<R, 1> : j == 2 ? &tile<R, 2> : j == 3 ? &tile<R, 3> : &tile<R, 4>;
}

const TileFn kTiles[7][5] = {
    {nullptr, nullptr, nullptr, nullptr, nullptr},
    {nullptr, tileFor<1>(1), tileFor<1>(2), tileFor<1>(3), tileFor<1>(4)},
    {nullptr, tileFor<2>(1), tileFor<2>(2), tileFor<2>(3), tileFor<2>(4)},
    {nullptr, tileFor<3>(1), tileFor<3>(2), tileFor<3>(3), tileFor<3>(4)},
    {nullptr, tileFor<4>(1), tileFor<4>(2), tileFor<4>(3), tileFor<4>(4)},
    {nullptr, tileFor<5>(1), tileFor<5>(2), tileFor<5>(3), tileFor<5>(4)},
    {nullptr, tileFor<6>(1), tileFor<6>(2), tileFor<6>(3), tileFor<6>(4)},
};

}  // namespace

void affineRowsAvx512(const float *x, int64_t xPitch, int64_t rows, int64_t C, const float *mul, const float *add,
                      float lo, float hi, float *dst) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int64_t r = 0; r < rows; ++r, x += xPitch, dst += C) {
    for (int64_t c = 0; c < C; c += 16) {
      const __mmask16 m = tailMask(C - c);
      const __m512 v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + c), _mm512_maskz_loadu_ps(m, mul + c),
                                       _mm512_maskz_loadu_ps(m, add + c));
      _mm512_mask_storeu_ps(dst + c, m, _mm512_min_ps(_mm512_max_ps(v, vlo), vhi));
    }
  }
}

void pointwiseBlocksAvx512(const AffinePointwiseFilter &f, const float *a, int64_t lda, int64_t rows, float *y,
                           int64_t ldy, int64_t block0, int64_t block1) {
  // K in blocks whose 64 columns of the filter (kc x 256 bytes) stay in L1
  // while every tile of the rows passes over them.
  const int64_t kcMax = f.K <= 160 ? f.K : 128;
  for (int64_t jb = block0; jb < block1; ++jb) {
    const int64_t n0 = jb * kCols, vectors = std::min<int64_t>(4, (f.O - n0) / 16);
    const float *block = f.blocks() + jb * f.K * kCols;
    const float *bias = f.bias ? f.bias + n0 : nullptr;
    for (int64_t k0 = 0; k0 < f.K; k0 += kcMax) {
      const int64_t kc = std::min(kcMax, f.K - k0);
      for (int64_t r0 = 0; r0 < rows; r0 += 6) {
        const int64_t R = std::min<int64_t>(6, rows - r0);
        kTiles[R][vectors](a + r0 * lda + k0, lda, block + k0 * kCols, kc, bias, f.lo, f.hi, y + r0 * ldy + n0, ldy,
                           k0 > 0, k0 + kc >= f.K);
      }
    }
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void affineRowsAvx512(const float *, int64_t, int64_t, int64_t, const float *, const float *, float, float, float *) {}
void pointwiseBlocksAvx512(const AffinePointwiseFilter &, const float *, int64_t, int64_t, float *, int64_t, int64_t,
                           int64_t) {}
}  // namespace webnn::cpu::kernels

#endif
