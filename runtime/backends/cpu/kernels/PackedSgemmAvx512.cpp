// The packed-B float32 GEMM's product (PackedSgemm.h), compiled for
// AVX-512F by the pragma; runs only when avx512Available() said so.
#include <algorithm>

#include "runtime/backends/cpu/kernels/PackedSgemm.h"

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kPanel = PackedSgemmB::kPanel;

// The epilogue of a tile's last k-block, applied in registers, gelu
// included (its erf is one rational function, TransformerSimdImpl.inc).
struct TileEpilogue {
  const SgemmEpilogue *ep;
  const float *bias;      // at the panel's first column, or null
  const float *residual;  // at the tile's first row and column, or null
};

// R rows x 48 columns of y += (or =) a[R x kc] * block[kc x 48]. Masks
// cover a last panel narrower than 48. `prefetch` lines (64 B) from `pf` go
// to L2 spread over the loop: this tile's share of the next B block. `init`
// (row stride ldy, or null): the sums start from it instead of zero.
template <int R>
inline void tile(const float *a, int64_t lda, const float *block, int64_t kc, float *y, int64_t ldy, bool accumulate,
                 const __mmask16 *mask, const char *pf, int64_t prefetch, const TileEpilogue *epi,
                 const float *init) {
  __m512 c[R][3];
  if (accumulate || init) {
    const float *from = accumulate ? y : init;
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 3; ++j) c[r][j] = _mm512_maskz_loadu_ps(mask[j], from + r * ldy + 16 * j);
  } else {
    for (int r = 0; r < R; ++r) c[r][0] = c[r][1] = c[r][2] = _mm512_setzero_ps();
  }
  auto step = [&](int64_t k) {
    const float *bk = block + k * kPanel;
    __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16), b2 = _mm512_loadu_ps(bk + 32);
    for (int r = 0; r < R; ++r) {
      __m512 av = _mm512_set1_ps(a[r * lda + k]);
      c[r][0] = _mm512_fmadd_ps(av, b0, c[r][0]);
      c[r][1] = _mm512_fmadd_ps(av, b1, c[r][1]);
      c[r][2] = _mm512_fmadd_ps(av, b2, c[r][2]);
    }
  };
  // `burst` lines every `every` groups of 4 k-steps: few rows of A (short
  // tiles loops) leave more lines per tile than groups.
  const int64_t groups = std::max<int64_t>(1, kc / 4);
  const int64_t burst = (prefetch + groups - 1) / groups;
  const int64_t every = prefetch > 0 ? std::max<int64_t>(1, groups * burst / prefetch) : groups + 1;
  int64_t countdown = every, k = 0;
  for (; k + 4 <= kc; k += 4) {
    if (--countdown == 0) {
      countdown = every;
      for (int64_t i = 0; i < burst && prefetch > 0; ++i, --prefetch, pf += 64) _mm_prefetch(pf, _MM_HINT_T1);
    }
    step(k);
    step(k + 1);
    step(k + 2);
    step(k + 3);
  }
  for (; k < kc; ++k) step(k);
  if (epi) {
    const SgemmEpilogue &ep = *epi->ep;
    const __m512 alpha = _mm512_set1_ps(ep.alpha), lo = _mm512_set1_ps(ep.lo), hi = _mm512_set1_ps(ep.hi);
    const bool relu = ep.act == Activation::kRelu, clamp = ep.lo > -__builtin_inff() || ep.hi < __builtin_inff();
    const bool gelu = ep.act == Activation::kGelu;
    for (int j = 0; j < 3; ++j) {
      const __m512 bias = epi->bias ? _mm512_maskz_loadu_ps(mask[j], epi->bias + 16 * j) : _mm512_setzero_ps();
      for (int r = 0; r < R; ++r) {
        __m512 v = ep.alpha != 1.f ? _mm512_mul_ps(c[r][j], alpha) : c[r][j];
        v = _mm512_add_ps(v, bias);
        if (epi->residual) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask[j], epi->residual + r * ldy + 16 * j));
        if (relu) v = _mm512_max_ps(v, _mm512_setzero_ps());
        if (clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
        if (gelu) v = __m512(avx512::simd::gelu(avx512::simd::VF(v)));
        c[r][j] = v;
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 3; ++j) _mm512_mask_storeu_ps(y + r * ldy + 16 * j, mask[j], c[r][j]);
}

using TileFn = void (*)(const float *, int64_t, const float *, int64_t, float *, int64_t, bool, const __mmask16 *,
                        const char *, int64_t, const TileEpilogue *, const float *);
