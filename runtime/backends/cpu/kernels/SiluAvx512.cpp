// SiLU in place (Silu.h), compiled for AVX-512F by the pragma; the loop runs
// only when avx512Available().
#include "runtime/backends/cpu/kernels/Silu.h"

#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

// v / (1 + exp(-v)). exp's argument is clamped to [-88, 88] so every step
// stays finite; below -88 the result is set to 0 (v * e^-88 is not it).
inline __m512 silu16(__m512 v) {
  const __m512 x = _mm512_max_ps(_mm512_min_ps(_mm512_sub_ps(_mm512_setzero_ps(), v), _mm512_set1_ps(88.f)),
                                 _mm512_set1_ps(-88.f));
  // exp(x) = 2^n exp(r), n = round(x / ln2), r = x - n ln2 (ln2 in two parts).
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  // Relative minimax fit of exp on [-ln2/2, ln2/2].
  __m512 p = _mm512_set1_ps(8.2903029e-3f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1897908e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6667636e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.9999151e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(9.9999970e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
  const __m512 d = _mm512_add_ps(_mm512_scalef_ps(p, n), _mm512_set1_ps(1.f));
  const __mmask16 tiny = _mm512_cmp_ps_mask(v, _mm512_set1_ps(-88.f), _CMP_LT_OQ);
  return _mm512_mask_blend_ps(tiny, _mm512_div_ps(v, d), _mm512_setzero_ps());
}

}  // namespace

void siluAvx512(float *y, int64_t n) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, silu16(_mm512_loadu_ps(y + j)));
  if (j < n) {
    const __mmask16 m = __mmask16((1u << (n - j)) - 1);
    _mm512_mask_storeu_ps(y + j, m, silu16(_mm512_maskz_loadu_ps(m, y + j)));
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void siluAvx512(float *, int64_t) {}
}  // namespace webnn::cpu::kernels

#endif

namespace webnn::cpu::kernels {

void siluInPlace(float *y, int64_t n) {
  if (avx512Available()) siluAvx512(y, n);
  else siluArray(y, n);
}

}  // namespace webnn::cpu::kernels
