// Horizontal sums shared by the AVX-512 kernel files. Include it only after
// a file's `#pragma GCC target("avx512f,...")` (QuantizedMatMulAvx512.cpp,
// GqaAttentionAvx512.cpp): the code is compiled for that file's target, and
// the anonymous namespace keeps each file's copy its own.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_AVX512REDUCE_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_AVX512REDUCE_H

#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

// The sums of 4 vectors' lanes, in one vector's first 4 lanes: ~10
// shuffles and adds instead of 4 separate reductions (~32).
inline __m128 reduce4(__m512 a, __m512 b, __m512 c, __m512 d) {
  // 256-bit halves: [a_lo + a_hi | b_lo + b_hi] and the same for c, d.
  __m512 ab = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE));
  __m512 cd = _mm512_add_ps(_mm512_shuffle_f32x4(c, d, 0x44), _mm512_shuffle_f32x4(c, d, 0xEE));
  // 128-bit quarters: [a | b | c | d], 4 partial sums each.
  __m512 abcd = _mm512_add_ps(_mm512_shuffle_f32x4(ab, cd, 0x88), _mm512_shuffle_f32x4(ab, cd, 0xDD));
  // Within each quarter: [x0+x2, x1+x3, ..] then + the neighbour.
  abcd = _mm512_add_ps(abcd, _mm512_permute_ps(abcd, 0x4E));
  abcd = _mm512_add_ps(abcd, _mm512_permute_ps(abcd, 0xB1));
  return _mm512_castps512_ps128(
      _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), abcd));
}

}  // namespace
}  // namespace webnn::cpu::kernels

#endif
