// AVX-512 depthwise 3x3 and 5x5 convolution (Depthwise.h). Compiled for AVX-512F by
// the pragma; runs only when avx512Available() said so.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "runtime/backends/cpu/kernels/Depthwise.h"

namespace webnn::cpu::kernels {

bool depthwise3x3Supported(int64_t KH, int64_t KW, int64_t strideH, int64_t strideW, int64_t dilationH,
                           int64_t dilationW, int64_t padTop, int64_t padBottom, int64_t padLeft, int64_t padRight) {
  const int64_t maxPad = (KH - 1) / 2;
  auto padOk = [&](int64_t p) { return p >= 0 && p <= maxPad; };
  return (KH == 3 || KH == 5) && KW == KH && strideH == strideW && (strideH == 1 || strideH == 2) &&
         dilationH == 1 && dilationW == 1 && padOk(padTop) && padOk(padBottom) && padOk(padLeft) && padOk(padRight);
}

namespace {

// Output pixels [ow0, ow0 + T) of one row, channels [c0, c0 + 16 V) (lanes
// past the mask `m` untouched; V is 1 when masked), for a KS x KS filter.
// `rows[k]` is input row oh * S - padTop + k, or a row of zeros when it is
// padding (a branch there made GCC keep the accumulators on the stack).
// Each input vector the tile needs is loaded once per row into a register
// (a zero vector for a padding column). T x V independent accumulators hide
// the FMA latency (one pixel's KS^2 FMAs form a chain: short rows take V
// channel vectors at once).
template <int KS, int S, int T, int V, bool Full>
__attribute__((always_inline)) inline void tile(const Depthwise3x3 &p, const float *const *rows, float *yrow,
                                                int64_t ow0, int64_t c0, __mmask16 m) {
  const int64_t C = p.C;
  auto load = [&](const float *a) { return Full ? _mm512_loadu_ps(a) : _mm512_maskz_loadu_ps(m, a); };
  __m512 acc[T][V];
  for (int v = 0; v < V; ++v) {
    const __m512 b = p.bias ? load(p.bias + c0 + 16 * v) : _mm512_setzero_ps();
    for (int t = 0; t < T; ++t) acc[t][v] = b;
  }
  constexpr int kIn = (T - 1) * S + KS;  // input columns the tile reads
  const int64_t iw0 = ow0 * S - p.padLeft;
  const bool inside = iw0 >= 0 && iw0 + kIn <= p.W;
  for (int k = 0; k < KS; ++k) {
    for (int v = 0; v < V; ++v) {
      const float *r = rows[k] + iw0 * C + c0 + 16 * v;
      __m512 w[KS], xin[kIn];
      for (int j = 0; j < KS; ++j) w[j] = load(p.filter + (k * KS + j) * C + c0 + 16 * v);
      for (int i = 0; i < kIn; ++i)
        xin[i] = inside || (iw0 + i >= 0 && iw0 + i < p.W) ? load(r + i * C) : _mm512_setzero_ps();
      for (int j = 0; j < KS; ++j)
        for (int t = 0; t < T; ++t) acc[t][v] = _mm512_fmadd_ps(xin[t * S + j], w[j], acc[t][v]);
    }
  }
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < V; ++v) {
      __m512 y = _mm512_min_ps(_mm512_max_ps(acc[t][v], lo), hi);
      float *out = yrow + (ow0 + t) * C + c0 + 16 * v;
      if (Full) _mm512_storeu_ps(out, y);
      else _mm512_mask_storeu_ps(out, m, y);
    }
}

// Pixels [ow0, ow0 + T), channels [c0, c1): V vectors at a time, then
// single vectors, then the masked tail.
template <int KS, int S, int T, int V>
inline void pixels(const Depthwise3x3 &p, const float *const *rows, float *yrow, int64_t ow0, int64_t c0,
                   int64_t c1) {
  for (; c0 + 16 * V <= c1; c0 += 16 * V) tile<KS, S, T, V, true>(p, rows, yrow, ow0, c0, 0xFFFF);
  if (V > 1)
    for (; c0 + 16 <= c1; c0 += 16) tile<KS, S, T, 1, true>(p, rows, yrow, ow0, c0, 0xFFFF);
  if (c0 < c1) tile<KS, S, T, 1, false>(p, rows, yrow, ow0, c0, __mmask16((1u << (c1 - c0)) - 1));
}

// One output row from its KS input rows, channels [c0, c1).
template <int KS, int S>
void rowImpl(const Depthwise3x3 &p, const float *const *rows, float *yrow, int64_t c0, int64_t c1) {
  // 3x3: stride 1 reads 10 input vectors for 8 pixels; stride 2 needs 17
  // for 8, more registers than are free, so it tiles 4 pixels x 2 vectors.
  // 5x5: 12 and 11 input vectors, 5 filter vectors, 8 accumulators.
  constexpr int T = S == 1 ? 8 : 4, TV = S == 1 ? 1 : 2;
  int64_t ow = 0;
  for (; ow + T <= p.OW; ow += T) pixels<KS, S, T, TV>(p, rows, yrow, ow, c0, c1);
  if (T > 4 && ow + 4 <= p.OW) pixels<KS, S, 4, 2>(p, rows, yrow, ow, c0, c1), ow += 4;
  if (ow + 2 <= p.OW) pixels<KS, S, 2, 2>(p, rows, yrow, ow, c0, c1), ow += 2;
  if (ow < p.OW) pixels<KS, S, 1, 4>(p, rows, yrow, ow, c0, c1);
}

// 3x3 stride 1, two output rows at once: pixels [ow0, ow0 + T) of output
// rows oh and oh + 1 from the four input rows they read (`rows`), channels
// [c0, c0 + 16) (masked by `m` unless Full). The nine filter vectors stay
// in registers; each input vector is loaded once for both rows, so an input
// past L1 is read from L2 twice per row instead of three times.
template <int T, bool Full>
__attribute__((always_inline)) inline void tile2(const Depthwise3x3 &p, const float *const *rows, float *y0,
                                                 float *y1, int64_t ow0, int64_t c0, __mmask16 m) {
  const int64_t C = p.C;
  auto load = [&](const float *a) { return Full ? _mm512_loadu_ps(a) : _mm512_maskz_loadu_ps(m, a); };
  __m512 w[9];
  for (int j = 0; j < 9; ++j) w[j] = load(p.filter + j * C + c0);
  const __m512 b = p.bias ? load(p.bias + c0) : _mm512_setzero_ps();
  __m512 a0[T], a1[T];
  for (int t = 0; t < T; ++t) a0[t] = a1[t] = b;
  constexpr int kIn = T + 2;
  const int64_t iw0 = ow0 - p.padLeft;
  const bool inside = iw0 >= 0 && iw0 + kIn <= p.W;
  // Unrolled: the filter vectors are then indexed by constants and stay
  // in registers.
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const float *r = rows[k] + iw0 * C + c0;
    __m512 xin[kIn];
    for (int i = 0; i < kIn; ++i)
      xin[i] = inside || (iw0 + i >= 0 && iw0 + i < p.W) ? load(r + i * C) : _mm512_setzero_ps();
    for (int j = 0; j < 3; ++j)
      for (int t = 0; t < T; ++t) {
        if (k < 3) a0[t] = _mm512_fmadd_ps(xin[t + j], w[k * 3 + j], a0[t]);
        if (k > 0) a1[t] = _mm512_fmadd_ps(xin[t + j], w[(k - 1) * 3 + j], a1[t]);
      }
  }
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  for (int t = 0; t < T; ++t) {
    const __m512 v0 = _mm512_min_ps(_mm512_max_ps(a0[t], lo), hi);
    const __m512 v1 = _mm512_min_ps(_mm512_max_ps(a1[t], lo), hi);
    float *o0 = y0 + (ow0 + t) * C + c0, *o1 = y1 + (ow0 + t) * C + c0;
    if (Full) _mm512_storeu_ps(o0, v0), _mm512_storeu_ps(o1, v1);
    else _mm512_mask_storeu_ps(o0, m, v0), _mm512_mask_storeu_ps(o1, m, v1);
  }
}

