// AVX512-VNNI loops of quantizedMatmul (QdqGemm.h): the integer GEMM on
// vpdpbusd and the row quantization of a float A. Compiled for AVX-512 +
// VNNI by the pragma below (as QuantizedMatMulAvx512.cpp); called only where
// avx512Available() says the CPU has them. The 8-row x 32-column tile's K
// loop is inline assembly (GCC and Clang syntax), the rest intrinsics.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "runtime/backends/cpu/kernels/QdqEpilogueAvx512.h"
#include "runtime/backends/cpu/kernels/QdqGemm.h"

namespace webnn::cpu::kernels {
namespace {

// The rows left after the 8-row tiles (MR < 8) x NP panels: MR * NP int32
// accumulators in intrinsics (few enough that GCC keeps them in registers),
// each step one broadcast of 4 A bytes per row and one 64-byte load per
// panel.
template <int MR, int NP>
void tileSmall(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K4, int64_t N,
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
  for (int j = 0; j < NP; ++j) {
    const int64_t n0 = (p + j) * kQdqPanel;
    const QdqPanelEpilogueAvx512 out(B, N, n0, e);
    for (int r = 0; r < MR; ++r) out.store(acc[r][j], rowSum[m + r], Y + (m + r) * ldy + n0);
  }
}

// The integer sums of 8 rows x 2 panels (32 columns) over all of K into
// acc[16][16] (row r, panel j at acc[2r + j]): 16 int32 accumulators in
// zmm0-15, per 4 k two 64-byte B loads, one 4-byte broadcast of A per row and
// 16 vpdpbusd. Written in assembly because GCC, given the accumulators as an
// array of intrinsics, copies them between registers (and spills some to the
// stack) on every step: ~0.74x this loop's rate. b1 may equal b0 (an odd
// last panel; those sums are ignored). B is 64-byte aligned, as packed.
void sums8x2(const uint8_t *a[8], const int8_t *b0, const int8_t *b1, int64_t K4, int32_t *acc) {
  const uint8_t *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3], *a4 = a[4], *a5 = a[5], *a6 = a[6], *a7 = a[7];
  asm volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vmovdqa64 %%zmm0, %%zmm1\n\t"
      "vmovdqa64 %%zmm0, %%zmm2\n\t"
      "vmovdqa64 %%zmm0, %%zmm3\n\t"
      "vmovdqa64 %%zmm0, %%zmm4\n\t"
      "vmovdqa64 %%zmm0, %%zmm5\n\t"
      "vmovdqa64 %%zmm0, %%zmm6\n\t"
      "vmovdqa64 %%zmm0, %%zmm7\n\t"
      "vmovdqa64 %%zmm0, %%zmm8\n\t"
      "vmovdqa64 %%zmm0, %%zmm9\n\t"
      "vmovdqa64 %%zmm0, %%zmm10\n\t"
      "vmovdqa64 %%zmm0, %%zmm11\n\t"
      "vmovdqa64 %%zmm0, %%zmm12\n\t"
      "vmovdqa64 %%zmm0, %%zmm13\n\t"
      "vmovdqa64 %%zmm0, %%zmm14\n\t"
      "vmovdqa64 %%zmm0, %%zmm15\n\t"
      "xorl %%eax, %%eax\n\t"
      "testq %[k4], %[k4]\n\t"
      "jz 2f\n\t"
      "1:\n\t"
      "vmovdqa64 (%[b0]), %%zmm16\n\t"
      "vmovdqa64 (%[b1]), %%zmm17\n\t"
      "vpbroadcastd (%[a0],%%rax), %%zmm18\n\t"
      "vpbroadcastd (%[a1],%%rax), %%zmm19\n\t"
      "vpdpbusd %%zmm16, %%zmm18, %%zmm0\n\t"
      "vpdpbusd %%zmm17, %%zmm18, %%zmm1\n\t"
      "vpbroadcastd (%[a2],%%rax), %%zmm20\n\t"
      "vpdpbusd %%zmm16, %%zmm19, %%zmm2\n\t"
      "vpdpbusd %%zmm17, %%zmm19, %%zmm3\n\t"
      "vpbroadcastd (%[a3],%%rax), %%zmm21\n\t"
      "vpdpbusd %%zmm16, %%zmm20, %%zmm4\n\t"
      "vpdpbusd %%zmm17, %%zmm20, %%zmm5\n\t"
      "vpbroadcastd (%[a4],%%rax), %%zmm22\n\t"
      "vpdpbusd %%zmm16, %%zmm21, %%zmm6\n\t"
      "vpdpbusd %%zmm17, %%zmm21, %%zmm7\n\t"
      "vpbroadcastd (%[a5],%%rax), %%zmm23\n\t"
      "vpdpbusd %%zmm16, %%zmm22, %%zmm8\n\t"
      "vpdpbusd %%zmm17, %%zmm22, %%zmm9\n\t"
      "vpbroadcastd (%[a6],%%rax), %%zmm24\n\t"
      "vpdpbusd %%zmm16, %%zmm23, %%zmm10\n\t"
      "vpdpbusd %%zmm17, %%zmm23, %%zmm11\n\t"
      "vpbroadcastd (%[a7],%%rax), %%zmm25\n\t"
      "vpdpbusd %%zmm16, %%zmm24, %%zmm12\n\t"
      "vpdpbusd %%zmm17, %%zmm24, %%zmm13\n\t"
      "vpdpbusd %%zmm16, %%zmm25, %%zmm14\n\t"
      "vpdpbusd %%zmm17, %%zmm25, %%zmm15\n\t"
      "addq $64, %[b0]\n\t"
      "addq $64, %[b1]\n\t"
      "addq $4, %%rax\n\t"
      "decq %[k4]\n\t"
      "jnz 1b\n\t"
      "2:\n\t"
      "vmovdqu32 %%zmm0, 0(%[acc])\n\t"
      "vmovdqu32 %%zmm1, 64(%[acc])\n\t"
      "vmovdqu32 %%zmm2, 128(%[acc])\n\t"
      "vmovdqu32 %%zmm3, 192(%[acc])\n\t"
      "vmovdqu32 %%zmm4, 256(%[acc])\n\t"
      "vmovdqu32 %%zmm5, 320(%[acc])\n\t"
      "vmovdqu32 %%zmm6, 384(%[acc])\n\t"
      "vmovdqu32 %%zmm7, 448(%[acc])\n\t"
      "vmovdqu32 %%zmm8, 512(%[acc])\n\t"
      "vmovdqu32 %%zmm9, 576(%[acc])\n\t"
      "vmovdqu32 %%zmm10, 640(%[acc])\n\t"
      "vmovdqu32 %%zmm11, 704(%[acc])\n\t"
      "vmovdqu32 %%zmm12, 768(%[acc])\n\t"
      "vmovdqu32 %%zmm13, 832(%[acc])\n\t"
      "vmovdqu32 %%zmm14, 896(%[acc])\n\t"
      "vmovdqu32 %%zmm15, 960(%[acc])\n\t"
      : [b0] "+r"(b0), [b1] "+r"(b1), [k4] "+r"(K4)
      : [a0] "r"(a0), [a1] "r"(a1), [a2] "r"(a2), [a3] "r"(a3), [a4] "r"(a4), [a5] "r"(a5), [a6] "r"(a6),
        [a7] "r"(a7), [acc] "r"(acc)
      : "rax", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
        "xmm21", "xmm22", "xmm23", "xmm24", "xmm25");
}

