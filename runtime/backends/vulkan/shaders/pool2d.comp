// averagePool2d / maxPool2d / l2Pool2d, one invocation per output element,
// nchw or nhwc through strides. Average counts only the window's positions
// inside the input (padding excluded), as the CPU kernel does.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int KIND = 0;  // 0 average, 1 max, 2 l2

TENSOR_IN(0, X, DT)
TENSOR_OUT(1, Y, DT)

layout(push_constant) uniform Params {
  uint N, C, H, W, OH, OW, KH, KW;
  uint strideH, strideW, dilationH, dilationW;
  int padTop, padLeft;
  uint xs[4];  // n, c, h, w
  uint ys[4];
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.N * p.C * p.OH * p.OW) return;
  uint ow = i % p.OW, t = i / p.OW;
  uint oh = t % p.OH;
  t /= p.OH;
  uint c = t % p.C, n = t / p.C;
  float acc = KIND == 1 ? -1.0 / 0.0 : 0.0;
  uint count = 0;
  for (uint kh = 0; kh < p.KH; ++kh) {
    int ih = int(oh * p.strideH + kh * p.dilationH) - p.padTop;
    if (ih < 0 || ih >= int(p.H)) continue;
    for (uint kw = 0; kw < p.KW; ++kw) {
      int iw = int(ow * p.strideW + kw * p.dilationW) - p.padLeft;
      if (iw < 0 || iw >= int(p.W)) continue;
      float v = X_loadf(n * p.xs[0] + c * p.xs[1] + uint(ih) * p.xs[2] + uint(iw) * p.xs[3]);
      if (KIND == 1) acc = max(acc, v);
      else if (KIND == 2) acc += v * v;
      else acc += v;
      ++count;
    }
  }
  if (KIND == 0) acc = count > 0 ? acc / float(count) : 0.0;
  if (KIND == 1 && count == 0) acc = 0.0;  // a window wholly in the padding, as on the CPU
  if (KIND == 2) acc = sqrt(acc);
  Y_storef(n * p.ys[0] + c * p.ys[1] + oh * p.ys[2] + ow * p.ys[3], acc);
}
