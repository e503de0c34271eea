// averagePool2d / maxPool2d / l2Pool2d, one invocation per output element,
// nchw or nhwc through strides. Average counts only the window's positions
// inside the input (padding excluded), as the CPU kernel does.
// GLOBAL (a window over the whole unpadded input, a 1x1 output): one
// workgroup per (n, c) instead, each invocation taking every
// gl_WorkGroupSize.x-th position, combined as a shared-memory tree, so a
// large map is read by the whole workgroup rather than one invocation.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int KIND = 0;  // 0 average, 1 max, 2 l2
layout(constant_id = 3) const bool GLOBAL = false;

TENSOR_IN(0, X, DT)
TENSOR_OUT(1, Y, DT)

layout(push_constant) uniform Params {
  uint N, C, H, W, OH, OW, KH, KW;
  uint strideH, strideW, dilationH, dilationW;
  int padTop, padLeft;
  uint xs[4];  // n, c, h, w
  uint ys[4];
} p;

shared float partial[gl_WorkGroupSize.x];

void globalPool() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint i = flatIndex() / gl_WorkGroupSize.x;
  if (i >= p.N * p.C) return;
  uint c = i % p.C, n = i / p.C, lane = gl_LocalInvocationID.x;
  uint base = n * p.xs[0] + c * p.xs[1];
  float acc = KIND == 1 ? -1.0 / 0.0 : 0.0;
  for (uint pos = lane; pos < p.H * p.W; pos += gl_WorkGroupSize.x) {
    float v = X_loadf(base + (pos / p.W) * p.xs[2] + (pos % p.W) * p.xs[3]);
    if (KIND == 1) acc = max(acc, v);
    else if (KIND == 2) acc += v * v;
    else acc += v;
  }
  partial[lane] = acc;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] = KIND == 1 ? max(partial[lane], partial[lane + half_]) : partial[lane] + partial[lane + half_];
    barrier();
  }
  if (lane != 0) return;
  acc = partial[0];
  if (KIND == 0) acc /= float(p.H * p.W);
  if (KIND == 2) acc = sqrt(acc);
  Y_storef(n * p.ys[0] + c * p.ys[1], acc);
}

void main() {
  if (GLOBAL) {
    globalPool();
    return;
  }
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
