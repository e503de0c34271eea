// The channel affine + 1x1 convolution pair's AVX-512 loops
// (AffinePointwisePair.cpp, AffinePointwiseAvx512.cpp).
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_CONV_AFFINEPOINTWISE_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_CONV_AFFINEPOINTWISE_H

#include <cstdint>

namespace webnn::cpu::kernels {

// A [K][O] 1x1 filter (O a multiple of 16) as column blocks of 64:
// [O / 64 rounded up][K][64], zero past O, 64-byte aligned; and the
// epilogue: + bias[o] (null: none), then clamp to [lo, hi].
struct AffinePointwiseFilter {
  static constexpr int64_t kBlockColumns = 64;
  int64_t K = 0, O = 0;
  const float *packed = nullptr;
  const float *bias = nullptr;
  float lo = 0.f, hi = 0.f;
  const float *blocks() const { return packed; }
  int64_t blockCount() const { return (O + kBlockColumns - 1) / kBlockColumns; }
};

// dst[r][c] (rows of C floats, dense) = clamp(x[r * xPitch + c] * mul[c] + add[c], lo, hi).
void affineRowsAvx512(const float *x, int64_t xPitch, int64_t rows, int64_t C, const float *mul, const float *add,
                      float lo, float hi, float *dst);
// y rows [0, rows) (pitch ldy), columns of blocks [block0, block1) =
// epilogue(a[rows][K] (pitch lda) * filter).
void pointwiseBlocksAvx512(const AffinePointwiseFilter &f, const float *a, int64_t lda, int64_t rows, float *y,
                           int64_t ldy, int64_t block0, int64_t block1);

}  // namespace webnn::cpu::kernels

#endif
