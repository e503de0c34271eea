// The AVX-512 2-D transpose of 4-byte elements (Transpose32.h), compiled for
// AVX-512F by the pragma; runs only where avx512Available().
#include "runtime/backends/cpu/kernels/Transpose32.h"

#include <algorithm>

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

inline __m512 unpackLo64(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}
inline __m512 unpackHi64(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}

// r[i] (row i of a 16 x 16 block) becomes column i: 32-bit, then 64-bit
// interleaves within 128-bit lanes, then two rounds of lane shuffles.
inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = unpackLo64(t[i], t[i + 2]);
    r[i + 1] = unpackHi64(t[i], t[i + 2]);
    r[i + 2] = unpackLo64(t[i + 1], t[i + 3]);
    r[i + 3] = unpackHi64(t[i + 1], t[i + 3]);
  }
  for (int h = 0; h < 16; h += 8)
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xdd);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

// One block of rows x cols (each at most 16): masked loads read only the
// block's columns (rows past it are zeros), masked stores write only its rows.
inline void block(const float *x, int64_t ldx, float *y, int64_t ldy, int rows, int cols) {
  const __mmask16 colMask = cols >= 16 ? __mmask16(0xffff) : __mmask16((1u << cols) - 1u);
  const __mmask16 rowMask = rows >= 16 ? __mmask16(0xffff) : __mmask16((1u << rows) - 1u);
  __m512 r[16];
  for (int i = 0; i < 16; ++i) r[i] = i < rows ? _mm512_maskz_loadu_ps(colMask, x + i * ldx) : _mm512_setzero_ps();
  transpose16(r);
  for (int j = 0; j < cols; ++j) _mm512_mask_storeu_ps(y + j * ldy, rowMask, r[j]);
}

}  // namespace

void transpose32Avx512(const uint32_t *xb, int64_t ldx, uint32_t *yb, int64_t ldy, int64_t rows, int64_t cols) {
  const float *x = reinterpret_cast<const float *>(xb);  // moves and shuffles only: bits kept
  float *y = reinterpret_cast<float *>(yb);
  for (int64_t r0 = 0; r0 < rows; r0 += 16)
    for (int64_t c0 = 0; c0 < cols; c0 += 16)
      block(x + r0 * ldx + c0, ldx, y + c0 * ldy + r0, ldy, int(std::min<int64_t>(16, rows - r0)),
            int(std::min<int64_t>(16, cols - c0)));
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void transpose32Avx512(const uint32_t *, int64_t, uint32_t *, int64_t, int64_t, int64_t) {}
}  // namespace webnn::cpu::kernels

#endif