// Rows [m, m + 8) x panels p, p + 1 (np = 1 or 2) of Y: the sums, then per
// element the zero point terms, the scale and the epilogue.
void tile8(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K4, int64_t N,
           int64_t m, int64_t p, int np, float *Y, int64_t ldy, const QdqEpilogue &e) {
  constexpr int rows = 8;
  alignas(64) int32_t acc[16][16];
  const uint8_t *a[rows];
  for (int r = 0; r < rows; ++r) a[r] = A + (m + r) * lda;
  const int64_t panelBytes = K4 * kQdqPanel * 4;
  const int8_t *b0 = B.panels + p * panelBytes;
  sums8x2(a, b0, np == 2 ? b0 + panelBytes : b0, K4, &acc[0][0]);
  for (int j = 0; j < np; ++j) {
    const int64_t n0 = (p + j) * kQdqPanel;
    const QdqPanelEpilogueAvx512 out(B, N, n0, e);
    for (int r = 0; r < rows; ++r)
      out.store(_mm512_load_si512(acc[2 * r + j]), rowSum[m + r], Y + (m + r) * ldy + n0);
  }
}

// Rows [m0, m1) x panels p .. p + NP - 1. A weight B comes from memory on every run (BERT-base's do not fit the
// cache), and the first tile of a panel pair would wait on it: each 8-row
// tile also prefetches its share of the next pair into L2, so that pair is
// there when its rows start. Only for panels of up to 16 KB (K <= 1024):
// longer ones are streams the hardware prefetcher follows, and prefetching
// them too measured slower (K 3072).
template <int NP>
void rows(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K4, int64_t N,
          int64_t m0, int64_t m1, int64_t p, float *Y, int64_t ldy, const QdqEpilogue &e) {
  const int64_t panelBytes = K4 * kQdqPanel * 4;
  const int64_t nextPanels = std::max<int64_t>(0, std::min<int64_t>(2, qdqPanels(N) - (p + NP)));
  const int64_t nextBytes = panelBytes <= 16384 ? nextPanels * panelBytes : 0;
  const char *next = reinterpret_cast<const char *>(B.panels + (p + NP) * panelBytes);
  const int64_t tiles = std::max<int64_t>(1, (m1 - m0) / 8);
  const int64_t share = (nextBytes / tiles + 63) / 64 * 64;
  int64_t m = m0, ahead = 0;
  for (; m + 8 <= m1; m += 8) {
    for (const int64_t end = std::min(nextBytes, ahead + share); ahead < end; ahead += 64)
      _mm_prefetch(next + ahead, _MM_HINT_T1);
    tile8(A, lda, rowSum, B, K4, N, m, p, NP, Y, ldy, e);
  }
  switch (m1 - m) {
    case 7: tileSmall<7, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 6: tileSmall<6, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 5: tileSmall<5, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 4: tileSmall<4, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 3: tileSmall<3, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 2: tileSmall<2, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
    case 1: tileSmall<1, NP>(A, lda, rowSum, B, K4, N, m, p, Y, ldy, e); break;
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

void qdqPackBAvx512(const int8_t *b, int64_t ldb, int64_t K, int64_t N, int32_t za, const int32_t *zb,
                    int64_t zbStride, const float *scale, int64_t scaleStride, uint8_t *out) {
  const int64_t K4 = qdqK4(K), panels = qdqPanels(N);
  const QdqPackedB view = qdqPackedView(out, K, N);
  int8_t *dst = reinterpret_cast<int8_t *>(out);
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i kza = _mm512_set1_epi32(int32_t(uint32_t(K) * uint32_t(za))), zaV = _mm512_set1_epi32(za);
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t n0 = p * kQdqPanel, cols = std::min<int64_t>(kQdqPanel, N - n0);
    const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
    __m512i colSum = _mm512_setzero_si512();
    int8_t *pd = dst + p * K4 * kQdqPanel * 4;
    for (int64_t k4 = 0; k4 < K4; ++k4) {
      // Four rows of 16 columns interleaved to [16][4]; rows past K and
      // columns past N are zeros.
      __m128i r[4];
      for (int t = 0; t < 4; ++t) {
        const int64_t k = k4 * 4 + t;
        r[t] = k < K ? _mm_maskz_loadu_epi8(mask, b + k * ldb + n0) : _mm_setzero_si128();
      }
      const __m128i t0 = _mm_unpacklo_epi8(r[0], r[1]), t1 = _mm_unpackhi_epi8(r[0], r[1]);
      const __m128i t2 = _mm_unpacklo_epi8(r[2], r[3]), t3 = _mm_unpackhi_epi8(r[2], r[3]);
      __m512i v = _mm512_castsi128_si512(_mm_unpacklo_epi16(t0, t2));
      v = _mm512_inserti32x4(v, _mm_unpackhi_epi16(t0, t2), 1);
      v = _mm512_inserti32x4(v, _mm_unpacklo_epi16(t1, t3), 2);
      v = _mm512_inserti32x4(v, _mm_unpackhi_epi16(t1, t3), 3);
      _mm512_storeu_si512(pd + k4 * 64, v);
      colSum = _mm512_dpbusd_epi32(colSum, ones, v);  // 1 x each byte: the column sums
    }
    const __m512i z = zbStride ? _mm512_maskz_loadu_epi32(mask, zb + n0) : _mm512_maskz_set1_epi32(mask, zb[0]);
    const __m512 sc = scaleStride ? _mm512_maskz_loadu_ps(mask, scale + n0) : _mm512_maskz_mov_ps(mask, _mm512_set1_ps(scale[0]));
    // Wrapping, as qdqPackB: K za zb[n] - za colsum[n].
    const __m512i term = _mm512_sub_epi32(_mm512_mullo_epi32(kza, z), _mm512_mullo_epi32(zaV, colSum));
    _mm512_storeu_si512(const_cast<int32_t *>(view.colTerm) + n0, _mm512_maskz_mov_epi32(mask, term));
    _mm512_storeu_si512(const_cast<int32_t *>(view.zb) + n0, z);
    _mm512_storeu_ps(const_cast<float *>(view.scale) + n0, sc);
  }
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
void qdqPackBAvx512(const int8_t *b, int64_t ldb, int64_t K, int64_t N, int32_t za, const int32_t *zb,
                    int64_t zbStride, const float *scale, int64_t scaleStride, uint8_t *out) {
  qdqPackB(b, ldb, K, N, za, zb, zbStride, scale, scaleStride, out);
}
void qdqQuantizeRowsAvx512(const float *x, int64_t rows, int64_t K, float scale, float zp, float qmin,
                           float qmax, int32_t shift, uint8_t *out, int64_t lda, int32_t *rowSum) {
  qdqQuantizeRowsPortable(x, rows, K, scale, zp, qmin, qmax, shift, out, lda, rowSum);
}
}  // namespace webnn::cpu::kernels
#endif