template <int T>
inline void pixels2(const Depthwise3x3 &p, const float *const *rows, float *y0, float *y1, int64_t ow0,
                    int64_t c0, int64_t c1) {
  for (; c0 + 16 <= c1; c0 += 16) tile2<T, true>(p, rows, y0, y1, ow0, c0, 0xFFFF);
  if (c0 < c1) tile2<T, false>(p, rows, y0, y1, ow0, c0, __mmask16((1u << (c1 - c0)) - 1));
}

// Output rows oh and oh + 1 (3x3, stride 1) from input rows oh - padTop to
// oh - padTop + 3, channels [c0, c1).
void rowPair3x3(const Depthwise3x3 &p, const float *const *rows, float *y0, float *y1, int64_t c0, int64_t c1) {
  int64_t ow = 0;
  for (; ow + 4 <= p.OW; ow += 4) pixels2<4>(p, rows, y0, y1, ow, c0, c1);
  if (ow + 2 <= p.OW) pixels2<2>(p, rows, y0, y1, ow, c0, c1), ow += 2;
  if (ow < p.OW) pixels2<1>(p, rows, y0, y1, ow, c0, c1);
}

const float *zeroRow(int64_t floats) {
  thread_local std::vector<float> zeros;
  if (zeros.size() < size_t(floats)) zeros.assign(size_t(floats), 0.f);
  return zeros.data();
}

