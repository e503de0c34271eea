// Depthwise conv2d (groups = input channels = output channels): each
// invocation computes CPI channels at OPI neighbouring output columns of
// one output row, with the window (KH x KW), the column stride and dilation
// as specialization constants, so the loops unroll, each filter tap is
// loaded once for the OPI outputs and input columns the outputs share are
// loaded once. Channels vary fastest across invocations (contiguous loads
// in nhwc). Layouts through strides per logical dim, as conv2d.comp.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool HAS_BIAS = false;
layout(constant_id = 3) const bool HAS_RESIDUAL = false;
layout(constant_id = 4) const int ACT = 0;  // 0 none, 1 relu, 2 clamp, 3 sigmoid, 4 silu, 5 hardSwish
layout(constant_id = 5) const int KH = 3;
layout(constant_id = 6) const int KW = 3;
layout(constant_id = 7) const int SW = 1;  // column stride
layout(constant_id = 8) const int DW = 1;  // column dilation
layout(constant_id = 9) const int CPI = 4;  // channels per invocation (divides C)
layout(constant_id = 10) const int OPI = 4;  // output columns per invocation
// The filter's storage type: DT, or float16 for a relaxed-precision node's
// constant filter (widened on load; the products and sums stay float32).
layout(constant_id = 11) const int FILTER_DT = DT_F32;

TENSOR_IN(0, X, DT)
TENSOR_IN(1, F, FILTER_DT)
TENSOR_OUT(2, Y, DT)
TENSOR_IN(3, Bias, DT)
TENSOR_IN(4, Residual, DT)

layout(push_constant) uniform Params {
  uint N, C, H, W, OH, OW;
  uint strideH, dilationH;
  int padTop, padLeft;
  uint channelGroups, columnGroups;  // C / CPI, ceil(OW / OPI)
  uint xs[4];  // n, c, h, w
  uint ys[4];  // n, c, h, w
  uint fs[3];  // c, h, w
  float actMin, actMax;
} p;

float activate(float v) {
  if (ACT == 1) return max(v, 0.0);
  if (ACT == 2) return min(max(v, p.actMin), p.actMax);
  if (ACT == 3) return 1.0 / (1.0 + exp(-v));
  if (ACT == 4) return v / (1.0 + exp(-v));
  if (ACT == 5) return v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
  return v;
}

void main() {
  uint i = flatIndex();
  if (i >= p.N * p.OH * p.columnGroups * p.channelGroups) return;
  uint c0 = (i % p.channelGroups) * CPI, t = i / p.channelGroups;
  uint ow0 = (t % p.columnGroups) * OPI;
  t /= p.columnGroups;
  uint oh = t % p.OH, n = t / p.OH;
  float acc[OPI * CPI];
  for (int k = 0; k < OPI * CPI; ++k) acc[k] = 0.0;
  int iw0 = int(ow0) * SW - p.padLeft;
  for (int kh = 0; kh < KH; ++kh) {
    int ih = int(oh * p.strideH) + kh * int(p.dilationH) - p.padTop;
    if (ih < 0 || ih >= int(p.H)) continue;
    uint row = n * p.xs[0] + uint(ih) * p.xs[2] + c0 * p.xs[1];
    for (int kw = 0; kw < KW; ++kw) {
      float w[CPI];
      for (int c = 0; c < CPI; ++c) w[c] = F_loadf((c0 + uint(c)) * p.fs[0] + uint(kh) * p.fs[1] + uint(kw) * p.fs[2]);
      for (int j = 0; j < OPI; ++j) {
        int iw = iw0 + j * SW + kw * DW;
        if (iw < 0 || iw >= int(p.W)) continue;
        uint base = row + uint(iw) * p.xs[3];
        for (int c = 0; c < CPI; ++c) acc[j * CPI + c] += X_loadf(base + uint(c) * p.xs[1]) * w[c];
      }
    }
  }
  for (int j = 0; j < OPI; ++j) {
    uint ow = ow0 + uint(j);
    if (ow >= p.OW) break;
    for (int c = 0; c < CPI; ++c) {
      uint ch = c0 + uint(c);
      float v = acc[j * CPI + c];
      if (HAS_BIAS) v += Bias_loadf(ch);
      uint dst = n * p.ys[0] + ch * p.ys[1] + oh * p.ys[2] + ow * p.ys[3];
      if (HAS_RESIDUAL) v += Residual_loadf(dst);
      Y_storef(dst, activate(v));
    }
  }
}
