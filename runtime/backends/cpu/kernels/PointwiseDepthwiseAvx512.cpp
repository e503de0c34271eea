// The fused 1x1 + depthwise 3x3 convolution (PointwiseDepthwise.h): a
// driver over the AVX-512 row kernels of Pointwise.h and Depthwise.h; runs
// only when avx512Available().
#include <algorithm>

#include "runtime/backends/cpu/kernels/PointwiseDepthwise.h"
#include "runtime/backends/cpu/kernels/Silu.h"

namespace webnn::cpu::kernels {

namespace {

// One output row of the depthwise half from the ring of expanded rows
// (row ih in slot ih % 4), whose window starts at input row `top`.
void depthwiseRowFromRing(const PointwiseDepthwise &p, const float *ring, int64_t top, float *yrow) {
  const Depthwise3x3 &d = p.dw;
  const int64_t rowFloats = d.W * d.C;
  const float *rows[3];
  for (int k = 0; k < 3; ++k) {
    const int64_t ih = top + k;
    rows[k] = ih >= 0 && ih < d.H ? ring + (ih % 4) * rowFloats : nullptr;
  }
  depthwise3x3Avx512Row(d, rows, yrow);
  if (p.silu) siluAvx512(yrow, d.OW * d.C);
}

}  // namespace

void pointwiseDepthwiseAvx512(const PointwiseDepthwise &p, const float *x, float *y, int64_t oh0, int64_t oh1,
                              float *ring) {
  const Depthwise3x3 &d = p.dw;
  const int64_t rowFloats = d.W * d.C;
  // Input row ih of the expanded tensor lives in ring slot ih % 4: an
  // output row reads 3 rows and the next one adds 1 (stride 1) or 2.
  int64_t next = std::max<int64_t>(0, oh0 * d.stride - d.padTop);  // next row to expand
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t top = oh * d.stride - d.padTop;
    const int64_t last = std::min(d.H - 1, top + 2);
    for (; next <= last; ++next)
      pointwiseRowsAvx512(p.pointwise, x + next * d.W * p.pointwise.K, d.W, ring + (next % 4) * rowFloats);
    depthwiseRowFromRing(p, ring, top, y + oh * d.OW * d.C);
  }
}

void pointwiseDepthwiseAvx512Backward(const PointwiseDepthwise &p, const float *x, float *y, int64_t oh0,
                                      int64_t oh1, float *ring) {
  const Depthwise3x3 &d = p.dw;
  const int64_t rowFloats = d.W * d.C;
  // Row ih in slot ih % 4 as above: going up, a row expanded for output row
  // oh overwrites row ih + 4, below the three oh reads.
  int64_t next = std::min(d.H - 1, (oh1 - 1) * d.stride - d.padTop + 2);  // next row to expand
  for (int64_t oh = oh1 - 1; oh >= oh0; --oh) {
    const int64_t top = oh * d.stride - d.padTop;
    for (; next >= std::max<int64_t>(0, top); --next)
      pointwiseRowsAvx512(p.pointwise, x + next * d.W * p.pointwise.K, d.W, ring + (next % 4) * rowFloats);
    depthwiseRowFromRing(p, ring, top, y + oh * d.OW * d.C);
  }
}

}  // namespace webnn::cpu::kernels
