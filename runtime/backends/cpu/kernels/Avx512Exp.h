// exp() of a vector of scores for a softmax's probabilities, shared by the
// AVX-512 attention kernels (GqaAttentionAvx512.cpp,
// EncoderAttentionAvx512.cpp). Include it only after a file's
// `#pragma GCC target("avx512f,...")`; the anonymous namespace keeps each
// file's copy its own.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_AVX512EXP_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_AVX512EXP_H

#include <immintrin.h>

#include <limits>

#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {
namespace {

// exp(x) of the valid lanes, 0 in the others and wherever the result is
// below FLT_MIN: exp() clamps (a masked -inf lane gives ~1e-38), and an
// unmasked score ~88+ below the row's max gives a denormal. The P x V FMAs
// that read such probabilities take a microcode assist per denormal on Intel
// cores (~100x slower); the true values are below FLT_MIN, so 0 is what a
// flush-to-zero gives. A NaN lane comes out as exp's clamp makes it, not NaN.
inline __m512 vexpFlushed(__mmask16 valid, __m512 x) {
  const __m512 e = reinterpret_cast<__m512>(avx512::simd::exp(reinterpret_cast<avx512::simd::VF>(x)));
  const __mmask16 normal = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.33654f), _CMP_NLT_UQ) &
                           _mm512_cmp_ps_mask(e, _mm512_set1_ps(std::numeric_limits<float>::min()), _CMP_NLT_UQ);
  return _mm512_maskz_mov_ps(valid & normal, e);
}

}  // namespace
}  // namespace webnn::cpu::kernels

#endif
