// Packed-B float32 GEMM (PackedSgemm.h). The packing is plain C++; the
// product is compiled for AVX-512F by the pragma and runs only when
// avx512Available() said so.
#include <algorithm>
#include <cstring>

#include "runtime/backends/cpu/kernels/PackedSgemm.h"

namespace webnn::cpu::kernels {

PackedSgemmB::PackedSgemmB(int64_t K, int64_t N) : K_(K), N_(N) {
  // Up to 1024 rows the whole of K is one block (a 8 x K slice of A and the
  // 48-column panel stream from L2); beyond, equal blocks of at most 768,
  // so a block of A rows (256 x 768 floats) and two B blocks fit the 2 MB L2.
  int64_t blocks = K <= 1024 ? 1 : (K + 767) / 768;
  kc_ = std::max<int64_t>(1, (K + blocks - 1) / blocks);
  panels_ = (N + kPanel - 1) / kPanel;
}

std::string PackedSgemmB::layoutName() const {
  return "webnn.sgemm_b48.kc" + std::to_string(kc_) + "." + std::to_string(K_) + "x" + std::to_string(N_);
}

void PackedSgemmB::pack(const float *b, int64_t kStride, int64_t nStride, float *dst) const {
  for (int64_t k0 = 0; k0 < K_; k0 += kc_) {
    int64_t kc = std::min(kc_, K_ - k0);
    for (int64_t p = 0; p < panels_; ++p) {
      int64_t n0 = p * kPanel, cols = std::min(kPanel, N_ - n0);
      for (int64_t k = k0; k < k0 + kc; ++k) {
        const float *row = b + k * kStride + n0 * nStride;
        for (int64_t j = 0; j < cols; ++j) dst[j] = row[j * nStride];
        std::fill(dst + cols, dst + kPanel, 0.f);
        dst += kPanel;
      }
    }
  }
}

}  // namespace webnn::cpu::kernels

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kPanel = PackedSgemmB::kPanel;

// R rows x 48 columns of y += (or =) a[R x kc] * block[kc x 48]. Masks
// cover a last panel narrower than 48. `prefetch` lines (64 B) from `pf` go
// to L2 spread over the loop: this tile's share of the next B block.
template <int R>
inline void tile(const float *a, int64_t lda, const float *block, int64_t kc, float *y, int64_t ldy, bool accumulate,
                 __mmask16 m0, __mmask16 m1, __mmask16 m2, const char *pf, int64_t prefetch) {
  __m512 c[R][3];
  if (accumulate) {
    for (int r = 0; r < R; ++r) {
      c[r][0] = _mm512_maskz_loadu_ps(m0, y + r * ldy);
      c[r][1] = _mm512_maskz_loadu_ps(m1, y + r * ldy + 16);
      c[r][2] = _mm512_maskz_loadu_ps(m2, y + r * ldy + 32);
    }
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
  int64_t groups = kc / 4;
  int64_t every = prefetch > 0 ? std::max<int64_t>(1, (groups + prefetch - 1) / prefetch) : groups + 1;
  int64_t countdown = every, k = 0;
  for (; k + 4 <= kc; k += 4) {
    if (--countdown == 0) {
      countdown = every;
      if (prefetch > 0) {
        _mm_prefetch(pf, _MM_HINT_T1);
        pf += 64;
        --prefetch;
      }
    }
    step(k);
    step(k + 1);
    step(k + 2);
    step(k + 3);
  }
  for (; k < kc; ++k) step(k);
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(y + r * ldy, m0, c[r][0]);
    _mm512_mask_storeu_ps(y + r * ldy + 16, m1, c[r][1]);
    _mm512_mask_storeu_ps(y + r * ldy + 32, m2, c[r][2]);
  }
}

using TileFn = void (*)(const float *, int64_t, const float *, int64_t, float *, int64_t, bool, __mmask16, __mmask16,
                        __mmask16, const char *, int64_t);
constexpr TileFn kTiles[PackedSgemmB::kTileRows + 1] = {nullptr,  &tile<1>, &tile<2>, &tile<3>, &tile<4>,
                                                          &tile<5>, &tile<6>, &tile<7>, &tile<8>};

__mmask16 columnMask(int64_t cols) { return cols >= 16 ? __mmask16(0xffff) : __mmask16((1u << std::max<int64_t>(cols, 0)) - 1); }

}  // namespace

void packedSgemmAvx512(const PackedSgemmB &b, const float *packedB, int64_t M, const float *a, int64_t lda, float *y,
                       int64_t ldy, const SgemmEpilogue &ep, int64_t panel0, int64_t panel1) {
  const int64_t K = b.K(), N = b.N(), kcMax = b.kc(), panels = b.panels();
  const bool epilogue = ep.bias || ep.residual || ep.act != Activation::kNone || ep.alpha != 1.f;
  auto blockOf = [&](int64_t k0, int64_t p) {  // start of panel p in the k-block at row k0
    return packedB + k0 * panels * kPanel + p * std::min(kcMax, K - k0) * kPanel;
  };
  for (int64_t m0 = 0; m0 < M; m0 += PackedSgemmB::kRowChunk) {
    const int64_t rows = std::min(PackedSgemmB::kRowChunk, M - m0);
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
        } else if (m0 + rows < M) {
          next = blockOf(0, panel0);
          nextK = std::min(kcMax, K);
        }
        const int64_t lines = next ? nextK * kPanel * int64_t(sizeof(float)) / 64 : 0;
        const int64_t share = (lines + tiles - 1) / tiles;
        const float *block = blockOf(k0, p);
        const int64_t n0 = p * kPanel, cols = std::min(kPanel, N - n0);
        const __mmask16 mk0 = columnMask(cols), mk1 = columnMask(cols - 16), mk2 = columnMask(cols - 32);
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t r0 = m0 + t * PackedSgemmB::kTileRows;
          const int64_t r = std::min(PackedSgemmB::kTileRows, M - r0);
          const int64_t first = std::min(lines, t * share);
          const int64_t count = std::min(lines, first + share) - first;
          float *yt = y + r0 * ldy + n0;
          kTiles[r](a + r0 * lda + k0, lda, block, kc, yt, ldy, k0 > 0, mk0, mk1, mk2,
                    next ? reinterpret_cast<const char *>(next) + first * 64 : nullptr, count);
          if (last && epilogue)
            for (int64_t i = 0; i < r; ++i)
              epilogueRows(yt + i * ldy, 1, cols, ep.bias ? ep.bias + n0 : nullptr,
                           ep.residual ? ep.residual + (r0 + i) * N + n0 : nullptr, ep.act, ep.alpha);
        }
      }
    }
  }
}

}  // namespace webnn::cpu::kernels

#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs

namespace webnn::cpu::kernels {
void packedSgemmAvx512(const PackedSgemmB &, const float *, int64_t, const float *, int64_t, float *, int64_t,
                       const SgemmEpilogue &, int64_t, int64_t) {}
}  // namespace webnn::cpu::kernels

#endif
