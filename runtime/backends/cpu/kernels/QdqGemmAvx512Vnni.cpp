// AVX512-VNNI loops of quantizedMatmul (QdqGemm.h): the integer GEMM on
// vpdpbusd and the row quantization of a float A. Compiled for AVX-512 +
// VNNI by the pragma below (as QuantizedMatMulAvx512.cpp); called only where
// avx512Available() says the CPU has them.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "runtime/backends/cpu/kernels/QdqGemm.h"

namespace webnn::cpu::kernels {
namespace {

// MR rows x NP panels (16 columns each) over all of K: MR * NP int32
// accumulators, each step one broadcast of 4 A bytes per row and one 64-byte
// load per panel, MR * NP vpdpbusd.
template <int MR, int NP>
void tile(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K4, int64_t N,
          int64_t m, int64_t p, float *Y, int64_t ldy, const QdqEpilogue &e) {
  __m512i acc[MR][NP];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NP; ++j) acc[r][j] = _mm512_setzero_si512();
  const int8_t *b = B.panels + p * K4 * kQdqPanel * 4;
  const int64_t panelBytes = K4 * kQdqPanel * 4;
  const uint8_t *a = A + m * lda;
  for (int64_t k4 = 0; k4 < K4; ++k4) {
    __m512i bv[NP];
    for (int j = 0; j < NP; ++j) bv[j] = _mm512_load_si512(b + j * panelBytes + k4 * 64);
    for (int r = 0; r < MR; ++r) {
      int32_t a4;
      std::memcpy(&a4, a + r * lda + k4 * 4, 4);
      __m512i av = _mm512_set1_epi32(a4);
      for (int j = 0; j < NP; ++j) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], av, bv[j]);
    }
  }
  const __m512 outScale = _mm512_set1_ps(e.outScale), outZp = _mm512_set1_ps(e.outZp);
  const __m512 qmin = _mm512_set1_ps(e.qmin), qmax = _mm512_set1_ps(e.qmax);
  for (int j = 0; j < NP; ++j) {
    const int64_t n0 = (p + j) * kQdqPanel;
    const int64_t cols = std::min<int64_t>(kQdqPanel, N - n0);
    const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
    const __m512i colTerm = _mm512_load_si512(B.colTerm + n0);
    const __m512i zb = _mm512_load_si512(B.zb + n0);
    const __m512 scale = _mm512_load_ps(B.scale + n0);
    const __m512 bias = e.bias ? _mm512_maskz_loadu_ps(mask, e.bias + n0) : _mm512_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      __m512i sum = _mm512_add_epi32(acc[r][j], colTerm);
      sum = _mm512_sub_epi32(sum, _mm512_mullo_epi32(zb, _mm512_set1_epi32(rowSum[m + r])));
      __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(sum), scale);
      if (e.roundTrip) {
        __m512 q = _mm512_roundscale_ps(_mm512_div_ps(y, outScale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        q = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(q, outZp), qmin), qmax);
        y = _mm512_mul_ps(_mm512_sub_ps(q, outZp), outScale);
      }
      if (e.bias) y = _mm512_add_ps(y, bias);
      _mm512_mask_storeu_ps(Y + (m + r) * ldy + n0, mask, y);
    }
  }
}

template <int NP>
void rows(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K4, int64_t N,
          int64_t m0, int64_t m1, int64_t p, float *Y, int64_t ldy, const QdqEpilogue &e) {
  constexpr int MR = 8;
  int64_t m = m0;
  for (; m + MR <= m1; m += MR) tile<MR, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e);
  switch (m1 - m) {
    case 7: tile<7, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 6: tile<6, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 5: tile<5, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 4: tile<4, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 3: tile<3, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 2: tile<2, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 1: tile<1, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    default: break;
  }
}

}  // namespace

void qdqGemmAvx512Vnni(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K,
                       int64_t N, int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy,
                       const QdqEpilogue &e) {
  const int64_t K4 = qdqK4(K);
  int64_t p = p0;
  for (; p + 2 <= p1; p += 2) rows<2>(A, lda, rowSum, B, K4, N, m0, m1, p, Y, ldy, e);
  if (p < p1) rows<1>(A, lda, rowSum, B, K4, N, m0, m1, p, Y, ldy, e);
}

void qdqQuantizeRowsAvx512(const float *x, int64_t rows, int64_t K, float scale, float zp, float qmin,
                           float qmax, int32_t shift, uint8_t *out, int64_t lda, int32_t *rowSum) {
  const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(zp);
  const __m512 lo = _mm512_set1_ps(qmin), hi = _mm512_set1_ps(qmax);
  const __m512i sh = _mm512_set1_epi32(shift);
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * K;
    uint8_t *o = out + r * lda;
    __m512i sum = _mm512_setzero_si512();
    for (int64_t k = 0; k < K; k += 16) {
      const __mmask16 m = K - k >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (K - k)) - 1);
      __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, xr + k), s);
      // NaN quantizes to the zero point (quantizeLinear's rule).
      const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      __m512 q = _mm512_add_ps(_mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), z);
      q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
      q = _mm512_mask_mov_ps(q, nan, z);
      __m512i qi = _mm512_maskz_add_epi32(m, _mm512_cvtps_epi32(q), sh);
      sum = _mm512_add_epi32(sum, qi);
      _mm_mask_storeu_epi8(o + k, m, _mm512_cvtepi32_epi8(qi));
    }
    std::memset(o + K, 0, size_t(lda - K));
    rowSum[r] = _mm512_reduce_add_epi32(sum);
  }
}

}  // namespace webnn::cpu::kernels

#else
#include "runtime/backends/cpu/kernels/QdqGemm.h"
namespace webnn::cpu::kernels {
void qdqGemmAvx512Vnni(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K,
                       int64_t N, int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy,
                       const QdqEpilogue &e) {
  qdqGemmPortable(A, lda, rowSum, B, K, N, m0, m1, p0, p1, Y, ldy, e);
}
void qdqQuantizeRowsAvx512(const float *x, int64_t rows, int64_t K, float scale, float zp, float qmin,
                           float qmax, int32_t shift, uint8_t *out, int64_t lda, int32_t *rowSum) {
  qdqQuantizeRowsPortable(x, rows, K, scale, zp, qmin, qmax, shift, out, lda, rowSum);
}
}  // namespace webnn::cpu::kernels
#endif
