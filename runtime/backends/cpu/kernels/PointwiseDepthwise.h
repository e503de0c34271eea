// A 1x1 convolution feeding a depthwise 3x3 one (MobileNet's expand +
// depthwise pair), nhwc float32, as one pass: each thread expands the
// input rows its output rows need into a ring of 4 rows and runs the
// depthwise row kernel (Depthwise.h) over them, so the expanded tensor
// (4.8 MB for MobileNetV2's 112x112x96) is never written to memory.
//
// Why: MobileNetV2's first stages are bound by that tensor's trip through
// L3; as one kernel features.2 took about two thirds of the two kernels'
// time (docs/PERFORMANCE.md). The expand's K is small
// (16-32 channels), so its filter stays in L1 and the register tiles of
// Pointwise.h run it at 160-195 GFLOP/s. AVX-512 code in
// PointwiseDepthwiseAvx512.cpp, used only when avx512Available().
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_POINTWISEDEPTHWISE_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_POINTWISEDEPTHWISE_H

#include <cstdint>

#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/Pointwise.h"

namespace webnn::cpu::kernels {

struct PointwiseDepthwise {
  // The 1x1 convolution: K input channels, N = dw.C output channels.
  PointwiseProduct pointwise;
  // The depthwise step: its input is the expanded tensor ([H][W][C]), its
  // epilogue dw.lo/dw.hi, then SiLU over each output row when `silu`.
  // (The expand's SiLU is pointwise.silu, over its rows in the ring.)
  Depthwise3x3 dw;
  bool silu = false;
};

// Floats of the per-thread ring the kernel below needs.
inline int64_t pointwiseDepthwiseRingFloats(const PointwiseDepthwise &p) { return 4 * p.dw.W * p.dw.C; }

// Output rows [oh0, oh1) of y ([OH][OW][C]) from x ([H][W][K]), one image.
// `ring` holds pointwiseDepthwiseRingFloats(p) floats, 64-byte aligned.
void pointwiseDepthwiseAvx512(const PointwiseDepthwise &p, const float *x, float *y, int64_t oh0, int64_t oh1,
                              float *ring);
// The same rows from the last to the first (the ring filled upwards): for
// y over x where a top-down pass would write over input rows it has yet to
// expand (a stride-2 pair's y larger than x, at x's first byte).
void pointwiseDepthwiseAvx512Backward(const PointwiseDepthwise &p, const float *x, float *y, int64_t oh0,
                                      int64_t oh1, float *ring);

}  // namespace webnn::cpu::kernels

#endif
