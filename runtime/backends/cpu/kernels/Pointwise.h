// Pointwise (1x1) products with a short reduction, in AVX-512: y[m][n] =
// clamp(bias[n] + sum_k x[m][k] w[k][n] + residual[m][n]) for row-major x
// [M][K], w [K][N], y and residual [M][N]. The filter is read from L1 (K x N
// floats of a short 1x1 convolution fit), so the product runs from
// registers: 8 rows x 48 columns per tile, 8 x 32 or 8 x 16 for the last
// columns (a narrow layer computes no padding columns); rows go in blocks
// of 16 through every column panel.
//
// Used by the expand + depthwise pair (PointwiseDepthwise.h) and by 1x1
// convolutions with few output channels or a residual (conv/PointwiseNarrowConv.cpp),
// where oneDNN 2.6's brgconv_1x1 runs MobileNetV2's projections at about
// two thirds of the FMA peak and pays a separate pass for a residual sum.
// AVX-512 code in PointwiseAvx512.cpp, used only when avx512Available().
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_POINTWISE_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_POINTWISE_H

#include <cstdint>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

struct PointwiseProduct {
  int64_t K = 0, N = 0;
  const float *filter = nullptr;  // [K][N]
  const float *bias = nullptr;    // [N] or null
  float lo = -__builtin_inff(), hi = __builtin_inff();
  // SiLU (x * sigmoid(x)) after the clamp, over each block of rows while
  // it is in L1: an expand layer's output is not read back from L2/L3 for
  // a pass of its own.
  bool silu = false;
  // Floats between y's rows: a concat slice's pitch; 0: N (dense). Not
  // with silu (its pass runs over dense rows).
  int64_t ldy = 0;
};

// Rows [0, M) of y from x; residual (same layout as y) or null.
void pointwiseRowsAvx512(const PointwiseProduct &p, const float *x, int64_t M, float *y,
                         const float *residual = nullptr);

// The same over ctx's pool, in tiles of 8 rows, each thread's share at least
// ~100k FLOPs (a hand-off costs microseconds). Defined beside the narrow
// 1x1 kernel (conv/PointwiseNarrowConv.cpp).
void pointwiseRowsParallel(const KernelContext &ctx, const PointwiseProduct &p, const float *x, int64_t M, float *y,
                           const float *residual = nullptr);

// Whether the conv2d family's table gives 1x1 layers with at most 32
// output channels, or short ones with a residual, to these tiles
// (conv/PointwiseNarrowConv.cpp). Process-wide; on unless
// WEBNN_POINTWISE_NARROW=0 (DebugOptions.h). Tests switch it; kernels
// already made keep their choice.
bool pointwiseNarrowEnabled();
void setPointwiseNarrowEnabled(bool enabled);

}  // namespace webnn::cpu::kernels

#endif
