#include "runtime/backends/cpu/kernels/Float16.h"

namespace webnn::cpu::kernels {

void halfToFloatN(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i) out[i] = halfToFloat(in[i]);
}

void floatToHalfN(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), h);
  }
#endif
  for (; i < n; ++i) out[i] = floatToHalf(in[i]);
}

}  // namespace webnn::cpu::kernels
