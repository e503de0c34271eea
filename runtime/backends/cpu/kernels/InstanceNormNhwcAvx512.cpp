// instanceNormalization in nhwc over a group of channels (InstanceNormNhwc.h),
// compiled for AVX-512F by the pragma; runs only where avx512Available().
#include "runtime/backends/cpu/kernels/InstanceNormNhwc.h"

#include <algorithm>
#include <cmath>

#include "runtime/backends/cpu/kernels/TransformerSimd.h"

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

inline __m512d lowHalf(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
inline __m512d highHalf(__m512 v) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

__mmask16 laneMask(int64_t left) { return left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1u); }

// Rows [p0, p0 + rows) of NV vectors of 16 channels (masks past nc): the
// chunk's mean and squared deviations, merged into the running mean and m2
// (16 * NV doubles each) of the p0 rows before. Within a chunk (at most
// 64 rows) the sums are float, as the scalar kernel's d * d is; they
// are merged in double.
template <int NV>
void chunkStats(const float *x, int64_t rows, int64_t stride, int64_t nc, int64_t p0, double *mean, double *m2) {
  __mmask16 m[NV];
  for (int j = 0; j < NV; ++j) m[j] = laneMask(nc - 16 * j);
  __m512 sum[NV];
  for (int j = 0; j < NV; ++j) sum[j] = _mm512_setzero_ps();
  for (int64_t p = 0; p < rows; ++p)
    for (int j = 0; j < NV; ++j) sum[j] = _mm512_add_ps(sum[j], _mm512_maskz_loadu_ps(m[j], x + p * stride + 16 * j));
  // Deviations from the chunk's mean rounded to float (c); their sum
  // corrects for that rounding: m2 = sum d^2 - (sum d)^2 / rows.
  const float inv = 1.f / float(rows);
  __m512 c[NV], sd[NV], sq[NV];
  for (int j = 0; j < NV; ++j) {
    c[j] = _mm512_mul_ps(sum[j], _mm512_set1_ps(inv));
    sd[j] = sq[j] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < rows; ++p)
    for (int j = 0; j < NV; ++j) {
      const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m[j], x + p * stride + 16 * j), c[j]);
      sd[j] = _mm512_add_ps(sd[j], d);
      sq[j] = _mm512_fmadd_ps(d, d, sq[j]);
    }
  // delta = meanB - mean; mean += delta rows / n; m2 += m2B + delta^2 p0 rows / n.
  const double n = double(p0 + rows);
  const __m512d nb = _mm512_set1_pd(double(rows));
  const __m512d fb = _mm512_set1_pd(double(rows) / n), fab = _mm512_set1_pd(double(p0) * double(rows) / n);
  for (int i = 0; i < 2 * NV; ++i) {
    const int j = i / 2;
    const __m512d cd = i % 2 ? highHalf(c[j]) : lowHalf(c[j]);
    const __m512d sdd = i % 2 ? highHalf(sd[j]) : lowHalf(sd[j]);
    const __m512d sqd = i % 2 ? highHalf(sq[j]) : lowHalf(sq[j]);
    const __m512d meanB = _mm512_add_pd(cd, _mm512_div_pd(sdd, nb));
    const __m512d m2B = _mm512_max_pd(_mm512_sub_pd(sqd, _mm512_div_pd(_mm512_mul_pd(sdd, sdd), nb)), _mm512_setzero_pd());
    const __m512d runMean = _mm512_loadu_pd(mean + 8 * i), runM2 = _mm512_loadu_pd(m2 + 8 * i);
    const __m512d delta = _mm512_sub_pd(meanB, runMean);
    _mm512_storeu_pd(mean + 8 * i, _mm512_fmadd_pd(delta, fb, runMean));
    _mm512_storeu_pd(m2 + 8 * i, _mm512_add_pd(runM2, _mm512_fmadd_pd(_mm512_mul_pd(delta, delta), fab, m2B)));
  }
}

void chunkStatsAny(const float *x, int64_t rows, int64_t stride, int64_t nc, int64_t p0, double *mean, double *m2) {
  switch ((nc + 15) / 16) {
    case 1: return chunkStats<1>(x, rows, stride, nc, p0, mean, m2);
    case 2: return chunkStats<2>(x, rows, stride, nc, p0, mean, m2);
    case 3: return chunkStats<3>(x, rows, stride, nc, p0, mean, m2);
    default: return chunkStats<4>(x, rows, stride, nc, p0, mean, m2);
  }
}

}  // namespace

void instanceNormNhwcAvx512(const float *x, float *y, int64_t pixels, int64_t stride, int64_t nc,
                            const float *scale, const float *bias, float eps, bool gelu, double *scratch) {
  constexpr int64_t kSub = 64;  // channels per register block: 4 vectors
  const int64_t padded = instanceNormPaddedChannels(nc);
  double *mean = scratch, *m2 = scratch + padded;
  std::fill(scratch, scratch + 2 * padded, 0.0);
  // Chunks of ~32 KB, the second sweep of each from L1, of at most 64
  // rows (float sums within a chunk).
  const int64_t chunk = std::min<int64_t>(64, std::max<int64_t>(4, 8192 / nc));
  for (int64_t p0 = 0; p0 < pixels; p0 += chunk) {
    const int64_t rows = std::min(chunk, pixels - p0);
    for (int64_t c0 = 0; c0 < nc; c0 += kSub)
      chunkStatsAny(x + p0 * stride + c0, rows, stride, std::min(kSub, nc - c0), p0, mean + c0, m2 + c0);
  }
  // y = x * mul + add per channel: mul = scale * rstd, add = bias - mean * mul.
  float *mul = reinterpret_cast<float *>(scratch + 2 * padded), *add = mul + padded;
  for (int64_t ch = 0; ch < padded; ++ch) {
    const bool in = ch < nc;
    const float rstd = 1.f / std::sqrt(float(m2[ch] / double(pixels)) + eps);
    mul[ch] = (in && scale ? scale[ch] : 1.f) * rstd;
    add[ch] = (in && bias ? bias[ch] : 0.f) - float(mean[ch]) * mul[ch];
  }
  for (int64_t p = 0; p < pixels; ++p) {
    const float *row = x + p * stride;
    float *out = y + p * stride;
    for (int64_t c0 = 0; c0 < nc; c0 += 16) {
      const __mmask16 m = laneMask(nc - c0);
      __m512 v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, row + c0), _mm512_loadu_ps(mul + c0),
                                 _mm512_loadu_ps(add + c0));
      if (gelu) v = __m512(avx512::simd::gelu(avx512::simd::VF(v)));
      _mm512_mask_storeu_ps(out + c0, m, v);
    }
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void instanceNormNhwcAvx512(const float *, float *, int64_t, int64_t, int64_t, const float *, const float *, float,
                            bool, double *) {}
}  // namespace webnn::cpu::kernels

#endif
