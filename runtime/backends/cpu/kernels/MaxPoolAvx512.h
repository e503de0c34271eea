// maxPool2d over float32 nhwc with AVX-512 (MaxPoolAvx512.cpp): one output
// row at a time, channels in 16-lane vectors (up to four, 64 channels, held
// in registers over a window's taps; a masked vector for a tail such as
// ShuffleNetV2's 24 or a 40). The window's real rows are clipped once per
// output row and its real columns once per output pixel, so the tap loops
// carry no bounds checks. Pooling.cpp's portable walk is the fallback: with
// a channel count under its 64-float block it ran a scalar loop.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_MAXPOOLAVX512_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_MAXPOOLAVX512_H

#include <algorithm>
#include <cstdint>

namespace webnn::cpu::kernels {

// The first tap index whose position start + k * step is >= 0, and one past
// the last whose position is < size (at most `taps`): a pooling window's
// real taps along one axis (Pooling.cpp's walk and the AVX-512 row).
inline int64_t poolFirstTap(int64_t start, int64_t step) { return start >= 0 ? 0 : (-start + step - 1) / step; }
inline int64_t poolEndTap(int64_t start, int64_t step, int64_t taps, int64_t size) {
  if (start >= size) return 0;
  return std::min(taps, (size - 1 - start) / step + 1);
}

// One output row of an nhwc max pool.
struct MaxPoolRowNhwc {
  const float *rows;  // the window's first real input row, pixel 0 (null: no real row)
  int64_t rowCount;   // real rows in the window (0: every output of the row is 0)
  int64_t rowStep;    // floats between the window's rows (dilation * W * C)
  int64_t C, W, OW, KW, sw, dw, padLeft;
  float *y;        // output pixel 0 of the row
  int64_t yPitch;  // floats between output pixels
};

// Max over each window's real taps, `v > acc ? v : acc` from -inf as the
// portable walk (a NaN input is skipped, as there); a window with no real
// tap writes 0. Only where avx512Available().
void maxPoolRowNhwcAvx512(const MaxPoolRowNhwc &r);

}  // namespace webnn::cpu::kernels

#endif