constexpr TileFn kTiles[PackedSgemmB::kTileRows + 1] = {nullptr,  &tile<1>, &tile<2>, &tile<3>, &tile<4>,
                                                          &tile<5>, &tile<6>, &tile<7>, &tile<8>};

__mmask16 columnMask(int64_t cols) {
  return cols >= 16 ? __mmask16(0xffff) : __mmask16((1u << std::max<int64_t>(cols, 0)) - 1);
}

}  // namespace

void packedSgemmAvx512(const PackedSgemmB &b, const float *packedB, const float *a, int64_t lda, float *y,
                       int64_t ldy, const SgemmEpilogue &ep, int64_t row0, int64_t row1, int64_t panel0,
                       int64_t panel1, int64_t nextPanel) {
  const int64_t K = b.K(), N = b.N(), kcMax = b.kc(), panels = b.panels();
  // Over several k-blocks, the first stores partial sums into y before the
  // last would read the residual: the sums start from it instead, so y may
  // be the residual's own bytes (residualReadFirst). With alpha it stays in
  // the epilogue (alpha scales the product only).
  const bool residualFirst = ep.residual && K > kcMax && ep.alpha == 1.f;
  const bool epilogue = (ep.residual && !residualFirst) || ep.bias || ep.act != Activation::kNone ||
                        ep.alpha != 1.f || ep.lo > -__builtin_inff() || ep.hi < __builtin_inff();
  auto blockOf = [&](int64_t k0, int64_t p) {  // start of panel p in the k-block at row k0
    return packedB + k0 * panels * kPanel + p * std::min(kcMax, K - k0) * kPanel;
  };
  for (int64_t m0 = row0; m0 < row1; m0 += PackedSgemmB::kRowChunk) {
    const int64_t rows = std::min(PackedSgemmB::kRowChunk, row1 - m0);
    const int64_t tiles = (rows + PackedSgemmB::kTileRows - 1) / PackedSgemmB::kTileRows;
    for (int64_t k0 = 0; k0 < K; k0 += kcMax) {
      const int64_t kc = std::min(kcMax, K - k0);
      const bool last = k0 + kc >= K;
      for (int64_t p = panel0; p < panel1; ++p) {
        // The block this thread reads next, in its own walk.
        const float *next = nullptr;
        int64_t nextK = kc;
        if (p + 1 < panel1) {
          next = blockOf(k0, p + 1);
        } else if (!last) {
          next = blockOf(k0 + kc, panel0);
          nextK = std::min(kcMax, K - k0 - kc);
        } else if (m0 + rows < row1) {
          next = blockOf(0, panel0);
          nextK = std::min(kcMax, K);
        } else if (nextPanel >= 0 && nextPanel < panels) {
          next = blockOf(0, nextPanel);
          nextK = std::min(kcMax, K);
        }
        const int64_t lines = next ? nextK * kPanel * int64_t(sizeof(float)) / 64 : 0;
        const int64_t share = (lines + tiles - 1) / tiles;
        const float *block = blockOf(k0, p);
        const int64_t n0 = p * kPanel, cols = std::min(kPanel, N - n0);
        const __mmask16 mask[3] = {columnMask(cols), columnMask(cols - 16), columnMask(cols - 32)};
        // Rows spread evenly over the tiles (49 = 7 x 7, not 6 x 8 + 1):
        // a 1-row tile costs nearly what an 8-row one does.
        const int64_t base = rows / tiles, extra = rows % tiles;
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t r0 = m0 + t * base + std::min(t, extra);
          const int64_t r = base + (t < extra ? 1 : 0);
          const int64_t first = std::min(lines, t * share);
          const int64_t count = std::min(lines, first + share) - first;
          float *yt = y + r0 * ldy + n0;
          const float *residual = ep.residual ? ep.residual + r0 * ldy + n0 : nullptr;
          TileEpilogue epi{&ep, ep.bias ? ep.bias + n0 : nullptr, residualFirst ? nullptr : residual};
          kTiles[r](a + r0 * lda + k0, lda, block, kc, yt, ldy, k0 > 0, mask,
                    next ? reinterpret_cast<const char *>(next) + first * 64 : nullptr, count,
                    last && epilogue ? &epi : nullptr, residualFirst && k0 == 0 ? residual : nullptr);
        }
      }
    }
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void packedSgemmAvx512(const PackedSgemmB &, const float *, const float *, int64_t, float *, int64_t,
                       const SgemmEpilogue &, int64_t, int64_t, int64_t, int64_t, int64_t) {}
}  // namespace webnn::cpu::kernels

#endif
