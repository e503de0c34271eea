// maxPool2d's nhwc float32 row (MaxPoolAvx512.h), compiled for AVX-512 by the
// pragma; runs only where avx512Available().
#include "runtime/backends/cpu/kernels/MaxPoolAvx512.h"

#include <algorithm>

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

// NV vectors of channels from p (the window's first real tap), the last
// loaded under `last`. max_ps(v, acc) returns acc where v is NaN, as the
// portable `v > acc ? v : acc` does, and keeps acc on equal values.
template <int NV>
inline void window(const float *p, int64_t rows, int64_t rowStep, int64_t cols, int64_t colStep, __mmask16 last,
                   float *out) {
  __m512 acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_set1_ps(-__builtin_inff());
  for (int64_t r = 0; r < rows; ++r, p += rowStep) {
    const float *q = p;
    for (int64_t k = 0; k < cols; ++k, q += colStep) {
      for (int v = 0; v + 1 < NV; ++v) acc[v] = _mm512_max_ps(_mm512_loadu_ps(q + 16 * v), acc[v]);
      acc[NV - 1] = _mm512_max_ps(_mm512_maskz_loadu_ps(last, q + 16 * (NV - 1)), acc[NV - 1]);
    }
  }
  for (int v = 0; v + 1 < NV; ++v) _mm512_storeu_ps(out + 16 * v, acc[v]);
  _mm512_mask_storeu_ps(out + 16 * (NV - 1), last, acc[NV - 1]);
}

}  // namespace

void maxPoolRowNhwcAvx512(const MaxPoolRowNhwc &r) {
  const int64_t C = r.C, colStep = r.dw * C;
  const int64_t full = C / 64 * 64, rem = C - full;
  const int tailVectors = int((rem + 15) / 16);
  const __mmask16 tailMask = rem % 16 ? __mmask16((1u << (rem % 16)) - 1) : __mmask16(0xFFFF);
  for (int64_t ow = 0; ow < r.OW; ++ow) {
    float *out = r.y + ow * r.yPitch;
    // The window's real columns: taps kw0 .. kw1 - 1 (positions iw0 + kw * dw in [0, W)).
    const int64_t iw0 = ow * r.sw - r.padLeft;
    const int64_t kw0 = poolFirstTap(iw0, r.dw), kw1 = poolEndTap(iw0, r.dw, r.KW, r.W);
    if (r.rowCount <= 0 || kw1 <= kw0) {
      std::fill(out, out + C, 0.f);  // a window wholly in the padding (ceil rounding)
      continue;
    }
    const int64_t cols = kw1 - kw0;
    const float *p = r.rows + (iw0 + kw0 * r.dw) * C;
    int64_t c0 = 0;
    for (; c0 < full; c0 += 64) window<4>(p + c0, r.rowCount, r.rowStep, cols, colStep, 0xFFFF, out + c0);
    switch (tailVectors) {
      case 1: window<1>(p + c0, r.rowCount, r.rowStep, cols, colStep, tailMask, out + c0); break;
      case 2: window<2>(p + c0, r.rowCount, r.rowStep, cols, colStep, tailMask, out + c0); break;
      case 3: window<3>(p + c0, r.rowCount, r.rowStep, cols, colStep, tailMask, out + c0); break;
      case 4: window<4>(p + c0, r.rowCount, r.rowStep, cols, colStep, tailMask, out + c0); break;
      default: break;
    }
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void maxPoolRowNhwcAvx512(const MaxPoolRowNhwc &) {}
}  // namespace webnn::cpu::kernels

#endif