template <int KS, int S>
void rowsImpl(const Depthwise3x3 &p, const float *x, float *y, int64_t oh0, int64_t oh1, int64_t cBegin,
              int64_t cEnd) {
  const int64_t C = p.C;
  // Padding rows read zeros (one row per thread, grown as needed).
  const float *zeros = zeroRow(p.W * C);
  // An input that fits in L2 is done in channel chunks whose KS input rows
  // fit in ~24 KB of L1, so the rows one output row reads are still there
  // for the next: deep, narrow layers (7x7x960) would otherwise re-read
  // every input row from L2 KS times. A larger input is read in one
  // pass over all channels (a second pass would stream it from L3 again).
  // 5x5 reads each input row five times, so it is chunked up to 1 MiB; 3x3
  // layers keep 512 KiB (both measured: docs/PERFORMANCE.md, mobile nets).
  const bool l2Resident = p.H * p.W * C * 4 <= ((KS == 5 ? 1024 : 512) << 10);
  const int64_t chunk = l2Resident ? std::min(C, std::max<int64_t>(64, (24576 / (4 * KS * p.W)) / 16 * 16)) : C;
  for (int64_t c0 = cBegin; c0 < cEnd; c0 += chunk) {
    const int64_t c1 = std::min(cEnd, c0 + chunk);
    int64_t oh = oh0;
    // 3x3 stride 1: pairs of output rows share their input loads (four
    // input rows for two output rows, the filter in registers).
    if (KS == 3 && S == 1)
      for (; oh + 2 <= oh1; oh += 2) {
        const float *rows[4];
        for (int k = 0; k < 4; ++k) {
          int64_t ih = oh - p.padTop + k;
          rows[k] = ih >= 0 && ih < p.H ? x + ih * p.W * C : zeros;
        }
        rowPair3x3(p, rows, y + oh * p.OW * C, y + (oh + 1) * p.OW * C, c0, c1);
      }
    for (; oh < oh1; ++oh) {
      const float *rows[KS];
      for (int k = 0; k < KS; ++k) {
        int64_t ih = oh * S - p.padTop + k;
        rows[k] = ih >= 0 && ih < p.H ? x + ih * p.W * C : zeros;
      }
      rowImpl<KS, S>(p, rows, y + oh * p.OW * C, c0, c1);
    }
  }
}

}  // namespace

void depthwise3x3Avx512Row(const Depthwise3x3 &p, const float *const rows[3], float *yrow, int64_t c0, int64_t c1) {
  if (c1 < 0) c1 = p.C;
  const float *padded[3];
  for (int k = 0; k < 3; ++k) padded[k] = rows[k] ? rows[k] : zeroRow(p.W * p.C);
  if (p.stride == 1) rowImpl<3, 1>(p, padded, yrow, c0, c1);
  else rowImpl<3, 2>(p, padded, yrow, c0, c1);
}

void depthwise3x3Avx512(const Depthwise3x3 &p, const float *x, float *y, int64_t oh0, int64_t oh1, int64_t c0,
                        int64_t c1) {
  if (c1 < 0) c1 = p.C;
  if (p.ks == 5) {
    if (p.stride == 1) rowsImpl<5, 1>(p, x, y, oh0, oh1, c0, c1);
    else rowsImpl<5, 2>(p, x, y, oh0, oh1, c0, c1);
  } else if (p.stride == 1) {
    rowsImpl<3, 1>(p, x, y, oh0, oh1, c0, c1);
  } else {
    rowsImpl<3, 2>(p, x, y, oh0, oh1, c0, c1);
  }
}

}  // namespace webnn::cpu::kernels

#else  // not x86-64: avx512Available() is false, these never run

#include "runtime/backends/cpu/kernels/Depthwise.h"

namespace webnn::cpu::kernels {
bool depthwise3x3Supported(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t) {
  return false;
}
void depthwise3x3Avx512(const Depthwise3x3 &, const float *, float *, int64_t, int64_t, int64_t, int64_t) {}
void depthwise3x3Avx512Row(const Depthwise3x3 &, const float *const[3], float *, int64_t, int64_t) {}
}  // namespace webnn::cpu::kernels

#endif
