#include "runtime/backends/cpu/kernels/Sgemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "runtime/backends/cpu/kernels/Common.h"

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kMR = 6;
constexpr int64_t kNR = 16;
constexpr int64_t kKC = 256;
constexpr int64_t kNC = 256;  // columns per task (16 panels)
constexpr int64_t kMC = 96;   // rows per task when splitting M

// Packs B[k0:k0+kc, n0:n0+nc] into ceil(nc/16) panels of kc x 16, zero padded.
void packB(const MatrixView &B, int64_t k0, int64_t kc, int64_t n0, int64_t nc, float *dst) {
  for (int64_t p = 0; p < nc; p += kNR) {
    int64_t w = std::min(kNR, nc - p);
    float *panel = dst + (p / kNR) * kc * kNR;
    for (int64_t k = 0; k < kc; ++k) {
      float *row = panel + k * kNR;
      const float *src = B.data + (k0 + k) * B.rowStride + (n0 + p) * B.colStride;
      if (B.colStride == 1) {
        std::memcpy(row, src, size_t(w) * sizeof(float));
      } else {
        for (int64_t j = 0; j < w; ++j) row[j] = src[j * B.colStride];
      }
      for (int64_t j = w; j < kNR; ++j) row[j] = 0.f;
    }
  }
}

// rows x 16 block of C from kc steps; only the first `w` columns are stored.
// Explicit AVX2/FMA: GCC's auto-vectorizer turns the plain loop nest into
// shuffles and stack spills (measured ~2 GFLOP/s); 2*kRows ymm accumulators
// stay in registers here.
template <int kRows>
void microKernel(int64_t kc, const float *a, int64_t ars, int64_t acs, const float *panel, float *c, int64_t ldc,
                 int64_t w, bool accumulate) {
#if defined(__AVX2__) && defined(__FMA__)
  __m256 lo[kRows], hi[kRows];
  for (int r = 0; r < kRows; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    __m256 b0 = _mm256_loadu_ps(panel + k * kNR), b1 = _mm256_loadu_ps(panel + k * kNR + 8);
    const float *ak = a + k * acs;
    for (int r = 0; r < kRows; ++r) {
      __m256 av = _mm256_broadcast_ss(ak + r * ars);
      lo[r] = _mm256_fmadd_ps(av, b0, lo[r]);
      hi[r] = _mm256_fmadd_ps(av, b1, hi[r]);
    }
  }
  alignas(32) float acc[kRows][kNR];
  for (int r = 0; r < kRows; ++r) {
    if (w == kNR) {
      float *cr = c + r * ldc;
      if (accumulate) {
        lo[r] = _mm256_add_ps(lo[r], _mm256_loadu_ps(cr));
        hi[r] = _mm256_add_ps(hi[r], _mm256_loadu_ps(cr + 8));
      }
      _mm256_storeu_ps(cr, lo[r]);
      _mm256_storeu_ps(cr + 8, hi[r]);
      continue;
    }
    _mm256_store_ps(acc[r], lo[r]);
    _mm256_store_ps(acc[r] + 8, hi[r]);
  }
  if (w == kNR) return;
#else
  float acc[kRows][kNR];
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kNR; ++j) acc[r][j] = 0.f;
  for (int64_t k = 0; k < kc; ++k) {
    const float *b = panel + k * kNR;
    for (int r = 0; r < kRows; ++r) {
      float av = a[r * ars + k * acs];
      for (int j = 0; j < kNR; ++j) acc[r][j] += av * b[j];
    }
  }
#endif
  for (int r = 0; r < kRows; ++r) {
    float *cr = c + r * ldc;
    if (accumulate) {
      for (int64_t j = 0; j < w; ++j) cr[j] += acc[r][j];
    } else {
      for (int64_t j = 0; j < w; ++j) cr[j] = acc[r][j];
    }
  }
}

void microDispatch(int64_t rows, int64_t kc, const float *a, int64_t ars, int64_t acs, const float *panel, float *c,
                   int64_t ldc, int64_t w, bool accumulate) {
  switch (rows) {
    case 6: microKernel<6>(kc, a, ars, acs, panel, c, ldc, w, accumulate); break;
    case 5: microKernel<5>(kc, a, ars, acs, panel, c, ldc, w, accumulate); break;
    case 4: microKernel<4>(kc, a, ars, acs, panel, c, ldc, w, accumulate); break;
    case 3: microKernel<3>(kc, a, ars, acs, panel, c, ldc, w, accumulate); break;
    case 2: microKernel<2>(kc, a, ars, acs, panel, c, ldc, w, accumulate); break;
    default: microKernel<1>(kc, a, ars, acs, panel, c, ldc, w, accumulate); break;
  }
}

// Packing buffer per thread, grown once to the largest block seen; reused by
// every later call, so steady-state runs do not allocate.
float *packBuffer(size_t floats) {
  thread_local std::vector<float> buf;
  if (buf.size() < floats) buf.resize(floats);
  return buf.data();
}

}  // namespace

void sgemm(int64_t M, int64_t N, int64_t K, MatrixView A, MatrixView B, float *C, int64_t ldc, bool accumulate,
           const KernelContext &ctx) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int64_t m = 0; m < M; ++m) std::fill(C + m * ldc, C + m * ldc + N, 0.f);
    return;
  }
  int64_t nBlocks = (N + kNC - 1) / kNC;
  int64_t mBlocks = (M + kMC - 1) / kMC;
  int64_t tasks = nBlocks * mBlocks;
  // Roughly 2*64K flops per grain unit keeps dispatch overhead negligible.
  int64_t grain = std::max<int64_t>(1, (1 << 17) / std::max<int64_t>(1, std::min(M, kMC) * std::min(N, kNC) * K));
  parallelFor(ctx, tasks, grain, [&](int64_t tb, int64_t te) {
    float *packed = packBuffer(size_t(kKC * kNC));
    for (int64_t t = tb; t < te; ++t) {
      int64_t nb = t / mBlocks, mb = t % mBlocks;
      int64_t n0 = nb * kNC, nc = std::min(kNC, N - n0);
      int64_t m0 = mb * kMC, mc = std::min(kMC, M - m0);
      for (int64_t k0 = 0; k0 < K; k0 += kKC) {
        int64_t kc = std::min(kKC, K - k0);
        packB(B, k0, kc, n0, nc, packed);
        bool acc = accumulate || k0 > 0;
        for (int64_t m = m0; m < m0 + mc; m += kMR) {
          int64_t rows = std::min(kMR, m0 + mc - m);
          const float *a = A.data + m * A.rowStride + k0 * A.colStride;
          for (int64_t p = 0; p < nc; p += kNR) {
            int64_t w = std::min(kNR, nc - p);
            microDispatch(rows, kc, a, A.rowStride, A.colStride, packed + (p / kNR) * kc * kNR,
                          C + m * ldc + n0 + p, ldc, w, acc);
          }
        }
      }
    }
  });
}

}  // namespace webnn::cpu::kernels
