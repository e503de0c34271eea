// conv2d (grouped and depthwise), fusedConv2d and convTranspose2d, one
// invocation per output element (groups = 1 takes conv2d_gemm.comp). Input,
// output and filter are addressed through strides per logical dim (n/c/h/w,
// o/i/h/w), so every layout WebNN allows (nchw/nhwc inputs; oihw, hwio,
// ohwi, ihwo, iohw, hwoi filters) is the same code.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool HAS_BIAS = false;
layout(constant_id = 3) const bool TRANSPOSED = false;
layout(constant_id = 4) const bool HAS_RESIDUAL = false;
layout(constant_id = 5) const int ACT = 0;  // 0 none, 1 relu, 2 clamp, 3 sigmoid, 4 silu, 5 hardSwish
// The filter's storage type: DT, or float16 for a relaxed-precision node's
// constant filter (widened on load; the products and sums stay float32).
layout(constant_id = 6) const int FILTER_DT = DT_F32;

TENSOR_IN(0, X, DT)
TENSOR_IN(1, F, FILTER_DT)
TENSOR_OUT(2, Y, DT)
TENSOR_IN(3, Bias, DT)
TENSOR_IN(4, Residual, DT)

layout(push_constant) uniform Params {
  uint N, C, H, W, O, OH, OW, KH, KW;
  uint strideH, strideW, dilationH, dilationW;
  int padTop, padLeft;
  uint groups;
  uint xs[4];  // n, c, h, w
  uint ys[4];  // n, o, h, w
  uint fs[4];  // o, i, h, w
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
  uint total = p.N * p.O * p.OH * p.OW;
  if (i >= total) return;
  uint ow = i % p.OW, t = i / p.OW;
  uint oh = t % p.OH;
  t /= p.OH;
  uint o = t % p.O, n = t / p.O;
  uint Cg = p.C / p.groups, Og = p.O / p.groups, g = o / Og;
  float acc = 0.0;
  for (uint c = 0; c < Cg; ++c) {
    uint cin = g * Cg + c;
    uint fBase = TRANSPOSED ? (o % Og) * p.fs[0] + cin * p.fs[1] : o * p.fs[0] + c * p.fs[1];
    for (uint kh = 0; kh < p.KH; ++kh) {
      int ih;
      if (TRANSPOSED) {
        int v = int(oh) + p.padTop - int(kh * p.dilationH);
        if (v < 0 || v % int(p.strideH) != 0) continue;
        ih = v / int(p.strideH);
      } else {
        ih = int(oh * p.strideH + kh * p.dilationH) - p.padTop;
      }
      if (ih < 0 || ih >= int(p.H)) continue;
      for (uint kw = 0; kw < p.KW; ++kw) {
        int iw;
        if (TRANSPOSED) {
          int v = int(ow) + p.padLeft - int(kw * p.dilationW);
          if (v < 0 || v % int(p.strideW) != 0) continue;
          iw = v / int(p.strideW);
        } else {
          iw = int(ow * p.strideW + kw * p.dilationW) - p.padLeft;
        }
        if (iw < 0 || iw >= int(p.W)) continue;
        float x = X_loadf(n * p.xs[0] + cin * p.xs[1] + uint(ih) * p.xs[2] + uint(iw) * p.xs[3]);
        acc += x * F_loadf(fBase + kh * p.fs[2] + kw * p.fs[3]);
      }
    }
  }
  if (HAS_BIAS) acc += Bias_loadf(o);
  uint dst = n * p.ys[0] + o * p.ys[1] + oh * p.ys[2] + ow * p.ys[3];
  if (HAS_RESIDUAL) acc += Residual_loadf(dst);
  Y_storef(dst, activate(acc));
}
