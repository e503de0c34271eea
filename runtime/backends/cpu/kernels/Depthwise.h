// Depthwise 3x3 and 5x5 convolution in nhwc (groups == input channels ==
// output channels, float32) with bias and a ReLU/clamp epilogue, in AVX-512.
//
// Why our own: depthwise layers are a fifth of MobileNetV2's time at 1
// thread. Those below oneDNN's size threshold (the 7x7 and 14x14
// ones) ran the portable scalar loop at 11-14 GFLOP/s, and oneDNN 2.6's
// brdgmm_dw reaches 45-70 GFLOP/s on the rest. A register-tiled direct loop
// (each input vector of a row loaded once per tile, T pixels x V channel
// vectors of independent accumulators, channel chunks sized for L1 on small
// layers) measured 1.1-1.3x brdgmm_dw at stride 1 and 0.75-0.95x at stride
// 2, so the factories use it for stride 1 and for layers oneDNN does not
// take (docs/PERFORMANCE.md). The same tiles with 5x5 filters measured
// 1.25-1.35x oneDNN's jit_dw on 28x28 and 14x14 stride-1 layers (MnasNet,
// MobileNetV3, EfficientNet) but 0.75x on 7x7 ones, so 5x5 is taken first
// from 14 output columns up (conv/Conv2dSelection.cpp). AVX-512 code in
// DepthwiseAvx512.cpp, used only when avx512Available() (QuantizedMatMul.h).
// 3x3 stride 1 computes two output rows per tile (the four input rows
// loaded once for both, the nine filter vectors in registers).
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_DEPTHWISE_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_DEPTHWISE_H

#include <cstdint>

namespace webnn::cpu::kernels {

struct Depthwise3x3 {
  int64_t H = 0, W = 0, C = 0, OH = 0, OW = 0;  // one image; batches loop outside
  int64_t ks = 3;                              // the filter is ks x ks: 3 or 5
  int64_t stride = 1;                          // 1 or 2, both axes
  int64_t padTop = 0, padLeft = 0;             // 0 to (ks - 1) / 2 (bottom/right follow from OH/OW)
  // Filter as [ks][ks][C] (channels contiguous), bias [C] or null.
  const float *filter = nullptr, *bias = nullptr;
  float lo = -__builtin_inff(), hi = __builtin_inff();  // epilogue clamp (ReLU: lo 0)
};

// Whether depthwise3x3Avx512 handles this shape: 3x3 or 5x5, stride 1 or
// 2, dilation 1, padding 0 to (size - 1) / 2 on each side, any channel count.
bool depthwise3x3Supported(int64_t KH, int64_t KW, int64_t strideH, int64_t strideW, int64_t dilationH,
                           int64_t dilationW, int64_t padTop, int64_t padBottom, int64_t padLeft, int64_t padRight);

// Whether the conv2d family's table (conv/Conv2dSelection.cpp) offers this
// kernel. Process-wide; on unless WEBNN_DEPTHWISE_AVX512=0 (DebugOptions.h).
// Tests and A/B runs switch it; kernels already made keep their choice.
bool depthwiseAvx512Enabled();
void setDepthwiseAvx512Enabled(bool enabled);

// Output rows [oh0, oh1), channels [c0, c1) (c1 < 0: C) of y ([OH][OW][C])
// from x ([H][W][C]).
void depthwise3x3Avx512(const Depthwise3x3 &p, const float *x, float *y, int64_t oh0, int64_t oh1, int64_t c0 = 0,
                        int64_t c1 = -1);

// 3x3 only: one output row `yrow` ([OW][C]) from the three input rows its 3x3 window
// covers (rows[k] = input row oh * stride - padTop + k, [W][C]; null for a
// padding row), channels [c0, c1) (c1 < 0: C). For callers that produce
// input rows on the fly (the fused pointwise + depthwise kernel).
void depthwise3x3Avx512Row(const Depthwise3x3 &p, const float *const rows[3], float *yrow, int64_t c0 = 0,
                           int64_t c1 = -1);

}  // namespace webnn::cpu::kernels

#endif
